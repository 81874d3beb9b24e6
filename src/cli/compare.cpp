// SPDX-License-Identifier: Apache-2.0
// `neurobench compare`: two results files side by side; exit status 1 on a regression.
#include <cctype>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/report.hpp>

#include "cli/commands.hpp"
#include "run/config_numbers.hpp"

namespace neurobench::cli {

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
  CLI::App* compare =
      app.add_subcommand("compare",
                         "Compare two results files written by 'run --json' (or 'fscil': "
                         "session by session too); exit status 1 when a metric got worse by "
                         "more than --fail-above, became NaN or infinite, or failed or is "
                         "missing in B");
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
  compare->add_flag("--allow-failed", a.allow_failed,
                    "a metric that failed in B (null) does not make the exit status 1");
  compare->add_flag("--allow-missing", a.allow_missing,
                    "a metric or key of A that B lacks does not make the exit status 1");
  return compare;
}

namespace {

double parse_percent(const std::string& text) {
  std::string s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (!s.empty() && s.back() == '%') s.pop_back();
  const std::optional<double> number = detail::decimal_number(s);  // no inf, nan or 0x10
  const double value = number.value_or(-1);
  if (!number || !std::isfinite(value) || value < 0) {
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
  options.allow_failed = a.allow_failed;
  options.allow_missing = a.allow_missing;
  const RunResults first = load_run_results(a.a);
  const RunResults second = load_run_results(a.b);
  std::vector<RunResults> runs = {first, second};
  make_labels_unique(runs);  // `x/results.json` against `y/results.json`
  const auto rows = compare(runs[0], runs[1], options);
  // Two FSCIL results files: their sessions too, gated as the means are.
  const FscilComparison sessions = compare_fscil_sessions(runs[0], runs[1], options);
  out << render_comparison(rows, runs[0], runs[1], options)
      << render_fscil_comparison(sessions, runs[0], runs[1], options);
  out.flush();
  std::vector<ComparisonRow> gated = rows;
  gated.insert(gated.end(), sessions.rows.begin(), sessions.rows.end());
  // A gate must not pass a broken run: say on stderr what failed it, besides regressions.
  std::vector<std::string> failed, missing;
  for (const auto& r : gated) {
    if (r.failed_in_b && !options.allow_failed) failed.push_back(r.key);
    if (r.missing_in_b && !options.allow_missing) missing.push_back(r.key);
  }
  if (!failed.empty()) {
    std::cerr << fmt::format("error: {} failed in {}: {} (--allow-failed accepts that)\n",
                             failed.size() == 1 ? "a metric" : "metrics", a.b,
                             fmt::join(failed, ", "));
  }
  if (!missing.empty()) {
    std::cerr << fmt::format("error: {} of {} missing in {}: {} (--allow-missing accepts that)\n",
                             missing.size() == 1 ? "a metric" : "metrics", a.a, a.b,
                             fmt::join(missing, ", "));
  }
  return comparison_failed(gated, options) ? kExitMetricFailed : kExitOk;
}

}  // namespace neurobench::cli
