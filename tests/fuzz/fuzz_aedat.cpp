// SPDX-License-Identifier: Apache-2.0
// The AEDAT 3.1 reader: any bytes are polarity events or an InputError. Every event read has a
// 15-bit x and y, a polarity of 0 or 1 and a non-negative timestamp.
#include <neurobench/io/aedat.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.aedat", data, size);
  neurobench::fuzz::expect_clean([&] {
    neurobench::AedatSummary summary;
    const neurobench::events::Events events = neurobench::read_aedat3_polarity(path, &summary);
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events.x[i] < 0 || events.x[i] > 0x7FFF || events.y[i] < 0 || events.y[i] > 0x7FFF ||
          events.p[i] > 1 || events.t[i] < 0) {
        std::fprintf(stderr, "fuzz finding: event %zu out of the format's range\n", i);
        std::abort();
      }
    }
    if (summary.data_offset > size) {
      std::fprintf(stderr, "fuzz finding: packets start past the end of the file\n");
      std::abort();
    }
  });
  return 0;
}
