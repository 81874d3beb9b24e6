// SPDX-License-Identifier: Apache-2.0
// The .npy reader: any bytes are an array or an InputError. An array read is read again after
// being written, and must come back equal (the writer and reader agree on every layout).
#include <ATen/ATen.h>

#include <neurobench/io/npy.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.npy", data, size);
  neurobench::fuzz::expect_clean([&] {
    const at::Tensor array = neurobench::load_npy(path);
    const auto copy = path.parent_path() / "copy.npy";
    neurobench::save_npy(copy, array);
    const at::Tensor again = neurobench::load_npy(copy);
    if (!at::equal(array, again) && !(array.is_floating_point() && array.isnan().any().item<bool>())) {
      std::fprintf(stderr, "fuzz finding: .npy round trip changed the array\n");
      std::abort();
    }
  });
  return 0;
}
