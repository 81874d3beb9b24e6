// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the timing pass runs: plain data (<neurobench/metrics/timing.hpp> includes this).
#include <cstdint>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// How Benchmark measures time for timing metrics (TimingMetric: Latency, InferenceTime,
/// Throughput, StartupTime).
///
/// After the workload pass, a separate timing pass runs the model without hooks on full
/// batches of `batch_size` samples, cycling through the data in order: `warmup` runs that are
/// not recorded, then `runs` timed runs, or when `runs` is 0 as many as fit in `min_time_s`
/// (at least `kMinAutoRuns`, at most `kMaxRuns`); then, for StartupTime, `startup_runs` fresh
/// loads of the model file.
///
/// `max_time_s` bounds each of the pass's two parts: the warm-up and timed runs together, and
/// the fresh loads. Once a part has run that long, it starts no further run, but it always
/// makes at least one timed run (one load), so a part may overrun by the time of one run.
/// Timings says how many runs were made and whether `max_time_s` cut a part short.
struct TimingOptions {
  static constexpr int64_t kMinAutoRuns = 10;        ///< Fewest timed runs when `runs` is 0.
  static constexpr int64_t kMaxRuns = 1000000;       ///< Most timed runs.
  static constexpr int64_t kMaxWarmup = 1000000;     ///< Most warm-up runs.
  static constexpr int64_t kMaxStartupRuns = 10000;  ///< Most fresh loads of the model file.
  static constexpr double kMaxSeconds = 86400;       ///< Longest `min_time_s`, `max_time_s`: a day.

  int64_t warmup = 3;        ///< Untimed runs first (TorchScript optimises on early calls).
  int64_t runs = 0;          ///< Timed runs; 0: as many as fit in `min_time_s`.
  double min_time_s = 1.0;   ///< With `runs` 0: keep running until this much time is timed.
  double max_time_s = 60.0;  ///< Seconds after which each part of the pass stops (above).
  int64_t batch_size = 0;    ///< Samples per timed run; 0: the data loader's batch size.
  int64_t startup_runs = 5;  ///< Fresh loads of the model file for StartupTime.

  /// Throws UsageError naming the field when an option is out of its range: `warmup` 0 to
  /// kMaxWarmup, `runs` 0 to kMaxRuns, `min_time_s` and `max_time_s` 0 to kMaxSeconds with
  /// `min_time_s` at most `max_time_s`, `batch_size` 0 to LoaderOptions::kMaxBatchSize,
  /// `startup_runs` 1 to kMaxStartupRuns.
  void validate() const;
};

}  // namespace neurobench
NEUROBENCH_API_END
