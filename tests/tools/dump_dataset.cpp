// SPDX-License-Identifier: Apache-2.0
// A test tool: opens a data set by kind, as `neurobench run --dataset` does, and writes every
// sample to an .npz, so that Python tests can compare it with a reference loader (NeuroBench's
// SpeechCommands) sample by sample.
//
//   neurobench_dump_dataset KIND:PATH OUT.npz [key=value,...]
//
// The options are the kind's, as `--dataset-options` takes them (`subset=testing`). OUT.npz
// gets `data` and `targets`, all samples in the data set's order. Exit 0, or 2 with the error
// on stderr.
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/config.hpp>
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
