// SPDX-License-Identifier: Apache-2.0
// The timing pass: the model without hooks on full batches of one size, cycling through the
// data in order; warm-up runs first, then timed runs, then fresh loads of the model file when
// a metric asks for them (see TimingOptions); max_time bounds the runs and the loads.
#include <fmt/format.h>

#include <neurobench/device.hpp>
#include <neurobench/metrics/timing.hpp>

#include "device/cuda.hpp"
#include "metrics/platform_sampler.hpp"
#include "runtime/run_state.hpp"

namespace neurobench::detail {

namespace {

using Clock = std::chrono::steady_clock;

// The timing batch size: the option's, or the loader's, at most the data set's size; a data set
// with fixed batches (a sequential one) times its own.
int64_t timing_batch_size(const PassInput& in, const TimingOptions& o, Results& results) {
  if (const auto fixed = in.loader.dataset().fixed_batch_size()) return *fixed;
  const int64_t size = in.loader.dataset().size();
  const int64_t batch_size = o.batch_size > 0 ? o.batch_size : in.loader.options().batch_size;
  if (batch_size <= size) return batch_size;
  results.warnings.push_back(fmt::format(
      "timing: batch size {} is larger than the data set ({} samples); timed runs use {}",
      batch_size, size, size));
  return size;
}

// Warm-up runs, then the timed runs (a given number, or as many as fit in min_time_s).
void timed_runs(const PassInput& in, const DataLoader& batches, const TimingOptions& o, Timings& t,
                PlatformSampler* sampler) {
  // A sharded run's ranks each cycle through their own shard of the full batches (all of them
  // when there are fewer full batches than ranks).
  const auto full_batches = static_cast<std::size_t>(in.loader.dataset().size() / t.batch_size);
  BatchRange range = shard_of(full_batches, in.shard, in.shards);
  if (range.size() == 0) range = {0, full_batches};
  std::size_t next = 0;
  // On a device, each part is timed to the end of its work there: synchronize() waits for it
  // (CUDA queues kernels and returns). Moving the batch to the device counts as pre-processing.
  const c10::Device& device = in.device;
  auto run_once = [&]() {
    const std::size_t b = range.first + next++ % range.size();
    Batch batch = batches.batch(b);
    TimedRun run;
    run.samples = batch.size();
    const auto t0 = Clock::now();
    batch = pre_process(in.pre, to_device(std::move(batch), device, b), b);
    ready_model_for_batch(in.model, batch, b == range.first, b);
    synchronize(device);
    const auto t1 = Clock::now();
    torch::Tensor preds = infer(in.model, batch);
    synchronize(device);
    const auto t2 = Clock::now();
    preds = post_process(in.post, std::move(preds), b);
    synchronize(device);
    const auto t3 = Clock::now();
    run.pre_s = seconds_between(t0, t1);
    run.forward_s = seconds_between(t1, t2);
    run.post_s = seconds_between(t2, t3);
    return run;
  };
  // max_time_s bounds the warm-up and timed runs together; one timed run is always made.
  const auto pass_start = Clock::now();
  const auto out_of_time = [&] {
    return seconds_between(pass_start, Clock::now()) >= o.max_time_s;
  };
  for (t.warmup_runs = 0; t.warmup_runs < o.warmup; ++t.warmup_runs) {
    if (out_of_time()) {
      t.max_time_reached = true;
      break;
    }
    stop_if_requested([&] {
      return fmt::format("during the timing pass, after {} of {} warm-up runs", t.warmup_runs,
                         o.warmup);
    });
    (void)run_once();
  }
  // The platform sampler's thread reads its sources while the timed runs, and only they, run.
  if (sampler != nullptr) sampler->start();
  const auto start = Clock::now();
  for (;;) {
    const auto done = static_cast<int64_t>(t.runs.size());
    if (o.runs > 0 ? done >= o.runs
                   : done >= TimingOptions::kMaxRuns ||
                         (done >= TimingOptions::kMinAutoRuns &&
                          seconds_between(start, Clock::now()) >= o.min_time_s)) {
      break;
    }
    if (done > 0 && out_of_time()) {
      t.max_time_reached = true;
      break;
    }
    stop_if_requested([&] {
      return o.runs > 0
                 ? fmt::format("during the timing pass, after {} of {} timed runs", done, o.runs)
                 : fmt::format("during the timing pass, after {} timed runs", done);
    });
    t.runs.push_back(run_once());
  }
  t.wall_s = seconds_between(start, Clock::now());
  if (sampler != nullptr) {
    int64_t samples = 0;
    for (const auto& r : t.runs) samples += r.samples;
    const Json records = sampler->stop(samples, static_cast<int64_t>(t.runs.size()));
    for (const auto& [metric, record] : records.items()) {
      t.platform[metric] = Json::array({record});
    }
  }
}

// The run's device, when it is a CUDA GPU, for the sampler's NVML readings.
PlatformGpuTarget platform_gpu(const c10::Device& device) {
  PlatformGpuTarget gpu;
  if (!device.is_cuda()) return gpu;
  gpu.use = true;
  gpu.index = device.has_index() ? device.index() : 0;
  gpu.pci_bus_id = cuda_pci_bus_id(gpu.index);
  return gpu;
}

// Fresh loads of the model file, each with its first inference on the first timing batch.
void startup_runs(const PassInput& in, const DataLoader& batches, const TimingOptions& o,
                  Timings& t) {
  const NeuroBenchModel& model = in.model;
  try {
    const std::size_t first_batch =
        shard_of(static_cast<std::size_t>(in.loader.dataset().size() / t.batch_size), in.shard,
                 in.shards)
            .first;
    Batch first = pre_process(in.pre, to_device(batches.batch(first_batch), in.device, first_batch),
                              first_batch);
    // max_time_s bounds the loads as it bounds the timed runs; one load is always made.
    const auto start = Clock::now();
    for (int64_t k = 0; k < o.startup_runs; ++k) {
      if (k > 0 && seconds_between(start, Clock::now()) >= o.max_time_s) {
        t.startup_max_time_reached = true;
        break;
      }
      stop_if_requested([&] {
        return fmt::format("during the start-up runs of the timing pass, after {} of {}", k,
                           o.startup_runs);
      });
      const auto t0 = Clock::now();
      std::unique_ptr<NeuroBenchModel> fresh = model.load_again();
      if (fresh) {
        fresh->to(in.device);  // loaded there already when the model knows its device
        synchronize(in.device);
      }
      const auto t1 = Clock::now();
      if (!fresh) {
        t.startup_error = fmt::format(
            "{} was not loaded from a file, so it cannot be loaded again to time its start-up",
            model.describe());
        t.startup.clear();
        return;
      }
      ready_model_for_batch(*fresh, first, true, first_batch);
      (void)infer(*fresh, first);
      synchronize(in.device);
      t.startup.push_back({seconds_between(t0, t1), seconds_between(t1, Clock::now())});
    }
  } catch (const InputError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const c10::Error& e) {
    t.startup.clear();
    t.startup_error = fmt::format("loading {} again failed: {}", model.describe(), what_of(e));
  } catch (const std::exception& e) {
    t.startup.clear();
    t.startup_error = fmt::format("loading {} again failed: {}", model.describe(), e.what());
  }
}

// Says which part of the pass max_time_s cut short, and how many runs it made.
void warn_if_cut_short(const TimingOptions& o, bool startup, const Timings& t, Results& results) {
  if (t.max_time_reached) {
    const std::string asked = o.runs > 0 ? fmt::format("{}", o.runs)
                                         : fmt::format("at least {} (runs 0, min_time {:g} s)",
                                                       TimingOptions::kMinAutoRuns, o.min_time_s);
    results.warnings.push_back(fmt::format(
        "timing: max_time ({:g} s) reached after {} of {} warm-up runs and {} of {} timed runs; "
        "the timing metrics use the runs made (raise max_time to make them all)",
        o.max_time_s, t.warmup_runs, o.warmup, t.runs.size(), asked));
  }
  if (startup && t.startup_max_time_reached) {
    results.warnings.push_back(fmt::format(
        "timing: max_time ({:g} s) reached after {} of {} start-up runs (fresh loads of the "
        "model file); StartupTime uses the runs made (raise max_time to make them all)",
        o.max_time_s, t.startup.size(), o.startup_runs));
  }
}

}  // namespace

Timings measure_timings(const PassInput& in, const TimingOptions& o, bool startup, Results& results,
                        const std::vector<std::pair<std::string, PlatformSampling>>& platform) {
  Timings t;
  t.batch_size = timing_batch_size(in, o, results);
  t.clock_resolution_s = monotonic_clock_resolution();
  LoaderOptions timing_options;
  timing_options.batch_size = t.batch_size;
  const DataLoader batches(in.loader.shared_dataset(), timing_options);
  std::unique_ptr<PlatformSampler> sampler;
  if (!platform.empty()) {
    sampler = std::make_unique<PlatformSampler>(platform, platform_gpu(in.device));
  }
  timed_runs(in, batches, o, t, sampler.get());
  if (startup) startup_runs(in, batches, o, t);
  int64_t below = 0;
  for (const auto& r : t.runs) below += r.forward_s < t.clock_resolution_s ? 1 : 0;
  if (below > 0) {
    results.warnings.push_back(fmt::format(
        "timing: {} of {} timed runs were shorter than the clock's resolution ({:g} ns); "
        "their times are below what can be measured",
        below, t.runs.size(), t.clock_resolution_s * 1e9));
  }
  warn_if_cut_short(o, startup, t, results);
  return t;
}

bool needs_startup_runs(const std::vector<std::unique_ptr<TimingMetric>>& metrics) {
  bool startup = false;
  for (const auto& m : metrics) startup = startup || m->needs_startup_runs();
  return startup;
}

std::vector<std::pair<std::string, PlatformSampling>> platform_requests(
    const std::vector<std::unique_ptr<TimingMetric>>& metrics) {
  std::vector<std::pair<std::string, PlatformSampling>> out;
  for (const auto& m : metrics) {
    if (const PlatformSampling* p = m->platform_sampling()) out.emplace_back(m->name(), *p);
  }
  return out;
}

void timing_pass(const PassInput& in, const std::vector<std::unique_ptr<TimingMetric>>& metrics,
                 const TimingOptions& options, RunState& state) {
  if (metrics.empty()) return;
  const bool startup = needs_startup_runs(metrics);
  const Timings t =
      measure_timings(in, options, startup, state.results, platform_requests(metrics));
  record_timing(options, startup, t, state.results);
  for (const auto& m : metrics) {
    const std::string name = m->name();
    state.guard(name, [&] { state.results.values[name] = m->compute(t); });
  }
  record_platform(t, state);
}

void record_platform(const Timings& t, RunState& state) {
  if (t.platform.empty()) return;
  state.results.run["platform"] = t.platform;
  // A metric with a value that lacks a source says which and why; one with none was recorded
  // as unavailable with every reason.
  for (const auto& [metric, records] : t.platform.items()) {
    const Json& values = state.results.values;
    if (!values.contains(metric) || values[metric].is_null()) continue;
    for (const Json& r : records) {
      if (!r.contains("unavailable")) continue;
      for (const auto& [source, reason] : r.at("unavailable").items()) {
        state.warn_once(
            fmt::format("{}: {} unavailable: {}", metric, source, reason.get<std::string>()));
      }
    }
  }
}

void record_timing(const TimingOptions& options, bool startup, const Timings& t,
                   Results& results) {
  // The settings asked for, then the runs made and whether max_time cut the pass short.
  results.run["timing"] = {
      {"warmup", options.warmup},
      {"runs", options.runs},
      {"min_time_s", options.min_time_s},
      {"max_time_s", options.max_time_s},
      {"batch_size", t.batch_size},
      {"startup_runs", startup ? options.startup_runs : 0},
      {"clock_resolution_ns", t.clock_resolution_s * 1e9},
      {"warmup_runs_done", t.warmup_runs},
      {"runs_done", static_cast<int64_t>(t.runs.size())},
      {"startup_runs_done", static_cast<int64_t>(t.startup.size())},
      {"max_time_reached", t.max_time_reached || t.startup_max_time_reached}};
}

}  // namespace neurobench::detail
