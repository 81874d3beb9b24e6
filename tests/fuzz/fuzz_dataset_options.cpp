// SPDX-License-Identifier: Apache-2.0
// The options of the data set kinds as `--dataset-options` gives them: any bytes, read as
// `KIND\nkey=value,...`, are a checked data set spec or a UsageError/InputError; numbers at the
// edges of double and int64 (and nan, inf, hexadecimal) must be refused by name, never wrap
// into another value or reach an allocation.
#include <algorithm>
#include <string>
#include <string_view>

#include <neurobench/config.hpp>
#include <neurobench/datasets/kinds.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string kind(input.substr(0, std::min(newline, input.size())));
  const std::string_view text =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  neurobench::fuzz::expect_clean([&] {
    neurobench::DatasetSpec spec;
    spec.kind = kind;
    spec.path = "/nonexistent/neurobench-fuzz";
    spec.options = neurobench::parse_options(text, "--dataset-options");
    (void)neurobench::dataset_kinds().check(spec);
  });
  return 0;
}
