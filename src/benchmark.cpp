// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <set>

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
}

Benchmark::~Benchmark() = default;
Benchmark::Benchmark(Benchmark&&) noexcept = default;
Benchmark& Benchmark::operator=(Benchmark&&) noexcept = default;

Results Benchmark::run(const RunOptions& options) {
  Impl& s = *impl_;
  NeuroBenchModel& model = *s.model;
  Results results;
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

  std::vector<WorkloadMetric*> workload;
  std::map<WorkloadMetric*, std::string> names;
  for (const auto& m : s.metrics.workload_metrics) {
    workload.push_back(m.get());
    names[m.get()] = m->name();
    if (auto* acc = dynamic_cast<AccumulatedMetric*>(m.get())) acc->reset();
  }

  detail::LayerProbe probe(
      model, s.layers, workload,
      [&](WorkloadMetric& m, const std::string& message) { record_failure(names[&m], message); });
  results.warnings.insert(results.warnings.end(), probe.warnings().begin(),
                          probe.warnings().end());

  const int64_t dataset_size = s.loader.dataset().size();
  Json combined = Json::object();
  for (WorkloadMetric* m : workload) combined[names[m]] = nullptr;

  Progress progress(!options.quiet, s.loader.num_batches());
  for (std::size_t b = 0; b < s.loader.num_batches(); ++b) {
    Batch batch = s.loader.batch(b);
    const int64_t batch_size = batch.size();  // before pre-processing, as the reference
    try {
      for (auto& p : s.pre) batch = (*p)(batch);
    } catch (const c10::Error& e) {
      throw InputError(fmt::format("pre-processing batch {} failed: {}", b, what_of(e)));
    }
    for (WorkloadMetric* m : workload) m->begin_batch();
    model.begin_batch();
    torch::Tensor preds = model.forward(batch.data);
    try {
      for (auto& p : s.post) preds = (*p)(preds);
    } catch (const c10::Error& e) {
      throw InputError(fmt::format("post-processing batch {} failed: {}", b, what_of(e)));
    }
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
                       static_cast<double>(batch_size) / static_cast<double>(dataset_size), name);
          if (options.verbose)
            std::cerr << fmt::format("batch {}: {} = {}\n", b, name, value.dump());
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

  for (WorkloadMetric* m : workload) {
    const std::string& name = names[m];
    if (failed.count(name) != 0) {
      results.values[name] = nullptr;
      continue;
    }
    if (auto* acc = dynamic_cast<AccumulatedMetric*>(m)) {
      try {
        results.values[name] = acc->compute();
      } catch (const std::exception& e) {
        record_failure(name, e.what());
        results.values[name] = nullptr;
      }
    } else {
      results.values[name] = combined[name].is_null() ? Json(0.0) : combined[name];
    }
  }
  // Failures in the order the metrics were asked for.
  for (const auto& [name, value] : results.values.items()) {
    const auto it = failed.find(name);
    if (it != failed.end()) results.failures.push_back({name, it->second});
  }
  return results;
}

}  // namespace neurobench
