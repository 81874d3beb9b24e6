// SPDX-License-Identifier: Apache-2.0
// The platform sampler's thread and each metric's probe: what is read at the start of the timed
// runs, every interval during them and at their end, summarised as count, sum, min and max so
// that a sharded run's ranks merge exactly.
#include "metrics/platform_sampler.hpp"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "metrics/platform_readers.hpp"

namespace neurobench::detail {

namespace {

double platform_clock_s(clockid_t id) {
  timespec ts{};
  if (clock_gettime(id, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The CPUs this process may run on (its affinity), which bounds the cores it can use.
int64_t platform_allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);  // NOLINT(runtime/int): sysconf's type
  return n > 0 ? n : 1;
}

std::string platform_hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

// One reading's instant: wall and CPU clocks, the sampler thread's own CPU time excluded.
struct PlatformInstant {
  double wall_s = 0;
  double process_cpu_s = 0;
  double sampler_cpu_s = 0;
};

}  // namespace

// What one metric asked for, its readers, and what they read so far.
struct PlatformSampler::Probe {
  std::string metric;
  PlatformSampling want;
  std::map<std::string, std::string> unavailable;  // source -> reason
  std::vector<std::string> skipped;
  std::unique_ptr<RaplReader> rapl;
  std::unique_ptr<CpuClockReader> cpu_clock;
  std::unique_ptr<TemperatureReader> temperatures;
  std::unique_ptr<NvmlGpu> gpu;
  bool system_cpu = false;

  int64_t readings = 0;
  PlatformInstant first, last;
  double rapl_start_j = 0;
  std::optional<SystemCpuTimes> system_first, system_last;
  SampleStats process_cores, system_percent, cpu_mhz, gpu_percent, gpu_mhz, gpu_celsius;
  std::vector<SampleStats> sensors;
  std::optional<double> gpu_energy_first_mj, gpu_energy_last_mj;
  std::optional<std::pair<double, double>> gpu_power_last;  // (wall s, mW)
  double gpu_power_mj = 0;
  int64_t gpu_power_readings = 0;
  bool gpu_energy_counter = true;

  void read(const PlatformInstant& now, const std::filesystem::path& sysroot);
  [[nodiscard]] Json record() const;
};

void PlatformSampler::Probe::read(const PlatformInstant& now,
                                  const std::filesystem::path& sysroot) {
  const bool first_reading = readings++ == 0;
  if (first_reading) first = now;
  if (want.utilisation) {
    if (!first_reading && now.wall_s > last.wall_s) {
      const double cpu =
          (now.process_cpu_s - last.process_cpu_s) - (now.sampler_cpu_s - last.sampler_cpu_s);
      process_cores.add(cpu / (now.wall_s - last.wall_s));
    }
    if (system_cpu) {
      std::string error;
      if (const auto t = read_system_cpu_times(sysroot, error)) {
        if (system_last && t->total > system_last->total) {
          system_percent.add(100.0 * static_cast<double>(t->busy - system_last->busy) /
                             static_cast<double>(t->total - system_last->total));
        }
        if (!system_first) system_first = t;
        system_last = t;
      }
    }
  }
  last = now;
  if (rapl) {
    rapl->sample();
    if (first_reading) rapl_start_j = rapl->joules();
  }
  if (cpu_clock) {
    for (const double mhz : cpu_clock->read_mhz()) cpu_mhz.add(mhz);
  }
  if (temperatures) {
    const std::vector<double> c = temperatures->read_celsius();
    for (std::size_t i = 0; i < c.size() && i < sensors.size(); ++i) {
      if (!std::isnan(c[i])) sensors[i].add(c[i]);
    }
  }
  if (gpu) {
    const GpuReading r = gpu->read(want.energy, want.utilisation, want.clock, want.temperature);
    if (want.energy) {
      if (r.energy_mj) {
        if (!gpu_energy_first_mj) gpu_energy_first_mj = r.energy_mj;
        gpu_energy_last_mj = r.energy_mj;
      } else {
        gpu_energy_counter = false;
      }
      if (r.power_mw) {
        // Power integrated over the readings (trapezoids), for GPUs without the counter.
        if (gpu_power_last) {
          gpu_power_mj +=
              0.5 * (gpu_power_last->second + *r.power_mw) * (now.wall_s - gpu_power_last->first);
        }
        gpu_power_last = std::make_pair(now.wall_s, *r.power_mw);
        ++gpu_power_readings;
      }
    }
    if (r.utilisation_percent) gpu_percent.add(*r.utilisation_percent);
    if (r.sm_clock_mhz) gpu_mhz.add(*r.sm_clock_mhz);
    if (r.temperature_c) gpu_celsius.add(*r.temperature_c);
  }
}

Json PlatformSampler::Probe::record() const {
  Json out = Json::object();
  out["readings"] = readings;
  if (want.energy && rapl) {
    out["rapl"] = {{"joules", rapl->joules() - rapl_start_j},
                   {"domains", rapl->domains()},
                   {"wraps", rapl->wraps()}};
  }
  if (want.utilisation) {
    out["process"] = {{"cpu_s", (last.process_cpu_s - first.process_cpu_s) -
                                    (last.sampler_cpu_s - first.sampler_cpu_s)},
                      {"cpus", platform_allowed_cpus()},
                      {"interval_cores", process_cores.to_json()}};
    if (system_first && system_last && system_last->total > system_first->total) {
      out["system"] = {
          {"percent", 100.0 * static_cast<double>(system_last->busy - system_first->busy) /
                          static_cast<double>(system_last->total - system_first->total)},
          {"interval_percent", system_percent.to_json()}};
    }
  }
  if (want.clock && cpu_clock && cpu_mhz.count > 0) {
    out["cpu_mhz"] = cpu_mhz.to_json();
    out["cpu_clock_source"] = cpu_clock->source();
  }
  if (want.temperature && temperatures) {
    Json s = Json::object();
    for (std::size_t i = 0; i < sensors.size(); ++i) {
      if (sensors[i].count > 0) s[temperatures->names()[i]] = sensors[i].to_json();
    }
    if (!s.empty()) out["sensors"] = std::move(s);
  }
  if (gpu && gpu->unavailable().empty()) {
    Json g = {{"found_by", gpu->found_by()}};
    if (want.energy) {
      if (gpu_energy_counter && gpu_energy_first_mj && gpu_energy_last_mj) {
        g["joules"] = (*gpu_energy_last_mj - *gpu_energy_first_mj) / 1e3;
        g["energy_method"] = "counter";
      } else if (gpu_power_readings >= 2) {
        g["joules"] = gpu_power_mj / 1e3;
        g["energy_method"] = "power";
      }
    }
    if (gpu_percent.count > 0) g["percent"] = gpu_percent.to_json();
    if (gpu_mhz.count > 0) g["sm_mhz"] = gpu_mhz.to_json();
    if (gpu_celsius.count > 0) g["celsius"] = gpu_celsius.to_json();
    out["gpu"] = std::move(g);
  }
  Json unavail = Json::object();
  for (const auto& [source, reason] : unavailable) unavail[source] = reason;
  if (gpu) {
    for (const auto& [field, reason] : gpu->refusals()) {
      // The energy counter's absence is no loss when power was integrated instead.
      if (field == "energy" && gpu_power_readings >= 2) continue;
      if (field == "power" && gpu_energy_counter && gpu_energy_last_mj) continue;
      unavail["gpu_" + field] = reason;
    }
  }
  if (want.energy && rapl && !rapl->error().empty()) unavail["rapl_read"] = rapl->error();
  out["unavailable"] = std::move(unavail);
  if (!skipped.empty()) out["skipped"] = skipped;
  return out;
}

// What the thread and the caller share: the stop flag, and the thread's own CPU time.
struct PlatformSampler::Shared {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  double sampler_cpu_s = 0;  // the thread's CPU time, written by the thread as it goes
  std::thread thread;
  int64_t ticks = 0;
  double wall_start_s = 0;
  double wall_end_s = 0;
};

PlatformSampler::PlatformSampler(
    const std::vector<std::pair<std::string, PlatformSampling>>& requests,
    const PlatformGpuTarget& gpu)
    : shared_(std::make_unique<Shared>()) {
  bool first_interval = true;
  for (const auto& [metric, want] : requests) {
    if (!(want.interval_ms >= PlatformSampling::kMinIntervalMs &&
          want.interval_ms <= PlatformSampling::kMaxIntervalMs)) {
      throw UsageError(fmt::format("{}: interval_ms {:g} is out of range; expected {:g} to {:g}",
                                   metric, want.interval_ms, PlatformSampling::kMinIntervalMs,
                                   PlatformSampling::kMaxIntervalMs));
    }
    interval_ms_ = first_interval ? want.interval_ms : std::min(interval_ms_, want.interval_ms);
    first_interval = false;
    auto p = std::make_unique<Probe>();
    p->metric = metric;
    p->want = want;
    const std::filesystem::path root = want.sysroot.empty() ? "/" : want.sysroot;
    if (want.energy) {
      p->rapl = std::make_unique<RaplReader>(root);
      if (!p->rapl->unavailable().empty()) {
        p->unavailable["rapl"] = p->rapl->unavailable();
        p->rapl.reset();
      }
    }
    if (want.utilisation) {
      std::string error;
      p->system_cpu = read_system_cpu_times(root, error).has_value();
      if (!p->system_cpu) p->unavailable["system_cpu"] = error;
    }
    if (want.clock) {
      p->cpu_clock = std::make_unique<CpuClockReader>(root);
      if (!p->cpu_clock->unavailable().empty()) {
        p->unavailable["cpu_clock"] = p->cpu_clock->unavailable();
        p->cpu_clock.reset();
      }
    }
    if (want.temperature) {
      p->temperatures = std::make_unique<TemperatureReader>(root);
      p->skipped = p->temperatures->skipped();
      if (!p->temperatures->unavailable().empty()) {
        p->unavailable["temperature"] = p->temperatures->unavailable();
        p->temperatures.reset();
      } else {
        p->sensors.resize(p->temperatures->names().size());
      }
    }
    if (gpu.use) {
      p->gpu = std::make_unique<NvmlGpu>(want.nvml_library, gpu.pci_bus_id, gpu.index);
      if (!p->gpu->unavailable().empty()) p->unavailable["gpu"] = p->gpu->unavailable();
    }
    probes_.push_back(std::move(p));
  }
}

PlatformSampler::~PlatformSampler() {
  if (shared_ && shared_->thread.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(shared_->mutex);
      shared_->stopping = true;
    }
    shared_->wake.notify_all();
    shared_->thread.join();
  }
}

void PlatformSampler::start() {
  Shared& s = *shared_;
  const PlatformInstant now{platform_clock_s(CLOCK_MONOTONIC),
                            platform_clock_s(CLOCK_PROCESS_CPUTIME_ID), 0.0};
  s.wall_start_s = now.wall_s;
  for (auto& p : probes_) p->read(now, p->want.sysroot.empty() ? "/" : p->want.sysroot);
  s.thread = std::thread([this] {
    Shared& sh = *shared_;
    const auto interval = std::chrono::duration<double, std::milli>(interval_ms_);
    auto next = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(sh.mutex);
    for (;;) {
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval);
      if (sh.wake.wait_until(lock, next, [&] { return sh.stopping; })) break;
      lock.unlock();
      const PlatformInstant now{platform_clock_s(CLOCK_MONOTONIC),
                                platform_clock_s(CLOCK_PROCESS_CPUTIME_ID),
                                platform_clock_s(CLOCK_THREAD_CPUTIME_ID)};
      for (auto& p : probes_) p->read(now, p->want.sysroot.empty() ? "/" : p->want.sysroot);
      lock.lock();
      ++sh.ticks;
      sh.sampler_cpu_s = platform_clock_s(CLOCK_THREAD_CPUTIME_ID);
    }
    sh.sampler_cpu_s = platform_clock_s(CLOCK_THREAD_CPUTIME_ID);
  });
}

Json PlatformSampler::stop(int64_t samples, int64_t batches) {
  Shared& s = *shared_;
  if (s.thread.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(s.mutex);
      s.stopping = true;
    }
    s.wake.notify_all();
    s.thread.join();
  }
  const PlatformInstant now{platform_clock_s(CLOCK_MONOTONIC),
                            platform_clock_s(CLOCK_PROCESS_CPUTIME_ID), s.sampler_cpu_s};
  s.wall_end_s = now.wall_s;
  Json out = Json::object();
  const std::string host = platform_hostname();
  for (auto& p : probes_) {
    p->read(now, p->want.sysroot.empty() ? "/" : p->want.sysroot);
    Json r = p->record();
    r["host"] = host;
    r["wall_s"] = s.wall_end_s - s.wall_start_s;
    r["samples"] = samples;
    r["batches"] = batches;
    r["interval_ms"] = interval_ms_;
    r["ticks"] = s.ticks;
    r["sampler_cpu_s"] = s.sampler_cpu_s;
    out[p->metric] = std::move(r);
  }
  return out;
}

}  // namespace neurobench::detail
