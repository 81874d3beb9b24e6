// SPDX-License-Identifier: Apache-2.0
// A suite's summary files (docs/suites.md, "Summary"): every planned run's record and results
// read back, and summary.json, summary.md and summary.html written from them. Private to
// `neurobench suite`.
#pragma once

#include <optional>
#include <vector>

#include <neurobench/json.hpp>

#include "suite/plan.hpp"
#include "suite/suite_file.hpp"
#include "suite/summary.hpp"

namespace neurobench::suite {

/// Every run of `plan` as the summary sees it, those run now and those done before: its record
/// (one saying `missing` when there is none) and, when it wrote a results file and its status
/// is `ok` or `failed`, its results; a results file that cannot be read makes the run `failed`
/// with the reason as its cause.
[[nodiscard]] std::vector<SummaryRun> summary_runs(const SuiteFile& suite, const Plan& plan);

/// What write_summary() wrote.
struct SummaryFiles {
  Json summary;       ///< summary.json's contents (summary_json()).
  bool html = false;  ///< summary.html was written (some run has results).
  int failed = 0;     ///< Runs whose status is not `ok`.
};

/// Writes summary.json, summary.md and, when some run has results, summary.html into the plan's
/// folder, all or none, from summary_runs(). Throws InputError naming the file that cannot be
/// written.
SummaryFiles write_summary(const SuiteFile& suite, const Plan& plan, int jobs,
                           std::optional<double> timeout_seconds);

}  // namespace neurobench::suite
