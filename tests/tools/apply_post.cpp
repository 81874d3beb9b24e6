// SPDX-License-Identifier: Apache-2.0
// A test tool: applies registered post-processors to an array of an .npz file and writes the
// result, so that Python tests can compare neurobench's post-processing with a reference
// (torchvision's batched_nms for BoxNms) on inputs they make up at run time.
//
//   neurobench_apply_post IN.npz OUT.npz SPEC [SPEC...]
//
// IN.npz holds `preds`. Each SPEC is a post-processor as `--post` takes it: `Name` or
// `Name:key=value,...`. OUT.npz gets `preds` after every post-processor, in order. Exit 0, or 2
// with the error on stderr.
#include <exception>
#include <iostream>

#include <torch/script.h>

#include <neurobench/config.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/processors/processors.hpp>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: neurobench_apply_post IN.npz OUT.npz SPEC [SPEC...]\n";
    return 2;
  }
  try {
    neurobench::NpzArchive archive(argv[1]);
    torch::Tensor preds = archive.read("preds");
    for (int i = 3; i < argc; ++i) {
      const neurobench::PluginSpec spec = neurobench::parse_plugin_spec(argv[i], "post-processor");
      auto post = neurobench::post_processors().create(spec.name, spec.options);
      preds = (*post)(preds);
    }
    neurobench::save_npz(argv[2], {{"preds", preds.contiguous()}});
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
