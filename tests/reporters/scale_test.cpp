// SPDX-License-Identifier: Apache-2.0
// Reports and comparisons of results files with many metrics give every key its row, its
// description and its verdict (their speed, linear in the number of keys, is measured by
// benchmarks/report_scaling.sh).
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include <neurobench/reporters/report.hpp>

#include "reporters/report_support.hpp"

namespace {

constexpr int kMetrics = 10000;

// A results file of kMetrics metrics `M0`.. with `_metrics` saying lower is better; metric i
// is i * scale, and every 1000th one is an object of two keys.
std::string many_metrics(double scale) {
  std::string values, described;
  for (int i = 0; i < kMetrics; ++i) {
    const std::string name = "M" + std::to_string(i);
    const std::string v = std::to_string(i * scale);
    values += "\"" + name + "\": " + (i % 1000 == 0 ? "{\"a\": " + v + ", \"b\": 1}" : v) + ",\n";
    described += "\"" + name + "\": {\"unit\": \"u" + std::to_string(i) +
                 "\", \"better\": \"lower\"" +
                 (i % 1000 == 0 ? ", \"keys\": {\"b\": {\"unit\": \"count\", \"better\": \"none\"}}"
                                : "") +
                 "},\n";
  }
  described.resize(described.size() - 2);
  return "{" + values + "\"_metrics\": {" + described + "}}";
}

}  // namespace

TEST_CASE("10,000 metrics: every key loaded, compared and reported with its own description",
          "[report][scale]") {
  neurobench::test::TempDir dir;
  const auto base = neurobench::test::write(dir, "base.json", many_metrics(1.0));
  const auto slower = neurobench::test::write(dir, "slower.json", many_metrics(1.1));
  const auto runs = neurobench::load_run_results({base, slower});
  REQUIRE(runs[0].metrics.size() == kMetrics);
  REQUIRE(runs[0].descriptions.size() == kMetrics);
  REQUIRE(runs[0].metrics.begin().key() == "M0");
  REQUIRE(std::prev(runs[0].metrics.end()).key() == "M9999");

  const auto rows = neurobench::compare(runs[0], runs[1]);
  REQUIRE(rows.size() == kMetrics + 10);  // ten objects of two keys
  REQUIRE(rows[1].key == "M0.b");
  REQUIRE(rows[1].info.unit == "count");
  REQUIRE(rows.back().key == "M9999");
  REQUIRE(rows.back().info.unit == "u9999");
  REQUIRE(rows.back().info.better == neurobench::Better::Lower);
  // +10% everywhere but at 0 and on the undirected `b` keys.
  std::size_t regressions = 0;
  for (const auto& r : rows) regressions += r.regression ? 1 : 0;
  REQUIRE(regressions == kMetrics - 1);
  REQUIRE_FALSE(neurobench::test::row(rows, "M0.a").regression);

  const std::string md = neurobench::render_markdown_report(runs);
  REQUIRE(neurobench::test::count(md, "\n\\| M[0-9]+(\\.[ab])? \\|") == kMetrics + 10);
  REQUIRE_THAT(md, Catch::Contains("| M9999 | u9999 | 9999 | 10998.9 | +999.9 (+10.0%, worse) |"));
  const std::string html = neurobench::render_html_report(runs);
  REQUIRE(neurobench::test::count(html, "<tr data-key=\"M") == kMetrics + 10);
}
