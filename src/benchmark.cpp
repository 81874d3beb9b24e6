// SPDX-License-Identifier: Apache-2.0
#include <neurobench/benchmark.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "metrics/layer_probe.hpp"

namespace neurobench {

MetricSet MetricSet::from_names(const std::vector<std::string>& static_names,
                                const std::vector<std::string>& workload_names) {
  MetricSet set;
  std::set<std::string> seen;
  auto check_twice = [&](const std::string& name) {
    if (!seen.insert(registry_key(name)).second) {
      throw UsageError(fmt::format("metric '{}' is asked for twice", name));
    }
  };
  for (const auto& name : static_names) {
    if (!::neurobench::static_metrics().contains(name) &&
        ::neurobench::workload_metrics().contains(name)) {
      throw UsageError(fmt::format("'{}' is a workload metric, not a static one", name));
    }
    check_twice(name);
    set.static_metrics.push_back(::neurobench::static_metrics().create(name));
  }
  for (const auto& name : workload_names) {
    if (!::neurobench::workload_metrics().contains(name) &&
        ::neurobench::static_metrics().contains(name)) {
      throw UsageError(fmt::format("'{}' is a static metric, not a workload one", name));
    }
    check_twice(name);
    set.workload_metrics.push_back(::neurobench::workload_metrics().create(name));
  }
  return set;
}

MetricSet MetricSet::from_specs(const std::vector<MetricSpec>& static_specs,
                                const std::vector<MetricSpec>& workload_specs) {
  // Options reach the metrics once the registries take them; until then none are accepted.
  std::vector<std::string> static_names;
  std::vector<std::string> workload_names;
  for (const auto* specs : {&static_specs, &workload_specs}) {
    for (const auto& spec : *specs) {
      if (!spec.options.empty()) {
        throw UsageError(fmt::format("metric '{}' takes no options", spec.name));
      }
      (specs == &static_specs ? static_names : workload_names).push_back(spec.name);
    }
  }
  return from_names(static_names, workload_names);
}

namespace {

// Adds `value * weight` into `acc` (numbers, or objects of numbers key by key).
void add_weighted(Json& acc, const Json& value, double weight, const std::string& metric) {
  if (value.is_number()) {
    acc = (acc.is_number() ? acc.get<double>() : 0.0) + value.get<double>() * weight;
    return;
  }
  if (value.is_object()) {
    if (!acc.is_object()) acc = Json::object();
    for (const auto& [key, v] : value.items()) {
      if (!v.is_number()) {
        throw MetricError(fmt::format("{}: value '{}' is not a number", metric, key));
      }
      Json& slot = acc[key];
      slot = (slot.is_number() ? slot.get<double>() : 0.0) + v.get<double>() * weight;
    }
    return;
  }
  throw MetricError(
      fmt::format("{}: a plain workload metric must give a number or an object of "
                  "numbers, got {}",
                  metric, value.dump()));
}

class Progress {
 public:
  Progress(bool enabled, std::size_t total)
      : enabled_(enabled && isatty(fileno(stderr)) != 0),
        total_(total),
        start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done) {
    if (!enabled_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 0.5 && done < total_) return;  // runs shorter than a moment show nothing
    shown_ = true;
    const int width = 30;
    const auto filled = static_cast<int>(width * done / std::max<std::size_t>(total_, 1));
    std::fprintf(stderr, "\r[%-*s] %zu/%zu batches %.1fs", width,
                 std::string(static_cast<std::size_t>(filled), '#').c_str(), done, total_, elapsed);
    std::fflush(stderr);
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
};

std::string what_of(const c10::Error& e) { return e.what_without_backtrace(); }

}  // namespace

LayerSetup Benchmark::default_layers() {
  return {metrics::default_activation_types(), metrics::default_connection_types()};
}

struct Benchmark::Impl {
  std::shared_ptr<NeuroBenchModel> model;
  DataLoader loader;
  std::vector<std::unique_ptr<PreProcessor>> pre;
  std::vector<std::unique_ptr<PostProcessor>> post;
  MetricSet metrics;
  LayerSetup layers;
};

Benchmark::Benchmark(std::shared_ptr<NeuroBenchModel> model, DataLoader loader,
                     std::vector<std::unique_ptr<PreProcessor>> pre,
                     std::vector<std::unique_ptr<PostProcessor>> post, MetricSet metrics,
                     LayerSetup layers)
    : impl_(new Impl{std::move(model), std::move(loader), std::move(pre), std::move(post),
                     std::move(metrics), std::move(layers)}) {
  if (!impl_->model) throw UsageError("Benchmark: no model");
  for (const auto& p : impl_->pre) {
    if (!p) throw UsageError("Benchmark: a pre-processor is null");
  }
  for (const auto& p : impl_->post) {
    if (!p) throw UsageError("Benchmark: a post-processor is null");
  }
  for (const auto& m : impl_->metrics.static_metrics) {
    if (!m) throw UsageError("Benchmark: a static metric is null");
  }
  for (const auto& m : impl_->metrics.workload_metrics) {
    if (!m) throw UsageError("Benchmark: a workload metric is null");
  }
  // Results files keep `_run` and `_environment` beside the metrics: `_` names are reserved.
  auto check_name = [](const std::string& name) {
    if (name.empty() || name[0] == '_') {
      throw UsageError(fmt::format("Benchmark: metric name '{}' is empty or starts with '_' "
                                   "(reserved for results metadata)",
                                   name));
    }
  };
  for (const auto& m : impl_->metrics.static_metrics) check_name(m->name());
  for (const auto& m : impl_->metrics.workload_metrics) check_name(m->name());
}

Benchmark::~Benchmark() = default;
Benchmark::Benchmark(Benchmark&&) noexcept = default;
Benchmark& Benchmark::operator=(Benchmark&&) noexcept = default;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Pre-processes a batch; a processor's LibTorch error names the batch.
Batch pre_process(std::vector<std::unique_ptr<PreProcessor>>& pre, Batch batch, std::size_t b) {
  try {
    for (auto& p : pre) batch = (*p)(batch);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("pre-processing batch {} failed: {}", b, what_of(e)));
  }
  return batch;
}

torch::Tensor post_process(std::vector<std::unique_ptr<PostProcessor>>& post, torch::Tensor preds,
                           std::size_t b) {
  try {
    for (auto& p : post) preds = (*p)(preds);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("post-processing batch {} failed: {}", b, what_of(e)));
  }
  return preds;
}

// The timing pass: the model without hooks on full batches of one size, cycling through the
// data in order; warm-up runs first, then timed runs (see TimingOptions).
Timings timing_pass(NeuroBenchModel& model, const DataLoader& loader,
                    std::vector<std::unique_ptr<PreProcessor>>& pre,
                    std::vector<std::unique_ptr<PostProcessor>>& post, const TimingOptions& o,
                    bool startup, Results& results) {
  const int64_t size = loader.dataset().size();
  int64_t batch_size = o.batch_size > 0 ? o.batch_size : loader.options().batch_size;
  if (batch_size > size) {
    results.warnings.push_back(fmt::format(
        "timing: batch size {} is larger than the data set ({} samples); timed runs use {}",
        batch_size, size, size));
    batch_size = size;
  }
  LoaderOptions timing_options;
  timing_options.batch_size = batch_size;
  const DataLoader batches(loader.shared_dataset(), timing_options);
  const auto full_batches = static_cast<std::size_t>(size / batch_size);  // only full ones

  Timings t;
  t.batch_size = batch_size;
  t.warmup_runs = o.warmup;
  t.clock_resolution_s = monotonic_clock_resolution();
  std::size_t next = 0;
  auto run_once = [&]() {
    const std::size_t b = next++ % full_batches;
    Batch batch = batches.batch(b);
    TimedRun run;
    run.samples = batch.size();
    const auto t0 = Clock::now();
    batch = pre_process(pre, std::move(batch), b);
    model.begin_batch();
    const auto t1 = Clock::now();
    torch::Tensor preds = model.forward(batch.data);
    const auto t2 = Clock::now();
    preds = post_process(post, std::move(preds), b);
    const auto t3 = Clock::now();
    run.pre_s = seconds_between(t0, t1);
    run.forward_s = seconds_between(t1, t2);
    run.post_s = seconds_between(t2, t3);
    return run;
  };
  for (int64_t w = 0; w < o.warmup; ++w) (void)run_once();
  const auto start = Clock::now();
  for (;;) {
    const auto done = static_cast<int64_t>(t.runs.size());
    if (o.runs > 0 ? done >= o.runs
                   : done >= TimingOptions::kMaxRuns ||
                         (done >= TimingOptions::kMinAutoRuns &&
                          seconds_between(start, Clock::now()) >= o.min_time_s)) {
      break;
    }
    t.runs.push_back(run_once());
  }
  t.wall_s = seconds_between(start, Clock::now());

  if (startup) {
    Batch first = pre_process(pre, batches.batch(0), 0);
    try {
      for (int64_t k = 0; k < o.startup_runs; ++k) {
        const auto t0 = Clock::now();
        std::unique_ptr<NeuroBenchModel> fresh = model.load_again();
        const auto t1 = Clock::now();
        if (!fresh) {
          t.startup_error = fmt::format("{} was not loaded from a file, so it cannot be loaded "
                                        "again to time its start-up",
                                        model.describe());
          t.startup.clear();
          break;
        }
        fresh->begin_batch();
        (void)fresh->forward(first.data);
        const auto t2 = Clock::now();
        t.startup.push_back({seconds_between(t0, t1), seconds_between(t1, t2)});
      }
    } catch (const c10::Error& e) {
      t.startup.clear();
      t.startup_error = fmt::format("loading {} again failed: {}", model.describe(), what_of(e));
    } catch (const std::exception& e) {
      t.startup.clear();
      t.startup_error = fmt::format("loading {} again failed: {}", model.describe(), e.what());
    }
  }
  int64_t below = 0;
  for (const auto& r : t.runs) below += r.forward_s < t.clock_resolution_s ? 1 : 0;
  if (below > 0) {
    results.warnings.push_back(fmt::format(
        "timing: {} of {} timed runs were shorter than the clock's resolution ({:g} ns); "
        "their times are below what can be measured",
        below, t.runs.size(), t.clock_resolution_s * 1e9));
  }
  return t;
}

}  // namespace

Results Benchmark::run(const RunOptions& options) {
  options.timing.validate();
  Impl& s = *impl_;
  NeuroBenchModel& model = *s.model;
  Results results;
  results.environment = capture_environment();
  results.run["model"] = model.describe();
  results.run["batch_size"] = s.loader.options().batch_size;
  std::map<std::string, std::string> failed;  // metric name -> message
  auto record_failure = [&](const std::string& name, const std::string& message) {
    if (failed.count(name) != 0) return;
    const std::string text =
        message.rfind(name, 0) == 0 ? message : fmt::format("{}: {}", name, message);
    failed.emplace(name, text);
  };

  if (!s.metrics.static_metrics.empty() && model.is_inlined()) {
    results.warnings.push_back(fmt::format(
        "{} is frozen: its weights are folded into graph constants, so static metrics see no "
        "parameters or connection layers",
        model.describe()));
  }
  // spec: static metrics see the model as it is before the first batch.
  for (const auto& metric : s.metrics.static_metrics) {
    const std::string name = metric->name();
    try {
      results.values[name] = metric->compute(model, s.layers);
    } catch (const InputError&) {
      throw;
    } catch (const c10::Error& e) {
      record_failure(name, what_of(e));
      results.values[name] = nullptr;
    } catch (const std::exception& e) {
      record_failure(name, e.what());
      results.values[name] = nullptr;
    }
  }

  std::vector<WorkloadMetric*> workload;       // computed by the workload pass
  std::vector<TimingMetric*> timing;           // computed by the timing pass
  std::map<const WorkloadMetric*, std::string> names;
  for (const auto& m : s.metrics.workload_metrics) {
    names[m.get()] = m->name();
    results.values[m->name()] = nullptr;  // keeps the order asked for
    if (auto* t = dynamic_cast<TimingMetric*>(m.get())) {
      timing.push_back(t);
      continue;
    }
    workload.push_back(m.get());
    if (auto* acc = dynamic_cast<AccumulatedMetric*>(m.get())) acc->reset();
  }

  const int64_t dataset_size = s.loader.dataset().size();
  Json combined = Json::object();
  // The workload pass runs unless every workload metric asked for is a timing metric.
  if (!workload.empty() || timing.empty()) {
    detail::LayerProbe probe(model, s.layers, workload,
                             [&](WorkloadMetric& m, const std::string& message) {
                               record_failure(names[&m], message);
                             });
    results.warnings.insert(results.warnings.end(), probe.warnings().begin(),
                            probe.warnings().end());

    Progress progress(!options.quiet, s.loader.num_batches());
    for (std::size_t b = 0; b < s.loader.num_batches(); ++b) {
      Batch batch = s.loader.batch(b);
      const int64_t batch_size = batch.size();  // before pre-processing, as the reference
      batch = pre_process(s.pre, std::move(batch), b);
      for (WorkloadMetric* m : workload) m->begin_batch();
      model.begin_batch();
      const torch::Tensor preds = post_process(s.post, model.forward(batch.data), b);
      const WorkloadInput input{model, preds, batch};
      for (WorkloadMetric* m : workload) {
        const std::string& name = names[m];
        if (failed.count(name) != 0) continue;
        try {
          if (auto* acc = dynamic_cast<AccumulatedMetric*>(m)) {
            acc->update(input);
            if (options.verbose) {
              std::cerr << fmt::format("batch {}: {} = {}\n", b, name, acc->compute().dump());
            }
          } else {
            const Json value = (*m)(input);
            add_weighted(combined[name], value,
                         static_cast<double>(batch_size) / static_cast<double>(dataset_size),
                         name);
            if (options.verbose) {
              std::cerr << fmt::format("batch {}: {} = {}\n", b, name, value.dump());
            }
          }
        } catch (const InputError&) {
          throw;
        } catch (const c10::Error& e) {
          record_failure(name, what_of(e));
        } catch (const std::exception& e) {
          record_failure(name, e.what());
        }
      }
      results.samples += batch_size;
      ++results.batches;
      progress.update(b + 1);
    }
  }  // the probe's hooks are removed here, before the timing pass

  // Workload values now, before the timing pass (PeakMemory reads the workload's peak).
  for (WorkloadMetric* m : workload) {
    const std::string& name = names[m];
    if (failed.count(name) != 0) continue;
    if (auto* acc = dynamic_cast<AccumulatedMetric*>(m)) {
      try {
        results.values[name] = acc->compute();
      } catch (const c10::Error& e) {
        record_failure(name, what_of(e));
      } catch (const std::exception& e) {
        record_failure(name, e.what());
      }
    } else {
      results.values[name] = combined[name].is_null() ? Json(0.0) : combined[name];
    }
  }

  if (!timing.empty()) {
    bool startup = false;
    for (const TimingMetric* m : timing) startup = startup || m->needs_startup_runs();
    const Timings t = timing_pass(model, s.loader, s.pre, s.post, options.timing, startup, results);
    results.run["timing"] = {{"warmup", options.timing.warmup},
                             {"runs", options.timing.runs},
                             {"min_time_s", options.timing.min_time_s},
                             {"batch_size", t.batch_size},
                             {"startup_runs", startup ? options.timing.startup_runs : 0},
                             {"clock_resolution_ns", t.clock_resolution_s * 1e9}};
    for (const TimingMetric* m : timing) {
      const std::string& name = names[m];
      try {
        results.values[name] = m->compute(t);
      } catch (const c10::Error& e) {
        record_failure(name, what_of(e));
      } catch (const std::exception& e) {
        record_failure(name, e.what());
      }
    }
  }

  // What the model saw while it ran (a step-wise network that keeps no state), each once.
  for (const std::string& w : model.warnings()) {
    if (std::find(results.warnings.begin(), results.warnings.end(), w) == results.warnings.end()) {
      results.warnings.push_back(w);
    }
  }

  // Failures in the order the metrics were asked for; failed metrics are null.
  for (auto& [name, value] : results.values.items()) {
    const auto it = failed.find(name);
    if (it == failed.end()) continue;
    value = nullptr;
    results.failures.push_back({name, it->second});
  }
  return results;
}

}  // namespace neurobench
