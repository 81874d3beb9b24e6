// SPDX-License-Identifier: Apache-2.0
#pragma once

// The outcome of a run: plain data, for the reporters, the suite and the command line, which
// need no model, metric or JIT header to read it (<neurobench/benchmark.hpp> includes this).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <neurobench/environment.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// One metric that failed: its name and the cause.
struct MetricFailure {
  std::string metric;   ///< Metric name.
  std::string message;  ///< What went wrong.
};

/// The outcome of a run.
struct Results {
  /// Metric name -> value, in the order the metrics were given (static, then workload);
  /// a failed metric's value is null. NaN and infinities stay numbers here (run() warns about
  /// each metric holding one); results files write them as "NaN", "Infinity", "-Infinity".
  Json values = Json::object();
  /// Metric name -> what its value means (MetricDescription::to_json(), plus the `options` it
  /// ran with), saved as `_metrics` in JSON results.
  Json metrics = Json::object();
  std::vector<MetricFailure> failures;  ///< Metrics that failed (the others completed).
  /// Things the user should know: layers not found, timing limits, and the model's own
  /// (NeuroBenchModel::warnings(), each once; e.g. a step-wise network that keeps no state).
  std::vector<std::string> warnings;
  int64_t samples = 0;                  ///< Samples seen by the workload pass.
  std::size_t batches = 0;              ///< Batches run by the workload pass.
  Environment environment;              ///< Where and how the run was made.
  /// How the run was made: `model`, `metrics_scope` (when RunOptions::metrics_scope is set),
  /// `batch_size`, `model_sha256` and `data_sha256` (the
  /// SHA-256 of the files read, when the model and data set say: source_sha256(); a sharded run
  /// whose ranks read only their rows of an `.npz` records `data_shards` instead,
  /// docs/distributed.md),
  /// `non_finite_inputs` (each tensor of the data set or the model holding NaN or Inf: `tensor`,
  /// `kind`, `source`, `count`, `nan`, `inf`, `first_index`; only when there are some), and
  /// `timing` (the timing pass's settings, when there was one). Callers may add to it (the
  /// command line adds `data`); it is saved as `_run` in JSON results together with samples,
  /// batches, failures and warnings.
  Json run = Json::object();
  /// The per-layer profile when RunOptions::profile asked for one, else null; saved as
  /// `_profile` in JSON results. Keys (docs/deployment-metrics.md#per-layer-profile):
  /// `batch_size`, `warmup`, `runs`, `samples` (of the counting pass), `plain_forward_s` and
  /// `profiled_forward_s` (mean seconds per forward call without and with the layer clocks),
  /// `overhead` (their ratio minus 1), `layers_s` (the layers' time per forward),
  /// `other_s` (the rest of the profiled forward), and `layers`: one object per layer in
  /// the order first called, with `layer`, `kind` (`connection` or `activation`), `type`,
  /// `output_shape`, `calls_per_run`, `time_per_call_s`, `time_per_run_s`, `share` (of the
  /// profiled forward), `dense_ops`, `effective_macs`, `effective_acs` (per sample; null for
  /// activation layers) and `activation_sparsity` (null for connection layers).
  Json profile = nullptr;

  /// True when no metric failed.
  [[nodiscard]] bool ok() const { return failures.empty(); }
};

}  // namespace neurobench
NEUROBENCH_API_END
