// SPDX-License-Identifier: Apache-2.0
// What the reports say about a run beside its metric values: the task's correctness metric,
// the timed runs behind its timings, and its `_run` and `_environment` fields. Private to the
// reporters (src/reporters).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <neurobench/reporters/run_results.hpp>

#include "reporters/flat_values.hpp"

namespace neurobench::detail {

/// The task's correctness metric and its column header.
struct Correctness {
  std::string key;     ///< `ClassificationAccuracy`, `SMAPE`, `R2` or `MSE`.
  std::string header;  ///< `Accuracy`, `sMAPE (%)`, ...
};

/// The first of ClassificationAccuracy, SMAPE, R2 and MSE that any run has.
[[nodiscard]] std::optional<Correctness> correctness_metric(const std::vector<FlatRun>& runs);

/// Timed runs and warm-ups behind a run's timing figures, when it has any.
struct TimingBasis {
  std::optional<double> runs;
  std::optional<double> warmup;
};

/// From the timing metrics' `runs`/`warmup_runs`, else from `_run.timing`.
[[nodiscard]] TimingBasis timing_basis(const RunResults& run, const FlatRun& flat);

/// A field of `_environment` as text; empty when absent or null.
[[nodiscard]] std::string env_field(const RunResults& run, const char* key);
/// A field of `_run` as text; empty when absent or null.
[[nodiscard]] std::string run_field(const RunResults& run, const char* key);
/// `_run.phases` (seconds by phase) as `model load 0.0192 s, data open 0.00087 s, ...`; empty
/// when `phases` is not an object of numbers.
[[nodiscard]] std::string phases_text(const Json& phases);
/// The commit the run was built from, `(dirty)` when it had uncommitted changes.
[[nodiscard]] std::string commit_text(const RunResults& run);
/// Where the model ran: `cpu`, or the GPU's name and device (`NVIDIA H100 80GB HBM3 (cuda:0)`);
/// empty for results that do not say (files written before devices were recorded).
[[nodiscard]] std::string device_text(const RunResults& run);

}  // namespace neurobench::detail
