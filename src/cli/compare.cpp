// SPDX-License-Identifier: Apache-2.0
// `neurobench compare`: two results files side by side; exit status 1 on a regression.
#include <cctype>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/report.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
  CLI::App* compare =
      app.add_subcommand("compare",
                         "Compare two results files written by 'run --json'; exit status 1 when a "
                         "metric got worse by more than --fail-above");
  compare->add_option("A", a.a, "the baseline results file (JSON)")->required();
  compare->add_option("B", a.b, "the results file compared with it (JSON)")->required();
  compare
      ->add_option("--fail-above", a.fail_above,
                   "a change the worse way by more than this percentage of A is a regression "
                   "(5% or 5)")
      ->capture_default_str();
  compare
      ->add_option("--metrics", a.metrics,
                   "compare only keys starting with these, comma-separated, ignoring case "
                   "(e.g. Latency,ClassificationAccuracy)")
      ->delimiter(',');
  return compare;
}

namespace {

double parse_percent(const std::string& text) {
  std::string s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (!s.empty() && s.back() == '%') s.pop_back();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size() || !std::isfinite(value) || value < 0) {
    throw UsageError(
        fmt::format("--fail-above: '{}' is not a percentage >= 0 (give it as 5% or 5)", text));
  }
  return value;
}

}  // namespace

int compare_command(const CompareArgs& a, std::ostream& out) {
  CompareOptions options;
  options.fail_above_percent = parse_percent(a.fail_above);
  options.metrics = a.metrics;
  const RunResults first = load_run_results(a.a);
  const RunResults second = load_run_results(a.b);
  std::vector<RunResults> runs = {first, second};
  make_labels_unique(runs);  // `x/results.json` against `y/results.json`
  const auto rows = compare(runs[0], runs[1], options);
  out << render_comparison(rows, runs[0], runs[1], options);
  out.flush();
  return has_regression(rows) ? kExitMetricFailed : kExitOk;
}

}  // namespace neurobench::cli
