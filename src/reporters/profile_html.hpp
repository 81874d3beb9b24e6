// SPDX-License-Identifier: Apache-2.0
// The per-layer profile in the HTML and Markdown reports. Private to the reporters
// (src/reporters).
#pragma once

#include <string>
#include <vector>

#include <neurobench/reporters/run_results.hpp>

namespace neurobench::detail {

/// The `#profile` section: for each run whose `_run.profile` holds a per-layer profile, a
/// table of its layers sorted by time and an SVG bar chart of their time per forward call
/// (`#chart-profile-N`). Empty when no run has a profile.
[[nodiscard]] std::string profile_html(const std::vector<RunResults>& runs);

/// For each run whose `_run.profile` holds a per-layer profile, a bold line naming the run and
/// giving the forward call's times, then a Markdown table of its rows sorted by time and the
/// "(rest of forward)" row last. Empty when no run has a profile.
[[nodiscard]] std::string profile_markdown(const std::vector<RunResults>& runs);

}  // namespace neurobench::detail
