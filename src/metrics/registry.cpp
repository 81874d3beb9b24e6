// SPDX-License-Identifier: Apache-2.0
#include <cctype>
#include <cxxabi.h>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <typeinfo>
#include <vector>

#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/registry.hpp>

namespace neurobench {

std::string registry_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (const char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return key;
}

namespace detail {

std::string short_type_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = (status == 0 && demangled) ? demangled.get() : mangled;
  const auto template_start = name.find('<');
  const auto scope = name.rfind("::", template_start);
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

namespace {
struct Pending {
  std::mutex mutex;
  std::vector<std::function<void()>> registrations;
  std::vector<std::string> errors;
};
Pending& pending() {
  static Pending p;
  return p;
}
}  // namespace

void record_registration_error(std::string message) noexcept {
  try {
    auto& p = pending();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.errors.push_back(std::move(message));
  } catch (...) {  // nothing more can be done during static initialisation
  }
}

void defer_registration(std::function<void()> add) noexcept {
  try {
    auto& p = pending();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.registrations.push_back(std::move(add));
  } catch (...) {
    record_registration_error("cannot defer a metric registration (out of memory)");
  }
}

namespace {
// Runs the user registrations made during static initialisation (once each).
void drain() {
  auto& p = pending();
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    todo.swap(p.registrations);
  }
  for (auto& add : todo) {
    try {
      add();
    } catch (const std::exception& e) {
      record_registration_error(e.what());
    }
  }
}
}  // namespace

void check_registration_errors() {
  drain();
  auto& p = pending();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (!p.errors.empty()) throw UsageError("metric registration failed: " + p.errors.front());
}

}  // namespace detail

std::string StaticMetric::name() const { return detail::short_type_name(typeid(*this).name()); }
std::string WorkloadMetric::name() const {
  return detail::short_type_name(typeid(*this).name());
}

namespace {
template <class T, class Base>
typename Registry<Base>::Entry entry(const char* name, const char* description) {
  return {name, description, [] { return std::unique_ptr<Base>(new T()); }};
}
}  // namespace

Registry<StaticMetric>& static_metrics() {
  static Registry<StaticMetric> registry = [] {
    using namespace metrics;  // NOLINT(google-build-using-namespace)
    Registry<StaticMetric> r("static metric");
    r.add(entry<Footprint, StaticMetric>(
        "Footprint", "bytes of all parameters and buffers (numel x element size)"));
    r.add(entry<ParameterCount, StaticMetric>("ParameterCount", "number of parameter elements"));
    r.add(entry<ConnectionSparsity, StaticMetric>(
        "ConnectionSparsity", "fraction of zero weights in connection layers, 4 decimals"));
    r.add(entry<ModelFileSize, StaticMetric>("ModelFileSize",
                                             "bytes of the model file on disk"));
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

Registry<WorkloadMetric>& workload_metrics() {
  static Registry<WorkloadMetric> registry = [] {
    using namespace metrics;  // NOLINT(google-build-using-namespace)
    Registry<WorkloadMetric> r("workload metric");
    r.add(entry<ClassificationAccuracy, WorkloadMetric>(
        "ClassificationAccuracy", "fraction of predictions equal to the targets"));
    r.add(entry<MSE, WorkloadMetric>("MSE", "mean squared error"));
    r.add(entry<SMAPE, WorkloadMetric>("SMAPE", "symmetric mean absolute percentage error, 0-200"));
    r.add(entry<R2, WorkloadMetric>("R2", "coefficient of determination, 2-column targets"));
    r.add(entry<ActivationSparsity, WorkloadMetric>(
        "ActivationSparsity", "fraction of zero outputs over all activation layers"));
    r.add(entry<ActivationSparsityByLayer, WorkloadMetric>(
        "ActivationSparsityByLayer", "fraction of zero outputs per activation layer"));
    r.add(entry<SynapticOperations, WorkloadMetric>(
        "SynapticOperations", "effective MACs, effective ACs and dense operations per sample"));
    r.add(entry<DenseMACs, WorkloadMetric>(
        "DenseMACs", "multiply-accumulates and FLOPs per sample of a dense implementation"));
    r.add(entry<MembraneUpdates, WorkloadMetric>(
        "MembraneUpdates", "membrane potential updates of spiking layers per sample"));
    r.add(entry<NeuronOperations, WorkloadMetric>(
        "NeuronOperations", "spiking neuron update operations per sample, effective and dense"));
    r.add(entry<Latency, WorkloadMetric>(
        "Latency", "inference time per batch and per sample, ms (timing pass, no hooks)"));
    r.add(entry<InferenceTime, WorkloadMetric>(
        "InferenceTime", "like Latency, with pre- and post-processing included, ms"));
    r.add(entry<Throughput, WorkloadMetric>(
        "Throughput", "samples per second over the timing pass"));
    r.add(entry<StartupTime, WorkloadMetric>(
        "StartupTime", "time to load the model file and run its first inference, ms"));
    r.add(entry<PeakMemory, WorkloadMetric>(
        "PeakMemory", "peak resident memory during the workload and its growth, bytes"));
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

}  // namespace neurobench
