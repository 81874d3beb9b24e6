// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/report.hpp>

#include <catch2/catch.hpp>

#include "reporters/report_support.hpp"

using neurobench::test::fixture_runs_by_name;
using neurobench::test::require_golden;

TEST_CASE("the Markdown report and the comparison of the fixture runs are as approved",
          "[report]") {
  const auto runs = fixture_runs_by_name();
  require_golden("report_fixtures.md", neurobench::render_markdown_report(runs));
  const auto rows = neurobench::compare(runs[0], runs[1]);
  require_golden("compare_fixtures.txt", neurobench::render_comparison(rows, runs[0], runs[1]));
}
