// SPDX-License-Identifier: Apache-2.0
// The per-layer profile in the HTML report. Private to the reporters (src/reporters).
#pragma once

#include <string>
#include <vector>

#include <neurobench/reporters/run_results.hpp>

namespace neurobench::detail {

/// The `#profile` section: for each run whose `_run.profile` holds a per-layer profile, a
/// table of its layers sorted by time and an SVG bar chart of their time per forward call
/// (`#chart-profile-N`). Empty when no run has a profile.
[[nodiscard]] std::string profile_html(const std::vector<RunResults>& runs);

}  // namespace neurobench::detail
