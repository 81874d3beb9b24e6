// SPDX-License-Identifier: Apache-2.0
// The metric registries, with the built-in metrics in the order `neurobench list` shows.
#include <memory>
#include <typeinfo>
#include <vector>

#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/platform.hpp>
#include <neurobench/registry.hpp>

namespace neurobench {

std::string StaticMetric::name() const { return detail::short_type_name(typeid(*this).name()); }
std::string WorkloadMetric::name() const {
  return detail::short_type_name(typeid(*this).name());
}

std::string TimingMetric::name() const { return detail::short_type_name(typeid(*this).name()); }

namespace {

// A built-in metric: its description comes from the class (T::describe()).
template <class T, class Base>
void add_builtin(Registry<Base, MetricDescription>& registry, const char* kind) {
  MetricDescription d = T::describe();
  d.name = detail::short_type_name(typeid(T).name());
  d.kind = kind;
  d.source = "built-in";
  registry.add(std::move(d), &detail::make_plugin<T, Base>);
}

}  // namespace

Registry<StaticMetric, MetricDescription>& static_metrics() {
  static Registry<StaticMetric, MetricDescription> registry = [] {
    using namespace metrics;  // NOLINT(google-build-using-namespace)
    Registry<StaticMetric, MetricDescription> r("static metric");
    add_builtin<Footprint>(r, "static");
    add_builtin<ParameterCount>(r, "static");
    add_builtin<ConnectionSparsity>(r, "static");
    add_builtin<ModelFileSize>(r, "static");
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

Registry<WorkloadMetric, MetricDescription>& workload_metrics() {
  static Registry<WorkloadMetric, MetricDescription> registry = [] {
    using namespace metrics;  // NOLINT(google-build-using-namespace)
    Registry<WorkloadMetric, MetricDescription> r("workload metric");
    add_builtin<ClassificationAccuracy>(r, "workload");
    add_builtin<MSE>(r, "workload");
    add_builtin<SMAPE>(r, "workload");
    add_builtin<R2>(r, "workload");
    add_builtin<ActivationSparsity>(r, "workload");
    add_builtin<ActivationSparsityByLayer>(r, "workload");
    add_builtin<SynapticOperations>(r, "workload");
    add_builtin<DenseMACs>(r, "workload");
    add_builtin<MembraneUpdates>(r, "workload");
    add_builtin<NeuronOperations>(r, "workload");
    add_builtin<PeakMemory>(r, "workload");
    add_builtin<CocoMap>(r, "workload");
    add_builtin<EnergyEstimate>(r, "workload");
    add_builtin<MemoryEstimate>(r, "workload");
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

Registry<TimingMetric, MetricDescription>& timing_metrics() {
  static Registry<TimingMetric, MetricDescription> registry = [] {
    using namespace metrics;  // NOLINT(google-build-using-namespace)
    Registry<TimingMetric, MetricDescription> r("timing metric");
    add_builtin<Latency>(r, "timing");
    add_builtin<InferenceTime>(r, "timing");
    add_builtin<Throughput>(r, "timing");
    add_builtin<StartupTime>(r, "timing");
    add_builtin<Energy>(r, "timing");
    add_builtin<Utilisation>(r, "timing");
    add_builtin<Clock>(r, "timing");
    add_builtin<Temperature>(r, "timing");
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

const MetricDescription* find_metric(std::string_view name) {
  if (const auto* e = static_metrics().find(name)) return e;
  if (const auto* e = workload_metrics().find(name)) return e;
  if (const auto* e = timing_metrics().find(name)) return e;
  return nullptr;
}

std::vector<const MetricDescription*> all_metrics() {
  std::vector<const MetricDescription*> all;
  for (const auto& e : static_metrics().entries()) all.push_back(&e);
  for (const auto& e : workload_metrics().entries()) all.push_back(&e);
  for (const auto& e : timing_metrics().entries()) all.push_back(&e);
  return all;
}

}  // namespace neurobench
