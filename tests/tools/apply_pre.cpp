// SPDX-License-Identifier: Apache-2.0
// A test tool: applies registered pre-processors to the arrays of an .npz file and writes the
// result, so that Python tests can compare neurobench's pre-processing with a reference
// (torchaudio, snnTorch) on inputs they make up at run time.
//
//   neurobench_apply_pre IN.npz OUT.npz SPEC [SPEC...]
//
// IN.npz holds `data` and, optionally, `targets` (zeros of length batch when absent). Each SPEC
// is a pre-processor as `--pre` takes it: `Name` or `Name:key=value,...`. OUT.npz gets `data`
// and `targets` after every pre-processor, in order. Exit 0, or 2 with the error on stderr.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/processors/processors.hpp>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: neurobench_apply_pre IN.npz OUT.npz SPEC [SPEC...]\n";
    return 2;
  }
  try {
    neurobench::NpzArchive archive(argv[1]);
    neurobench::Batch batch;
    batch.data = archive.read("data");
    batch.targets = archive.contains("targets")
                        ? archive.read("targets")
                        : torch::zeros({batch.data.dim() > 0 ? batch.data.size(0) : 1},
                                       torch::kLong);
    for (int i = 3; i < argc; ++i) {
      const neurobench::PluginSpec spec = neurobench::parse_plugin_spec(argv[i], "pre-processor");
      auto pre = neurobench::pre_processors().create(spec.name, spec.options);
      batch = (*pre)(batch);
    }
    neurobench::save_npz(argv[2], {{"data", batch.data.contiguous()},
                                   {"targets", batch.targets.contiguous()}});
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
