// SPDX-License-Identifier: Apache-2.0
// The HTML report's charts, each a `<section>` holding an inline SVG, or a note saying
// why it is left out. Private to the reporters (src/reporters).
#pragma once

#include <string>
#include <vector>

#include <neurobench/reporters/run_results.hpp>

#include "reporters/flat_values.hpp"

namespace neurobench::detail {

/// Activation sparsity by layer: one group per layer, one bar per run (`#chart-sparsity`).
[[nodiscard]] std::string sparsity_chart(const std::vector<RunResults>& runs,
                                         const std::vector<FlatRun>& flat);
/// Synaptic operations per sample: three bars per run (`#chart-operations`).
[[nodiscard]] std::string operations_chart(const std::vector<RunResults>& runs,
                                           const std::vector<FlatRun>& flat);
/// EnergyEstimate's split per sample: one stacked bar per run (`#chart-energy`); empty when no
/// run has EnergyEstimate.
[[nodiscard]] std::string energy_chart(const std::vector<RunResults>& runs,
                                       const std::vector<FlatRun>& flat);
/// Latency distribution per batch: a box-and-whisker glyph per run (`#chart-latency`).
[[nodiscard]] std::string latency_chart(const std::vector<RunResults>& runs,
                                        const std::vector<FlatRun>& flat);
/// The task's correctness metric against operations per sample (`#chart-accuracy`).
[[nodiscard]] std::string accuracy_chart(const std::vector<RunResults>& runs,
                                         const std::vector<FlatRun>& flat);

}  // namespace neurobench::detail
