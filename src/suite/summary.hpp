// SPDX-License-Identifier: Apache-2.0
// A suite's summary (docs/suites.md, "Summary"): per group of repeats, the statistics of every
// metric and the differences to the baseline, as JSON, Markdown and the HTML report. Private to
// `neurobench suite`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <neurobench/json.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "suite/suite_file.hpp"

namespace neurobench::suite {

/// One run of the suite as the summary sees it.
struct SummaryRun {
  std::string group;  ///< The group's id.
  int repeat = 0;     ///< From 0.
  /// The run's record (`rep-K.run.json`): status, cause, wall_seconds, peak_rss_bytes, ...
  Json record;
  /// Its results, when it wrote a results file (status `ok`, or `failed` with exit status 1:
  /// a metric failed, the others were computed).
  std::optional<RunResults> results;
};

/// The summary as JSON: the suite's settings, every run's record, and per group its runs,
/// failures and, for every flattened numeric metric key, n, mean, sd, ci95 and the comparison
/// with the baseline group (difference, percent, verdict, Welch's p-value). `runs` is in the
/// suite's order (group by group, repeats in order).
[[nodiscard]] Json summary_json(const SuiteFile& suite, const std::vector<SummaryRun>& runs,
                                int jobs, std::optional<double> timeout_seconds);

/// The summary as Markdown, from summary_json().
[[nodiscard]] std::string summary_markdown(const Json& summary);

/// The HTML report (render_html_report) of the first repeat with results of each group, the
/// baseline first, each labelled with its group; empty when no run has results.
[[nodiscard]] std::string summary_html(const SuiteFile& suite, const std::vector<SummaryRun>& runs);

}  // namespace neurobench::suite
