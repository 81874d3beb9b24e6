// SPDX-License-Identifier: Apache-2.0
// The .npz reader (zip container through libzip, each entry as .npy): any bytes are a list of
// arrays or an InputError; every array read is touched whole, so the sanitizers see its memory.
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
  return 0;
}
