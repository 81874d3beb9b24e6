// SPDX-License-Identifier: Apache-2.0
// Suite files: any bytes are a suite planned within its bounds (kMaxRuns) or an
// InputError/UsageError naming the file; huge axes, repeats and numbers at the edges of double
// and int64 must be refused before anything is expanded.
#include <cstdint>
#include <cstdio>

#include "fuzz_support.hpp"
#include "suite/suite_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("suite.json", data, size);
  neurobench::fuzz::expect_clean([&] {
    const neurobench::suite::SuiteFile suite = neurobench::suite::read_suite_file(path);
    const auto runs = static_cast<std::uint64_t>(suite.groups.size()) *
                      static_cast<std::uint64_t>(suite.repeats);
    if (runs > neurobench::suite::kMaxRuns) {
      std::fprintf(stderr, "fuzz finding: a suite of %llu runs was planned\n",
                   static_cast<unsigned long long>(runs));
      std::abort();
    }
  });
  return 0;
}
