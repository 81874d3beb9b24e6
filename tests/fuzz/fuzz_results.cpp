// SPDX-License-Identifier: Apache-2.0
// Results files as `report` and `compare` read them: any bytes are run results or an
// InputError; results read must render as every report and compare against themselves.
#include <neurobench/reporters/compare.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("results.json", data, size);
  neurobench::fuzz::expect_clean([&] {
    const auto run = neurobench::load_run_results(path);
    const std::vector<neurobench::RunResults> runs{run, run};
    (void)neurobench::render_markdown_report(runs);
    (void)neurobench::render_html_report(runs);
    const auto rows = neurobench::compare(run, run);
    (void)neurobench::render_comparison(rows, run, run);
  });
  return 0;
}
