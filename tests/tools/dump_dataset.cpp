// SPDX-License-Identifier: Apache-2.0
// A test tool: opens a data set by kind, as `neurobench run --dataset` does, and writes every
// sample to an .npz, so that Python tests can compare it with a reference loader (NeuroBench's
// SpeechCommands) sample by sample.
//
//   neurobench_dump_dataset KIND:PATH OUT.npz [key=value,...]
//
// The options are the kind's, as `--dataset-options` takes them (`subset=testing`). OUT.npz
// gets `data` and `targets`, all samples in the data set's order; for a data set of fixed
// batches (a sequential one, such as gen4-detection), each batch's `data_B`, `targets_B` and
// extras `NAME_B`, batch by batch as a DataLoader gives them. Exit 0, or 2 with the error on
// stderr.
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/config.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: neurobench_dump_dataset KIND:PATH OUT.npz [key=value,...]\n";
    return 2;
  }
  try {
    neurobench::DatasetSpec spec = neurobench::parse_dataset_spec(argv[1]);
    if (argc == 4) spec.options = neurobench::parse_options(argv[3], "options");
    neurobench::DatasetOpenOptions open;
    open.quiet = true;
    const auto dataset = neurobench::dataset_kinds().open(spec, open);
    if (dataset->fixed_batch_size()) {
      const neurobench::DataLoader loader(dataset);
      std::vector<neurobench::NamedArray> arrays;
      for (std::size_t b = 0; b < loader.num_batches(); ++b) {
        const neurobench::Batch batch = loader.batch(b);
        const std::string tail = "_" + std::to_string(b);
        arrays.emplace_back("data" + tail, batch.data.contiguous());
        arrays.emplace_back("targets" + tail, batch.targets.contiguous());
        for (const auto& [name, value] : batch.extras) {
          arrays.emplace_back(name + tail, value.contiguous());
        }
      }
      neurobench::save_npz(argv[2], arrays);
      return 0;
    }
    std::vector<int64_t> all(static_cast<std::size_t>(dataset->size()));
    std::iota(all.begin(), all.end(), 0);
    const neurobench::Batch batch = dataset->get(all);
    neurobench::save_npz(
        argv[2], {{"data", batch.data.contiguous()}, {"targets", batch.targets.contiguous()}});
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
