// SPDX-License-Identifier: Apache-2.0
// Benchmark configs: any bytes are a config or an InputError/UsageError. A config read must
// validate or be refused, and survive its own round trip (to_json, from_json).
#include <neurobench/config.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("config.json", data, size);
  neurobench::fuzz::expect_clean([&] {
    const auto config = neurobench::BenchmarkConfig::read(path);
    config.validate();
    const auto json = config.to_json();
    const auto again = neurobench::BenchmarkConfig::from_json(json);
    if (again.to_json() != json) {
      std::fprintf(stderr, "fuzz finding: config round trip changed it\n");
      std::abort();
    }
  });
  return 0;
}
