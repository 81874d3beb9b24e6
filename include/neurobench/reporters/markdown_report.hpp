// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/reporters/run_results.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Renders Markdown for a pull request: one row per run in the layout of NeuroBench's
/// leaderboards (correctness metric, footprint, connection sparsity, activation sparsity,
/// dense, effective MACs, effective ACs), then every other metric with its unit and the
/// differences to the first run (better or worse as the runs' `_metrics` say, else the legacy
/// table; see metric_info()). Throws UsageError when `runs` is empty.
[[nodiscard]] std::string render_markdown_report(const std::vector<RunResults>& runs);

}  // namespace neurobench
NEUROBENCH_API_END
