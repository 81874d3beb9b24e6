// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/reporters/run_results.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Renders one self-contained HTML5 page comparing runs side by side: every metric with its
/// unit, its better direction and the difference to the first run (from the runs' `_metrics`,
/// else the legacy table; see metric_info()), each run's environment, and inline SVG charts
/// (activation sparsity by layer, synaptic operations, latency distribution, accuracy against
/// operations). No JavaScript and no external resource. Throws UsageError when `runs` is
/// empty.
[[nodiscard]] std::string render_html_report(const std::vector<RunResults>& runs);

}  // namespace neurobench
NEUROBENCH_API_END
