// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/timing_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// One timed run of the timing pass (seconds, monotonic clock).
struct TimedRun {
  double pre_s = 0;      ///< Pre-processing.
  double forward_s = 0;  ///< Model inference alone.
  double post_s = 0;     ///< Post-processing.
  int64_t samples = 0;   ///< Samples in the batch.
};

/// One fresh load of the model file and its first inference (seconds).
struct StartupRun {
  double load_s = 0;             ///< Reading and preparing the model file.
  double first_inference_s = 0;  ///< Its first forward pass on one timing batch.
};

/// What the timing pass measured; timing metrics turn it into values.
struct Timings {
  int64_t batch_size = 0;                 ///< Samples per timed run.
  int64_t warmup_runs = 0;                ///< Untimed runs made before the timed ones.
  std::vector<TimedRun> runs;             ///< The timed runs, in order.
  bool max_time_reached = false;          ///< `max_time_s` stopped the warm-up or timed runs.
  double wall_s = 0;                      ///< Wall time of the timed runs, batch assembly included.
  double clock_resolution_s = 1e-9;       ///< Resolution of the monotonic clock.
  std::vector<StartupRun> startup;        ///< Fresh loads, when a metric asked for them.
  std::string startup_error;              ///< Why `startup` is empty, when it is.
  bool startup_max_time_reached = false;  ///< `max_time_s` stopped the fresh loads.
  /// What the platform sampler read during the timed runs, by metric name (the metrics whose
  /// platform_sampling() asked): an array of one record per process (a sharded run's ranks in
  /// rank order). A record is the sampler's own (docs/deployment-metrics.md, "The platform
  /// sampler"); the platform metrics turn it into their values.
  Json platform = Json::object();
};

/// What a timing metric asks the timing pass's platform sampler to read (see
/// TimingMetric::platform_sampling()). One background thread reads every source the run's
/// metrics ask for, once when the timed runs start, every `interval_ms` during them (the
/// shortest interval asked for), and once when they end. Sources are files under `sysroot`
/// (`sys/class/powercap`, `sys/devices/system/cpu`, `sys/class/thermal`, `sys/class/hwmon`,
/// `proc/stat`, `proc/cpuinfo`) and, when the run's device is a CUDA GPU, NVIDIA's management
/// library loaded at run time from `nvml_library`.
struct PlatformSampling {
  static constexpr double kMinIntervalMs = 1;      ///< Shortest sampling interval.
  static constexpr double kMaxIntervalMs = 60000;  ///< Longest sampling interval.

  bool energy = false;       ///< RAPL package energy counters; the GPU's energy.
  bool utilisation = false;  ///< The process's CPU time and the machine's; the GPU's utilisation.
  bool clock = false;        ///< The CPUs' clock (cpufreq, else /proc/cpuinfo); the GPU's SM clock.
  bool temperature = false;  ///< Thermal zones and hwmon sensors; the GPU's temperature.
  std::string sysroot = "/";  ///< Prefix of `/sys` and `/proc` (tests read fake trees).
  double interval_ms = 100;   ///< Time between samples: 10 Hz.
  std::string nvml_library = "libnvidia-ml.so.1";  ///< NVML, for a run on a CUDA GPU.
};

/// Summary statistics of a sample of durations or rates.
struct Summary {
  std::size_t count = 0;  ///< Number of values.
  double mean = 0;
  double median = 0;  ///< The 50th percentile.
  double p90 = 0;     ///< 90th percentile.
  double p99 = 0;     ///< 99th percentile.
  double min = 0;
  double max = 0;
  double std = 0;  ///< Sample standard deviation (n - 1 in the denominator); 0 for one value.
};

/// Summarises `values`. Percentiles interpolate linearly between the two nearest ranks
/// (NumPy's default): the p-th percentile of sorted `v` is at rank `p / 100 * (n - 1)`.
/// Throws MetricError for an empty sample.
[[nodiscard]] Summary summarize(std::vector<double> values);

/// The resolution of the monotonic clock used for timings, in seconds.
[[nodiscard]] double monotonic_clock_resolution();

}  // namespace neurobench
NEUROBENCH_API_END
