// SPDX-License-Identifier: Apache-2.0
// Deployment metrics: timings from Benchmark's timing pass (Latency, InferenceTime,
// Throughput, StartupTime) and peak memory.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <neurobench/device.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>
#include <neurobench/metrics/timing.hpp>

namespace neurobench {

namespace metrics {

namespace {

// Adds `prefix_mean_ms` ... `prefix_std_ms` for durations in seconds.
void add_summary_ms(Json& out, const std::string& prefix, const std::vector<double>& seconds) {
  const Summary s = summarize(seconds);
  const double values[] = {s.mean, s.median, s.p90, s.p99, s.min, s.max, s.std};
  static_assert(std::size(values) == std::size(keys::kStatistics));
  for (std::size_t i = 0; i < std::size(values); ++i) {
    out[fmt::format("{}_{}_ms", prefix, keys::kStatistics[i])] = values[i] * 1e3;
  }
}

// Latency and InferenceTime: per run and per sample statistics of `duration(run)`.
template <class Duration>
Json time_statistics(const std::string& metric, const Timings& t, Duration duration) {
  if (t.runs.empty()) throw MetricError(fmt::format("{}: the timing pass made no runs", metric));
  std::vector<double> per_batch;
  std::vector<double> per_sample;
  int64_t below = 0;
  for (const auto& run : t.runs) {
    const double d = duration(run);
    if (d < t.clock_resolution_s) ++below;
    per_batch.push_back(d);
    per_sample.push_back(d / static_cast<double>(std::max<int64_t>(run.samples, 1)));
  }
  const auto n = static_cast<int64_t>(t.runs.size());
  if (below == n) {
    throw MetricError(fmt::format(
        "{}: all {} timed runs were shorter than the clock's resolution ({:g} ns), so there is "
        "nothing to report; time more samples per run (a larger timing batch size)",
        metric, n, t.clock_resolution_s * 1e9));
  }
  Json out = Json::object();
  out[keys::kBatchSize] = t.batch_size;
  out[keys::kRuns] = n;
  out[keys::kWarmupRuns] = t.warmup_runs;
  add_summary_ms(out, keys::kBatchPrefix, per_batch);
  add_summary_ms(out, keys::kSamplePrefix, per_sample);
  if (below > 0) out[keys::kBelowResolutionRuns] = below;
  return out;
}

}  // namespace

// Latency: model inference alone.
Json Latency::compute(const Timings& timings) const {
  return time_statistics(name(), timings, [](const TimedRun& r) { return r.forward_s; });
}

// InferenceTime: pre-processing, inference and post-processing.
Json InferenceTime::compute(const Timings& timings) const {
  return time_statistics(name(), timings,
                         [](const TimedRun& r) { return r.pre_s + r.forward_s + r.post_s; });
}

Json Throughput::compute(const Timings& timings) const {
  if (timings.runs.empty()) {
    throw MetricError(fmt::format("{}: the timing pass made no runs", name()));
  }
  int64_t samples = 0;
  for (const auto& run : timings.runs) samples += run.samples;
  if (timings.wall_s < timings.clock_resolution_s) {
    throw MetricError(
        fmt::format("{}: the timed runs took less than the clock's resolution "
                    "({:g} ns)",
                    name(), timings.clock_resolution_s * 1e9));
  }
  Json out = Json::object();
  out[keys::kSamplesPerSecond] = static_cast<double>(samples) / timings.wall_s;
  out[keys::kSamples] = samples;
  out[keys::kSeconds] = timings.wall_s;
  out[keys::kRuns] = static_cast<int64_t>(timings.runs.size());
  return out;
}

Json StartupTime::compute(const Timings& timings) const {
  if (timings.startup.empty()) {
    throw MetricError(fmt::format(
        "{}: {}", name(),
        timings.startup_error.empty() ? "the model was not loaded again" : timings.startup_error));
  }
  std::vector<double> load, first, total;
  for (const auto& run : timings.startup) {
    load.push_back(run.load_s);
    first.push_back(run.first_inference_s);
    total.push_back(run.load_s + run.first_inference_s);
  }
  const Summary t = summarize(total);
  Json out = Json::object();
  out[keys::kRuns] = static_cast<int64_t>(timings.startup.size());
  out[keys::kLoadMs] = summarize(load).median * 1e3;
  out[keys::kFirstInferenceMs] = summarize(first).median * 1e3;
  out[keys::kTotalMs] = t.median * 1e3;
  out[keys::kTotalMinMs] = t.min * 1e3;
  out[keys::kTotalMaxMs] = t.max * 1e3;
  return out;
}

void PeakMemory::reset() {
  since_process_start_ = !reset_peak_resident_memory();
  start_rss_ = resident_memory_bytes();
  footprint_ = -1;
  device_ = c10::kCPU;
  largest_merged_ = nullptr;
}

void PeakMemory::update(const WorkloadInput& input) {
  if (footprint_ < 0) footprint_ = Footprint().compute(input.model, {}).get<int64_t>();
  if (input.preds.defined()) device_ = input.preds.device();
}

// Sharded runs: each process has its own memory; the run reports the process with the largest
// peak (docs/distributed.md), and each rank's peak is in the run's metadata.
Json PeakMemory::export_state() const { return compute(); }

void PeakMemory::merge_state(const Json& state) {
  const int64_t peak = state_integer(state, keys::kPeakRssBytes, "PeakMemory");
  const int64_t largest = largest_merged_.is_null()
                              ? -1
                              : largest_merged_[keys::kPeakRssBytes].get<int64_t>();
  if (peak > largest) largest_merged_ = state;
}

Json PeakMemory::compute() const {
  Json own = own_value();
  if (largest_merged_.is_null()) return own;
  const int64_t merged_peak = largest_merged_[keys::kPeakRssBytes].get<int64_t>();
  return merged_peak > own[keys::kPeakRssBytes].get<int64_t>() ? largest_merged_ : own;
}

Json PeakMemory::own_value() const {
  const int64_t peak = peak_resident_memory_bytes();
  if (peak < 0 || start_rss_ < 0) {
    throw MetricError(fmt::format("{}: /proc/self/status has no VmRSS/VmHWM (Linux only)", name()));
  }
  Json out = Json::object();
  out[keys::kPeakRssBytes] = peak;
  out[keys::kStartRssBytes] = start_rss_;
  out[keys::kGrowthBytes] = std::max<int64_t>(0, peak - start_rss_);
  out[keys::kFootprintBytes] = std::max<int64_t>(0, footprint_);
  if (since_process_start_) out[keys::kPeakSinceProcessStart] = 1;
  // On a GPU, its caching allocator's peaks: the run resets them before the workload pass.
  if (const std::optional<DeviceMemory> m = device_memory(device_)) {
    out[keys::kDevicePeakAllocatedBytes] = m->peak_allocated;
    out[keys::kDevicePeakReservedBytes] = m->peak_reserved;
  }
  return out;
}

namespace {

// Latency and InferenceTime: counts, then `batch_`/`sample_` statistics in ms. A spread is not
// a speed: the standard deviation has no direction, so noise in it never fails a comparison.
MetricDescription& time_statistics_keys(MetricDescription& d) {
  d.with_key(keys::kBatchSize, "samples", Better::None, "samples per timed run")
      .with_key(keys::kRuns, "count", Better::None, "timed runs")
      .with_key(keys::kWarmupRuns, "count", Better::None, "untimed runs first");
  for (const char* per : {keys::kBatchPrefix, keys::kSamplePrefix}) {
    for (const char* statistic : keys::kStatistics) {
      const bool spread = std::string_view(statistic) == "std";
      d.with_key(fmt::format("{}_{}_ms", per, statistic), "ms",
                 spread ? Better::None : Better::Lower,
                 fmt::format("{} per {}", statistic, per));
    }
  }
  return d.with_key(keys::kBelowResolutionRuns, "count", Better::None,
                    "timed runs shorter than the clock's resolution");
}

}  // namespace

MetricDescription Latency::describe() {
  MetricDescription d("inference time per batch and per sample, ms (timing pass, no hooks)");
  d.with_unit("ms").lower_is_better();
  return time_statistics_keys(d);
}

MetricDescription InferenceTime::describe() {
  MetricDescription d("like Latency, with pre- and post-processing included, ms");
  d.with_unit("ms").lower_is_better();
  return time_statistics_keys(d);
}

MetricDescription Throughput::describe() {
  return MetricDescription("samples per second over the timing pass")
      .with_unit("samples/s")
      .higher_is_better()
      .with_key(keys::kSamplesPerSecond, "samples/s", Better::Higher, "samples per second")
      .with_key(keys::kSamples, "samples", Better::None, "samples timed")
      .with_key(keys::kSeconds, "s", Better::None, "wall time of the timed runs")
      .with_key(keys::kRuns, "count", Better::None, "timed runs");
}

MetricDescription StartupTime::describe() {
  return MetricDescription("time to load the model file and run its first inference, ms")
      .with_unit("ms")
      .lower_is_better()
      .with_key(keys::kRuns, "count", Better::None, "fresh loads")
      .with_key(keys::kLoadMs, "ms", Better::Lower, "median load time")
      .with_key(keys::kFirstInferenceMs, "ms", Better::Lower, "median first inference")
      .with_key(keys::kTotalMs, "ms", Better::Lower, "median load + first inference")
      .with_key(keys::kTotalMinMs, "ms", Better::Lower, "fastest load + first inference")
      .with_key(keys::kTotalMaxMs, "ms", Better::Lower, "slowest load + first inference");
}

MetricDescription PeakMemory::describe() {
  return MetricDescription("peak resident memory during the workload and its growth, bytes")
      .with_unit("bytes")
      .lower_is_better()
      .with_key(keys::kPeakRssBytes, "bytes", Better::Lower, "peak resident memory")
      .with_key(keys::kStartRssBytes, "bytes", Better::Lower, "resident memory at the start")
      .with_key(keys::kGrowthBytes, "bytes", Better::Lower, "peak minus start")
      .with_key(keys::kFootprintBytes, "bytes", Better::Lower, "the model's footprint")
      .with_key(keys::kPeakSinceProcessStart, "", Better::None,
                "1 when the peak could not be reset (since the process started)")
      .with_key(keys::kDevicePeakAllocatedBytes, "bytes", Better::Lower,
                "--device cuda: the most GPU memory held by tensors during the workload")
      .with_key(keys::kDevicePeakReservedBytes, "bytes", Better::Lower,
                "--device cuda: the most GPU memory the caching allocator reserved");
}

}  // namespace metrics
}  // namespace neurobench
