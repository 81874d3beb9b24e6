// SPDX-License-Identifier: Apache-2.0
// The structured .npy reader: any bytes are named columns or an InputError. The columns all
// have one shape, and is_structured_npy agrees that the file is structured.
#include <neurobench/io/npy_fields.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.npy", data, size);
  neurobench::fuzz::expect_clean([&] {
    const auto fields = neurobench::load_npy_fields(path);
    for (const auto& [name, column] : fields) {
      if (column.sizes() != fields.front().second.sizes()) {
        std::fprintf(stderr, "fuzz finding: field '%s' has another shape\n", name.c_str());
        std::abort();
      }
    }
    if (!neurobench::is_structured_npy(path)) {
      std::fprintf(stderr, "fuzz finding: fields read from a file is_structured_npy denies\n");
      std::abort();
    }
  });
  return 0;
}
