// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/timing.hpp>

NEUROBENCH_API_BEGIN

/// What the hardware does during the timing pass's timed runs: energy, CPU and GPU
/// utilisation, clocks and temperatures, read by one background thread (PlatformSampling;
/// docs/deployment-metrics.md, "Energy, utilisation, clock, temperature").
///
/// Each takes the options `sysroot` (prefix of `/sys` and `/proc`, default `/`), `interval_ms`
/// (the sampling interval, default 100: 10 Hz) and `nvml_library` (NVIDIA's management library,
/// read when the run's device is a CUDA GPU; default `libnvidia-ml.so.1`). A source that
/// cannot be read here is named with its reason in `_run.platform`; a metric none of whose
/// sources can be read throws MetricUnavailable, so the run records it as unavailable (null,
/// `_run.unavailable`), never as zero.
namespace neurobench::metrics {

namespace names {
inline constexpr const char* kEnergy = "Energy";
inline constexpr const char* kUtilisation = "Utilisation";
inline constexpr const char* kClock = "Clock";
inline constexpr const char* kTemperature = "Temperature";
}  // namespace names

/// The keys of the platform metrics' values.
namespace keys::platform {
inline constexpr const char* kJoulesPerSample = "joules_per_sample";
inline constexpr const char* kMilliwattHoursPerSample = "mwh_per_sample";
inline constexpr const char* kJoulesPerBatch = "joules_per_batch";
inline constexpr const char* kJoules = "joules";
inline constexpr const char* kWatts = "watts";
inline constexpr const char* kCpuJoules = "cpu_joules";
inline constexpr const char* kGpuJoules = "gpu_joules";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kSeconds = "seconds";
inline constexpr const char* kCoresUsed = "cpu_cores_used";
inline constexpr const char* kCpuPercent = "cpu_percent";
inline constexpr const char* kCpuPercentMax = "cpu_percent_max";
inline constexpr const char* kCpus = "cpus";
inline constexpr const char* kSystemPercent = "system_cpu_percent";
inline constexpr const char* kSystemPercentMax = "system_cpu_percent_max";
inline constexpr const char* kGpuPercentMean = "gpu_percent_mean";
inline constexpr const char* kGpuPercentMax = "gpu_percent_max";
inline constexpr const char* kCpuMhzMean = "cpu_mhz_mean";
inline constexpr const char* kCpuMhzMax = "cpu_mhz_max";
inline constexpr const char* kCpuMhzMin = "cpu_mhz_min";
inline constexpr const char* kGpuSmMhzMean = "gpu_sm_mhz_mean";
inline constexpr const char* kGpuSmMhzMax = "gpu_sm_mhz_max";
inline constexpr const char* kMeanC = "mean_c";
inline constexpr const char* kMaxC = "max_c";
inline constexpr const char* kSensors = "sensors";
inline constexpr const char* kGpuMeanC = "gpu_mean_c";
inline constexpr const char* kGpuMaxC = "gpu_max_c";
inline constexpr const char* kReadings = "readings";
}  // namespace keys::platform

/// The base of the platform metrics: their options and what they ask the sampler for.
class PlatformMetric : public TimingMetric {
 public:
  /// What the timing pass's sampler reads for this metric.
  [[nodiscard]] const PlatformSampling* platform_sampling() const override { return &sampling_; }

 protected:
  /// `options`: `{"sysroot", "interval_ms", "nvml_library"}`, complete (as the registry passes
  /// them) or partial; throws UsageError for an interval out of PlatformSampling's range.
  PlatformMetric(const Json& options, PlatformSampling sampling);
  /// This metric's records in `timings.platform`, one per process; throws MetricError when the
  /// timing pass made none (it ran without the sampler).
  [[nodiscard]] const Json& records(const Timings& timings) const;
  /// Throws MetricUnavailable naming every source that could not be read (`_run.platform`).
  [[noreturn]] void unavailable(const Json& records) const;
  /// Adds the options every platform metric takes to `d`.
  static MetricDescription& with_platform_options(MetricDescription& d);

 private:
  PlatformSampling sampling_;
};

/// Energy per inference over the timed runs, measured: RAPL's package counters (the CPUs'
/// sockets, the whole machine's package energy, not this process's alone) and, on a CUDA GPU,
/// NVML's energy counter (or its power integrated over the readings). J and mWh per sample,
/// J per batch, total J and mean W, split into `cpu_joules` and `gpu_joules`.
class Energy final : public PlatformMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  Energy();
  explicit Energy(const Json& options);
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// The process's CPU utilisation over the timed runs (CPU time over wall time: cores used, and
/// the percentage of the CPUs it may run on, mean and largest per sampling interval; the
/// sampler's own CPU time left out), the machine's (/proc/stat), and on a CUDA GPU its
/// utilisation (NVML), mean and max.
class Utilisation final : public PlatformMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  Utilisation();
  explicit Utilisation(const Json& options);
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// The CPUs' clock during the timed runs (cpufreq's `scaling_cur_freq`, else /proc/cpuinfo's
/// `cpu MHz`), mean, min and max over CPUs and readings, MHz; on a CUDA GPU its SM clock.
class Clock final : public PlatformMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  Clock();
  explicit Clock(const Json& options);
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// Temperatures during the timed runs: every thermal zone and hwmon sensor found (mean and max
/// of each, and the largest of all), and on a CUDA GPU its temperature (NVML), degrees Celsius.
class Temperature final : public PlatformMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  Temperature();
  explicit Temperature(const Json& options);
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

}  // namespace neurobench::metrics
NEUROBENCH_API_END
