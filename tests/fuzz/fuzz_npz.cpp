// SPDX-License-Identifier: Apache-2.0
// The .npz reader (zip container through libzip, each entry as .npy): any bytes are a list of
// arrays or an InputError; every array read is touched whole, so the sanitizers see its memory.
// Then each array's header alone and its middle rows (NpzArchive::shape, read_rows).
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <neurobench/io/npz.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.npz", data, size);
  neurobench::fuzz::expect_clean([&] {
    for (const auto& [name, array] : neurobench::load_npz(path)) {
      if (array.numel() > 0) (void)array.to(at::kDouble).sum().item<double>();
    }
  });
  neurobench::fuzz::expect_clean([&] {
    neurobench::NpzArchive archive(path);
    for (const std::string& name : archive.names()) {
      const std::vector<std::int64_t> shape = archive.shape(name);
      if (shape.empty()) continue;
      const std::int64_t rows = shape.front();
      const at::Tensor part = archive.read_rows(name, rows / 3, rows - rows / 3);
      if (part.numel() > 0) (void)part.to(at::kDouble).sum().item<double>();
    }
  });
  return 0;
}
