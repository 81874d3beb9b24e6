// SPDX-License-Identifier: Apache-2.0
#include <neurobench/benchmark.hpp>

#include <algorithm>
#include <exception>
#include <optional>
#include <set>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "runtime/finite_check.hpp"
#include "runtime/metrics_scope.hpp"
#include "runtime/profile_pass.hpp"
#include "runtime/run_state.hpp"
#include "runtime/tf32_scope.hpp"
#include "util/phase_clock.hpp"

namespace neurobench {

namespace {

// Makes a metric from its registry entry, recording the options it was made with.
template <class Base>
std::unique_ptr<Base> make_metric(const Registry<Base, MetricDescription>& registry,
                                  const MetricSpec& spec, MetricSet& set) {
  const auto* entry = registry.find(spec.name);
  const Json options = detail::complete_options(*entry, spec.options, registry.family());
  if (!options.empty()) set.options[entry->name] = options;
  set.order.push_back(entry->name);
  return entry->make(options);
}

[[noreturn]] void unknown_metric(const std::string& name, const char* family,
                                 const std::string& known) {
  throw UsageError(fmt::format("unknown {} metric '{}' (known: {}; see 'neurobench list')",
                               family, name, known));
}

}  // namespace

MetricSet MetricSet::from_specs(const std::vector<MetricSpec>& static_specs,
                                const std::vector<MetricSpec>& workload_specs) {
  MetricSet set;
  std::set<std::string> seen;
  auto check_twice = [&](const std::string& name) {
    if (!seen.insert(registry_key(name)).second) {
      throw UsageError(fmt::format("metric '{}' is asked for twice", name));
    }
  };
  const auto& statics = ::neurobench::static_metrics();
  const auto& workloads = ::neurobench::workload_metrics();
  const auto& timings = ::neurobench::timing_metrics();
  for (const auto& spec : static_specs) {
    if (!statics.contains(spec.name)) {
      if (const auto* other = find_metric(spec.name)) {
        throw UsageError(
            fmt::format("'{}' is a {} metric, not a static one", spec.name, other->kind));
      }
      unknown_metric(spec.name, "static", statics.known_names());
    }
    check_twice(spec.name);
    set.static_metrics.push_back(make_metric(statics, spec, set));
  }
  for (const auto& spec : workload_specs) {
    if (statics.contains(spec.name)) {
      throw UsageError(fmt::format("'{}' is a static metric, not a workload one", spec.name));
    }
    check_twice(spec.name);
    if (workloads.contains(spec.name)) {
      set.workload_metrics.push_back(make_metric(workloads, spec, set));
    } else if (timings.contains(spec.name)) {
      set.timing_metrics.push_back(make_metric(timings, spec, set));
    } else {
      unknown_metric(spec.name, "workload", workloads.known_names() + ", " + timings.known_names());
    }
  }
  return set;
}

bool MetricSet::reads_data(const RunOptions& options) const {
  return !options.static_only_reads_no_data || !workload_metrics.empty() ||
         !timing_metrics.empty() || static_metrics.empty() || options.profile.enabled;
}

MetricSet MetricSet::from_names(const std::vector<std::string>& static_names,
                                const std::vector<std::string>& workload_names) {
  std::vector<MetricSpec> static_specs;
  std::vector<MetricSpec> workload_specs;
  for (const auto& name : static_names) static_specs.push_back({name, Json::object()});
  for (const auto& name : workload_names) workload_specs.push_back({name, Json::object()});
  return from_specs(static_specs, workload_specs);
}

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

namespace {

// Results files keep `_run`, `_metrics` and `_environment` beside the metrics: `_` names are
// reserved.
template <class Metrics>
void check_metrics(const Metrics& metrics, const char* kind) {
  for (const auto& m : metrics) {
    if (!m) throw UsageError(fmt::format("Benchmark: a {} metric is null", kind));
    const std::string name = m->name();
    if (name.empty() || name[0] == '_') {
      throw UsageError(fmt::format("Benchmark: metric name '{}' is empty or starts with '_' "
                                   "(reserved for results metadata)",
                                   name));
    }
  }
}

}  // namespace

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
  check_metrics(impl_->metrics.static_metrics, "static");
  check_metrics(impl_->metrics.workload_metrics, "workload");
  check_metrics(impl_->metrics.timing_metrics, "timing");
}

Benchmark::~Benchmark() = default;
Benchmark::Benchmark(Benchmark&&) noexcept = default;
Benchmark& Benchmark::operator=(Benchmark&&) noexcept = default;

namespace {

// Every metric's name, in the order results list them: as asked for, else static, workload,
// timing.
std::vector<std::string> results_order(const MetricSet& set) {
  std::vector<std::string> order;
  for (const auto& m : set.static_metrics) order.push_back(m->name());
  std::vector<std::string> rest;
  for (const auto& m : set.workload_metrics) rest.push_back(m->name());
  for (const auto& m : set.timing_metrics) rest.push_back(m->name());
  // Names from the registries, in the order asked for, when they are the set's metrics.
  std::vector<std::string> asked;
  for (const auto& name : set.order) {
    if (std::find(rest.begin(), rest.end(), name) != rest.end()) asked.push_back(name);
  }
  for (const auto& name : rest) {
    if (std::find(asked.begin(), asked.end(), name) == asked.end()) asked.push_back(name);
  }
  order.insert(order.end(), asked.begin(), asked.end());
  return order;
}

// The `_metrics` block: what each metric's value means, from its registration.
Json describe_metrics(const MetricSet& set, const std::vector<std::string>& order) {
  Json out = Json::object();
  for (const auto& name : order) {
    const MetricDescription* d = find_metric(name);
    Json entry = d != nullptr ? d->to_json() : Json{{"better", "none"}};
    if (set.options.contains(name)) entry["options"] = set.options[name];
    out[name] = std::move(entry);
  }
  return out;
}

// NaN and Inf in the data or the weights run to the end without an error and spoil every metric:
// say so before the run, or refuse to run. A rank of a sharded run (`sharded`: it scans its
// shard alone) returns its refusal instead, to send at the workload exchange, so that every
// rank stops naming it.
std::exception_ptr check_inputs(const NeuroBenchModel& model, const Dataset* dataset, bool strict,
                                bool sharded, detail::RunState& state) {
  const std::vector<detail::NonFiniteValues> found = detail::find_non_finite_inputs(model, dataset);
  if (found.empty()) return nullptr;
  if (strict) {
    std::string message = found.front().message();
    if (found.size() > 1) {
      message += fmt::format(" (and {} more tensor{} with non-finite values)", found.size() - 1,
                             found.size() == 2 ? "" : "s");
    }
    const InputError refusal(message + "; strict: refusing to run");
    if (sharded) return std::make_exception_ptr(refusal);
    throw refusal;
  }
  Json records = Json::array();
  for (const auto& f : found) {
    state.warn_once(f.message());
    records.push_back(f.to_json());
  }
  state.results.run["non_finite_inputs"] = std::move(records);
  return nullptr;
}

// A sharded run's exchange of metric states (the wait for the slowest rank included) and their
// merge, as a phase of its own after the workload pass.
void exchange_phase(detail::PhaseClock& phases, const Json& run) {
  const auto d = run.find("distributed");
  if (d == run.end() || !d->is_object()) return;
  phases.split("workload_pass_s", "state_exchange_s",
               d->value("exchange_s", 0.0) + d->value("merge_s", 0.0));
}

// The model on the run's device; LibTorch's refusal (out of memory on the GPU) is bad input.
void move_model(NeuroBenchModel& model, const c10::Device& device) {
  try {
    model.to(device);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: moving the model to {} failed: {}", model.describe(),
                                 device_text(device), e.what_without_backtrace()));
  }
}

}  // namespace

Results Benchmark::run(const RunOptions& options) {
  options.timing.validate();
  if (options.profile.enabled) {
    options.profile.validate();
    if (options.group != nullptr && options.group->world_size() > 1) {
      throw UsageError(
          "profile (--profile): a per-layer profile cannot be made in a sharded run (each rank "
          "would time its own process); run it as one process to profile");
    }
  }
  check_device(options.device);  // before anything runs: a missing GPU is bad usage
  const c10::Device device = resolved_device(options.device);
  Impl& s = *impl_;
  // The metrics see the submodule of the scope; the model runs whole (checks, device, warnings).
  std::optional<detail::ScopedModel> scoped;
  if (!options.metrics_scope.empty()) scoped.emplace(*s.model, options.metrics_scope);
  NeuroBenchModel& measured = scoped ? static_cast<NeuroBenchModel&>(*scoped) : *s.model;
  // The lazy device executes its graphs where a tensor is read: outside inference mode, LibTorch
  // 1.13's oneDNN convolution refuses to run there. The whole run is in inference mode on it.
  std::optional<c10::InferenceMode> lazy_inference;
  if (device.type() == c10::DeviceType::Lazy) lazy_inference.emplace();
  detail::RunState state;
  Results& results = state.results;
  results.environment = capture_environment(device);
  if (device.is_cuda()) {
    results.environment.tf32 = options.tf32;
  } else if (options.tf32) {
    // Asked for where it cannot apply: said and recorded, so that the results do not claim it.
    results.environment.tf32 = false;
    state.warn_once(fmt::format(
        "tf32 was asked for, but TF32 is a CUDA setting: on device '{}' the run computes in "
        "full float32 (_environment.tf32 is false)",
        device.str()));
  }
  results.run["model"] = s.model->describe();
  if (scoped) results.run["metrics_scope"] = scoped->path();
  results.run["batch_size"] = s.loader.options().batch_size;
  if (const auto& seed = s.loader.options().shuffle_seed) results.run["shuffle_seed"] = *seed;
  if (const auto sha = s.model->source_sha256()) results.run["model_sha256"] = *sha;
  // A run of static metrics alone may leave the data unread (RunOptions): no value depends on it.
  const bool data_read = s.metrics.reads_data(options);
  if (!data_read) {
    results.run["data_read"] = false;
  } else if (const auto sha = s.loader.dataset().source_sha256()) {
    results.run["data_sha256"] = *sha;
  }
  if (results.environment.cores > 0 && results.environment.threads > results.environment.cores) {
    state.warn_once(fmt::format(
        "LibTorch runs {} intra-op threads on {} logical CPUs: the threads compete for the "
        "CPUs, which slows the run and makes timings unrepresentative",
        results.environment.threads, results.environment.cores));
  }
  // Where the run's time goes, phase by phase (`_run.phases`); PreparedRun adds the model's load
  // and the data's opening before these.
  detail::PhaseClock phases;
  ProcessGroup* group =
      options.group != nullptr && options.group->world_size() > 1 ? options.group.get() : nullptr;
  const bool workload_pass =
      data_read && (!s.metrics.workload_metrics.empty() || s.metrics.timing_metrics.empty());
  const std::exception_ptr refused =
      check_inputs(*s.model, data_read ? &s.loader.dataset() : nullptr, options.strict,
                   group != nullptr && workload_pass, state);
  phases.lap("input_scan_s");
  const std::vector<std::string> order = results_order(s.metrics);
  for (const auto& name : order) results.values[name] = nullptr;  // keeps the order asked for
  results.metrics = describe_metrics(s.metrics, order);

  detail::PassInput in{measured, s.loader, s.pre, s.post, s.layers};
  in.device = device;
  if (group != nullptr) {
    in.shard = group->rank();
    in.shards = group->world_size();
  }
  // A stop request (request_stop(), a signal) is honoured between passes and between batches.
  detail::stop_if_requested([] { return std::string("before the run started"); });
  phases.restart();
  // spec: the model as loaded
  if (!refused) detail::static_pass(in, s.metrics.static_metrics, state);
  phases.lap("static_metrics_s");
  // Then the model goes to the device, as NeuroBench moves it after its static metrics.
  move_model(*s.model, device);
  if (!device.is_cpu()) phases.lap("model_to_device_s");
  const detail::Tf32Scope tf32(device, options.tf32);
  // The workload pass runs unless every workload metric asked for is a timing metric, or the
  // run leaves its data unread.
  if (workload_pass) {
    detail::stop_if_requested([] { return std::string("after the static metrics"); });
    if (group != nullptr) {
      detail::sharded_workload_pass(in, s.metrics.workload_metrics, options, state, *group,
                                    refused);
    } else {
      detail::workload_pass(in, s.metrics.workload_metrics, options, state);
    }
    phases.lap("workload_pass_s");
    if (group != nullptr) exchange_phase(phases, results.run);
  }
  if (!s.metrics.timing_metrics.empty()) {
    detail::stop_if_requested([] { return std::string("before the timing pass"); });
  }
  if (group != nullptr && !s.metrics.timing_metrics.empty()) {
    detail::sharded_timing_pass(in, s.metrics.timing_metrics, options.timing, state, *group);
  } else {
    detail::timing_pass(in, s.metrics.timing_metrics, options.timing, state);
  }
  if (!s.metrics.timing_metrics.empty()) phases.lap("timing_pass_s");
  // The profile's own passes, after the timing pass: Latency's runs are made as without it.
  if (options.profile.enabled) {
    detail::stop_if_requested([] { return std::string("before the profile"); });
    results.profile = detail::profile_pass(in, options, state);
    phases.lap("profile_s");
  }
  results.run["phases"] = phases.take();
  // What the model saw while it ran (a step-wise network that keeps no state), each once.
  for (const std::string& w : s.model->warnings()) state.warn_once(w);
  state.finish();
  return std::move(state.results);
}

}  // namespace neurobench
