// SPDX-License-Identifier: Apache-2.0
// The platform metrics (Energy, Utilisation, Clock, Temperature): their values from the
// platform sampler's records, one per process, merged across a sharded run's ranks.
#include <neurobench/metrics/platform.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "metrics/platform_readers.hpp"

namespace neurobench::metrics {

namespace pk = keys::platform;
using detail::SampleStats;

PlatformMetric::PlatformMetric(const Json& options, PlatformSampling sampling)
    : sampling_(std::move(sampling)) {
  if (options.is_object()) {
    if (options.contains("sysroot")) sampling_.sysroot = options.at("sysroot").get<std::string>();
    if (options.contains("interval_ms")) {
      sampling_.interval_ms = options.at("interval_ms").get<double>();
    }
    if (options.contains("nvml_library")) {
      sampling_.nvml_library = options.at("nvml_library").get<std::string>();
    }
  }
  if (!(sampling_.interval_ms >= PlatformSampling::kMinIntervalMs &&
        sampling_.interval_ms <= PlatformSampling::kMaxIntervalMs)) {
    throw UsageError(fmt::format("interval_ms: {:g} is out of range; expected {:g} to {:g} ms",
                                 sampling_.interval_ms, PlatformSampling::kMinIntervalMs,
                                 PlatformSampling::kMaxIntervalMs));
  }
  if (sampling_.sysroot.empty()) throw UsageError("sysroot: empty; expected a folder (\"/\")");
  if (sampling_.nvml_library.empty()) {
    throw UsageError("nvml_library: empty; expected a library (\"libnvidia-ml.so.1\")");
  }
}

const Json& PlatformMetric::records(const Timings& timings) const {
  const std::string n = name();
  if (!timings.platform.contains(n) || !timings.platform.at(n).is_array() ||
      timings.platform.at(n).empty()) {
    throw MetricError(fmt::format(
        "{}: the timing pass has no platform samples for it (it ran without the sampler)", n));
  }
  return timings.platform.at(n);
}

void PlatformMetric::unavailable(const Json& records) const {
  std::vector<std::string> reasons;
  for (const Json& r : records) {
    if (!r.contains("unavailable")) continue;
    for (const auto& [source, reason] : r.at("unavailable").items()) {
      const std::string text = fmt::format("{}: {}", source, reason.get<std::string>());
      if (std::find(reasons.begin(), reasons.end(), text) == reasons.end()) {
        reasons.push_back(text);
      }
    }
  }
  std::string joined;
  for (const auto& r : reasons) joined += (joined.empty() ? "" : "; ") + r;
  throw MetricUnavailable(fmt::format("{}: unavailable here: {}", name(),
                                      joined.empty() ? "no source could be read" : joined));
}

MetricDescription& PlatformMetric::with_platform_options(MetricDescription& d) {
  return d
      .with_option("sysroot", "string", "/",
                   "prefix of /sys and /proc where the sources are read (tests: a fake tree)")
      .with_option("interval_ms", "number", 100.0,
                   "time between the sampler's readings, ms (the run uses the shortest asked)")
      .with_option("nvml_library", "string", "libnvidia-ml.so.1",
                   "NVIDIA's management library, loaded with dlopen on a CUDA device");
}

namespace {

// A number of a record's object, or nullopt.
std::optional<double> platform_number(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  return j.at(key).get<double>();
}

SampleStats platform_stats(const Json& j, const char* key, const std::string& metric) {
  if (!j.is_object() || !j.contains(key)) return {};
  return SampleStats::from_json(j.at(key), fmt::format("{}: {}", metric, key));
}

// Samples and timed runs of every process, and the longest of their sampled windows.
struct PlatformTotals {
  int64_t samples = 0;
  int64_t batches = 0;
  double seconds = 0;
  int64_t readings = 0;
};

PlatformTotals platform_totals(const Json& records) {
  PlatformTotals t;
  for (const Json& r : records) {
    t.samples += r.value("samples", int64_t{0});
    t.batches += r.value("batches", int64_t{0});
    t.seconds = std::max(t.seconds, r.value("wall_s", 0.0));
    t.readings += r.value("readings", int64_t{0});
  }
  return t;
}

}  // namespace

Energy::Energy() : Energy(Json::object()) {}

Energy::Energy(const Json& options)
    : PlatformMetric(options, [] {
        PlatformSampling s;
        s.energy = true;
        return s;
      }()) {}

// RAPL counts a whole package and NVML a whole GPU, whoever uses them: ranks on one host (one
// GPU) measure the same energy over nearly the same window, so each host's (GPU's) largest
// figure is taken once, and the hosts' (GPUs') are added.
Json Energy::compute(const Timings& timings) const {
  const Json& recs = records(timings);
  std::map<std::string, double> cpu_by_host;
  std::map<std::string, double> gpu_by_device;
  for (const Json& r : recs) {
    const std::string host = r.value("host", std::string());
    if (const auto j =
            r.contains("rapl") ? platform_number(r.at("rapl"), "joules") : std::nullopt) {
      cpu_by_host[host] = std::max(cpu_by_host[host], *j);
    }
    if (const auto j = r.contains("gpu") ? platform_number(r.at("gpu"), "joules") : std::nullopt) {
      const std::string id = host + "/" + r.at("gpu").value("found_by", std::string());
      gpu_by_device[id] = std::max(gpu_by_device[id], *j);
    }
  }
  if (cpu_by_host.empty() && gpu_by_device.empty()) unavailable(recs);
  const PlatformTotals t = platform_totals(recs);
  if (t.samples <= 0 || t.batches <= 0) {
    throw MetricError(fmt::format("{}: the timing pass timed no samples", name()));
  }
  double cpu = 0;
  for (const auto& [host, j] : cpu_by_host) cpu += j;
  double gpu = 0;
  for (const auto& [id, j] : gpu_by_device) gpu += j;
  const double joules = cpu + gpu;
  Json out = Json::object();
  out[pk::kJoulesPerSample] = joules / static_cast<double>(t.samples);
  out[pk::kMilliwattHoursPerSample] =
      joules / static_cast<double>(t.samples) / 3.6;  // 1 mWh = 3.6 J
  out[pk::kJoulesPerBatch] = joules / static_cast<double>(t.batches);
  out[pk::kJoules] = joules;
  if (t.seconds > 0) out[pk::kWatts] = joules / t.seconds;
  if (!cpu_by_host.empty()) out[pk::kCpuJoules] = cpu;
  if (!gpu_by_device.empty()) out[pk::kGpuJoules] = gpu;
  out[pk::kSamples] = t.samples;
  out[pk::kSeconds] = t.seconds;
  return out;
}

MetricDescription Energy::describe() {
  MetricDescription d(
      "energy per inference over the timed runs, measured: RAPL packages and NVML's GPU, J and "
      "mWh");
  d.with_unit("J")
      .lower_is_better()
      .with_key(pk::kJoulesPerSample, "J", Better::Lower, "energy per sample")
      .with_key(pk::kMilliwattHoursPerSample, "mWh", Better::Lower, "energy per sample")
      .with_key(pk::kJoulesPerBatch, "J", Better::Lower, "energy per timed run")
      .with_key(pk::kJoules, "J", Better::None, "energy of the timed runs")
      .with_key(pk::kWatts, "W", Better::Lower, "mean power over the timed runs")
      .with_key(pk::kCpuJoules, "J", Better::None, "of which the CPU packages (RAPL)")
      .with_key(pk::kGpuJoules, "J", Better::None, "of which the GPU (NVML)")
      .with_key(pk::kSamples, "samples", Better::None, "samples timed")
      .with_key(pk::kSeconds, "s", Better::None, "time sampled");
  return with_platform_options(d);
}

Utilisation::Utilisation() : Utilisation(Json::object()) {}

Utilisation::Utilisation(const Json& options)
    : PlatformMetric(options, [] {
        PlatformSampling s;
        s.utilisation = true;
        return s;
      }()) {}

// A sharded run's ranks are processes of their own: their cores add up, over the CPUs of the
// hosts they ran on. Their sampling intervals do not line up, so the busiest interval of all
// ranks together is bounded by adding each rank's busiest (exact for one process).
Json Utilisation::compute(const Timings& timings) const {
  const Json& recs = records(timings);
  double cores = 0;
  double interval_max_cores = 0;  // each process's busiest interval, added
  std::map<std::string, int64_t> cpus_by_host;
  SampleStats system;
  double system_sum = 0;
  int64_t system_records = 0;
  SampleStats gpu;
  bool any_process = false;
  for (const Json& r : recs) {
    const std::string host = r.value("host", std::string());
    if (r.contains("process")) {
      const Json& p = r.at("process");
      const double wall = r.value("wall_s", 0.0);
      if (wall > 0) cores += p.value("cpu_s", 0.0) / wall;
      cpus_by_host[host] = std::max(cpus_by_host[host], p.value("cpus", int64_t{1}));
      const SampleStats s = platform_stats(p, "interval_cores", name());
      if (s.count > 0) interval_max_cores += s.max;
      any_process = true;
    }
    if (r.contains("system")) {
      system_sum += r.at("system").value("percent", 0.0);
      ++system_records;
      system.merge(platform_stats(r.at("system"), "interval_percent", name()));
    }
    if (r.contains("gpu")) gpu.merge(platform_stats(r.at("gpu"), "percent", name()));
  }
  if (!any_process) unavailable(recs);
  int64_t cpus = 0;
  for (const auto& [host, n] : cpus_by_host) cpus += n;
  cpus = std::max<int64_t>(cpus, 1);
  Json out = Json::object();
  out[pk::kCoresUsed] = cores;
  out[pk::kCpus] = cpus;
  out[pk::kCpuPercent] = 100.0 * cores / static_cast<double>(cpus);
  out[pk::kCpuPercentMax] = 100.0 * interval_max_cores / static_cast<double>(cpus);
  if (system_records > 0) {
    out[pk::kSystemPercent] = system_sum / static_cast<double>(system_records);
    if (system.count > 0) out[pk::kSystemPercentMax] = system.max;
  }
  if (gpu.count > 0) {
    out[pk::kGpuPercentMean] = gpu.mean();
    out[pk::kGpuPercentMax] = gpu.max;
  }
  out[pk::kReadings] = platform_totals(recs).readings;
  return out;
}

MetricDescription Utilisation::describe() {
  MetricDescription d(
      "CPU (and GPU) utilisation over the timed runs: the process's cores used, the machine's");
  d.with_unit("%")
      .with_key(pk::kCoresUsed, "cores", Better::None, "process CPU time / wall time")
      .with_key(pk::kCpus, "count", Better::None, "CPUs the process may run on")
      .with_key(pk::kCpuPercent, "%", Better::None, "cores used / CPUs, over the timed runs")
      .with_key(pk::kCpuPercentMax, "%", Better::None, "the busiest sampling interval")
      .with_key(pk::kSystemPercent, "%", Better::None, "the machine's CPUs busy (/proc/stat)")
      .with_key(pk::kSystemPercentMax, "%", Better::None, "the machine's busiest interval")
      .with_key(pk::kGpuPercentMean, "%", Better::None, "GPU utilisation (NVML), mean")
      .with_key(pk::kGpuPercentMax, "%", Better::None, "GPU utilisation (NVML), max")
      .with_key(pk::kReadings, "count", Better::None, "readings of the sampler");
  return with_platform_options(d);
}

Clock::Clock() : Clock(Json::object()) {}

Clock::Clock(const Json& options)
    : PlatformMetric(options, [] {
        PlatformSampling s;
        s.clock = true;
        return s;
      }()) {}

Json Clock::compute(const Timings& timings) const {
  const Json& recs = records(timings);
  SampleStats cpu;
  SampleStats gpu;
  for (const Json& r : recs) {
    cpu.merge(platform_stats(r, "cpu_mhz", name()));
    if (r.contains("gpu")) gpu.merge(platform_stats(r.at("gpu"), "sm_mhz", name()));
  }
  if (cpu.count == 0 && gpu.count == 0) unavailable(recs);
  Json out = Json::object();
  if (cpu.count > 0) {
    out[pk::kCpuMhzMean] = cpu.mean();
    out[pk::kCpuMhzMax] = cpu.max;
    out[pk::kCpuMhzMin] = cpu.min;
  }
  if (gpu.count > 0) {
    out[pk::kGpuSmMhzMean] = gpu.mean();
    out[pk::kGpuSmMhzMax] = gpu.max;
  }
  out[pk::kReadings] = platform_totals(recs).readings;
  return out;
}

MetricDescription Clock::describe() {
  MetricDescription d(
      "CPU clock (cpufreq or /proc/cpuinfo) and GPU SM clock over the timed "
      "runs, MHz");
  d.with_unit("MHz")
      .with_key(pk::kCpuMhzMean, "MHz", Better::None, "mean over CPUs and readings")
      .with_key(pk::kCpuMhzMax, "MHz", Better::None, "fastest CPU reading")
      .with_key(pk::kCpuMhzMin, "MHz", Better::None, "slowest CPU reading")
      .with_key(pk::kGpuSmMhzMean, "MHz", Better::None, "GPU SM clock (NVML), mean")
      .with_key(pk::kGpuSmMhzMax, "MHz", Better::None, "GPU SM clock (NVML), max")
      .with_key(pk::kReadings, "count", Better::None, "readings of the sampler");
  return with_platform_options(d);
}

Temperature::Temperature() : Temperature(Json::object()) {}

Temperature::Temperature(const Json& options)
    : PlatformMetric(options, [] {
        PlatformSampling s;
        s.temperature = true;
        return s;
      }()) {}

// Sensors of the same name (a sharded run's ranks on one host read the same ones) are pooled.
Json Temperature::compute(const Timings& timings) const {
  const Json& recs = records(timings);
  std::vector<std::pair<std::string, SampleStats>> sensors;
  SampleStats gpu;
  for (const Json& r : recs) {
    if (r.contains("sensors")) {
      // Not a structured binding: clang 14 (the asan preset) refuses one captured by a lambda.
      for (const auto& item : r.at("sensors").items()) {
        const std::string& sensor = item.key();
        const SampleStats s = SampleStats::from_json(item.value(), name() + ": " + sensor);
        auto it = std::find_if(sensors.begin(), sensors.end(),
                               [&](const auto& e) { return e.first == sensor; });
        if (it == sensors.end()) {
          sensors.emplace_back(sensor, s);
        } else {
          it->second.merge(s);
        }
      }
    }
    if (r.contains("gpu")) gpu.merge(platform_stats(r.at("gpu"), "celsius", name()));
  }
  if (sensors.empty() && gpu.count == 0) unavailable(recs);
  Json out = Json::object();
  SampleStats all;
  for (const auto& [sensor, s] : sensors) all.merge(s);
  if (all.count > 0) {
    out[pk::kMeanC] = all.mean();
    out[pk::kMaxC] = all.max;
  }
  if (gpu.count > 0) {
    out[pk::kGpuMeanC] = gpu.mean();
    out[pk::kGpuMaxC] = gpu.max;
  }
  if (!sensors.empty()) {
    Json by_sensor = Json::object();
    for (const auto& [sensor, s] : sensors) {
      by_sensor[sensor] = {{pk::kMeanC, s.mean()}, {pk::kMaxC, s.max}};
    }
    out[pk::kSensors] = std::move(by_sensor);
  }
  out[pk::kReadings] = platform_totals(recs).readings;
  return out;
}

MetricDescription Temperature::describe() {
  MetricDescription d(
      "temperatures of the thermal zones, hwmon sensors and GPU over the timed "
      "runs, degrees Celsius");
  d.with_unit("C")
      .lower_is_better()
      .with_key(pk::kMeanC, "C", Better::None, "mean of every sensor's readings")
      .with_key(pk::kMaxC, "C", Better::None, "hottest reading of any sensor")
      .with_key(pk::kGpuMeanC, "C", Better::None, "GPU temperature (NVML), mean")
      .with_key(pk::kGpuMaxC, "C", Better::None, "GPU temperature (NVML), max")
      .with_key(pk::kSensors, "C", Better::None, "each sensor's mean_c and max_c")
      .with_key(pk::kReadings, "count", Better::None, "readings of the sampler");
  return with_platform_options(d);
}

}  // namespace neurobench::metrics
