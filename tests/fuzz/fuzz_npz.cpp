// SPDX-License-Identifier: Apache-2.0
// The .npz reader (zip container through libzip, each entry as .npy): any bytes are a list of
// arrays or an InputError; every array read is touched whole, so the sanitizers see its memory.
// Then each array's header alone and its middle rows (NpzArchive::shape, read_rows), and those
// rows read alone, with the part before them read alone too (read_rows_alone).
#include <cstdint>
#include <cstdlib>
#include <cstring>
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
      const auto head = archive.read_rows_alone(name, 0, rows / 3, true);
      const auto alone = archive.read_rows_alone(name, rows / 3, rows - rows / 3, false);
      if (head && alone && head->end != alone->begin) std::abort();  // parts must tile
      // The same rows, byte for byte (NaN included), as read_rows() kept.
      if (alone && (alone->rows.sizes() != part.sizes() ||
                    alone->rows.scalar_type() != part.scalar_type() ||
                    (part.nbytes() > 0 &&
                     std::memcmp(alone->rows.data_ptr(), part.data_ptr(), part.nbytes()) != 0))) {
        std::abort();
      }
    }
  });
  return 0;
}
