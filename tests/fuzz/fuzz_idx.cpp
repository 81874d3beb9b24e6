// SPDX-License-Identifier: Apache-2.0
// The IDX reader (MNIST's format): any bytes are a tensor or an InputError; the tensor read is
// touched whole, so the sanitizers see its memory.
#include <ATen/ATen.h>

#include <neurobench/io/idx.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.idx", data, size);
  neurobench::fuzz::expect_clean([&] {
    const at::Tensor t = neurobench::load_idx(path);
    if (t.numel() > 0) (void)t.to(at::kDouble).sum().item<double>();
  });
  return 0;
}
