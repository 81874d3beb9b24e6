// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/json.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/registry.hpp>

namespace neurobench {

/// What a workload metric sees of one batch.
struct WorkloadInput {
  NeuroBenchModel& model;      ///< The model that made the predictions.
  const torch::Tensor& preds;  ///< Predictions after post-processing.
  const Batch& batch;          ///< The batch after pre-processing.
};

/// Which layer events a metric wants (bit flags).
enum class LayerEvents : unsigned {
  kNone = 0,
  kActivations = 1,  ///< Every call of an activation layer (its output; `mem` of neurons).
  kConnections = 2,  ///< Every call of a connection layer's operator (inputs and weights).
  kOperators = 4,    ///< Every call, anywhere in the model, of the operators named by
                     ///< `WorkloadMetric::observed_operators()` (before it runs).
};
/// Combines two sets of layer events.
constexpr LayerEvents operator|(LayerEvents a, LayerEvents b) {
  return static_cast<LayerEvents>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
/// True when `set` contains `e`.
constexpr bool has(LayerEvents set, LayerEvents e) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(e)) != 0;
}

/// One call of an activation layer, as hook-based metrics see it.
struct ActivationCall {
  std::string_view layer;       ///< Dotted path (`block1.relu`), or `aten::relu#0` when inlined.
  std::string_view type_name;   ///< Class name (`ReLU`, `Leaky`), or the operator when inlined.
  const torch::Tensor& output;  ///< Activations; for spiking layers the spikes (the first
                                ///< element of a tuple output).
  bool spiking = false;         ///< A spiking neuron layer (snnTorch classes and the like).
  /// Spiking layers with a `mem` attribute: its value before and after the call; else null.
  const torch::Tensor* mem_before = nullptr;
  const torch::Tensor* mem_after = nullptr;
  std::string_view reset_mechanism;  ///< Spiking layers: `subtract`, `zero` or `none` if known.
  std::string_view layer_error;      ///< Non-empty when the probe could not read this layer
                                     ///< (e.g. a spiking layer without `mem`): the reason.

  /// Number of non-zero elements of `output`, counted once however many metrics ask.
  [[nodiscard]] int64_t nonzeros() const;
  mutable int64_t nonzeros_cache = -1;  ///< Internal to nonzeros(): -1 until counted.
};

/// One call of a connection layer's operator, as hook-based metrics see it.
struct ConnectionCall {
  std::string_view layer;      ///< Dotted path (`fc1`), or `aten::linear#0` when inlined.
  std::string_view type_name;  ///< Class name (`Linear`, `LSTMCell`), or the operator if inlined.
  std::string_view op;         ///< The operator, e.g. `aten::linear`, `aten::lstm_cell`.
  c10::ArrayRef<c10::IValue> args;  ///< The operator's arguments in schema order.
};

/// The activation and connection layers a run hooks, and what it found.
struct LayerSetup {
  std::vector<std::string> activation_types;  ///< Class names of activation layers.
  std::vector<std::string> connection_types;  ///< Class names of connection layers.
};

/// A metric computed from the model alone.
///
/// Subclasses implement `compute`; register one with NEUROBENCH_REGISTER_METRIC.
class StaticMetric {
 public:
  virtual ~StaticMetric() = default;
  /// The value: a number, or an object of named numbers.
  [[nodiscard]] virtual Json compute(const NeuroBenchModel& model,
                                     const LayerSetup& layers) const = 0;
  /// The metric's name in results (its class name unless overridden).
  [[nodiscard]] virtual std::string name() const;
};

/// A metric computed per batch from model, predictions and data; the run reports the
/// batch-size weighted mean of the per-batch values:
/// `sum(value_b * batch_size_b) / dataset_size`.
class WorkloadMetric {
 public:
  virtual ~WorkloadMetric() = default;
  /// The value for one batch: a number, or an object of named numbers.
  [[nodiscard]] virtual Json operator()(const WorkloadInput& input) = 0;
  /// The metric's name in results (its class name unless overridden).
  [[nodiscard]] virtual std::string name() const;

  /// Layer events this metric observes; none by default.
  [[nodiscard]] virtual LayerEvents observes() const { return LayerEvents::kNone; }
  /// Called before each batch's inference.
  virtual void begin_batch() {}
  /// Receives every activation layer call when observing kActivations.
  virtual void on_activation(const ActivationCall& /*call*/) {}
  /// Receives every connection operator call when observing kConnections.
  virtual void on_connection(const ConnectionCall& /*call*/) {}
  /// Qualified names of the operators to receive through `on_operator` when observing
  /// kOperators (`{"aten::matmul", "aten::bmm"}`); none by default.
  [[nodiscard]] virtual std::vector<std::string> observed_operators() const { return {}; }
  /// Receives every call of an operator named by `observed_operators()`, wherever it is in the
  /// model (in the code of any module, or in a frozen model's graph), before it runs:
  /// `call.args` are its arguments in schema order, `call.output` is null. `call.site` is the
  /// path of the module whose code holds the call (empty for the root), or `aten::mm#0` in a
  /// frozen model. Each call site is delivered once per call, whatever the class of its module,
  /// independently of the kConnections events.
  virtual void on_operator(const OperatorCall& /*call*/) {}
};

/// A workload metric that keeps state across batches and reports `compute()` at the end.
class AccumulatedMetric : public WorkloadMetric {
 public:
  /// Starts a new run.
  virtual void reset() = 0;
  /// Takes one batch into account (after its layer events were delivered).
  virtual void update(const WorkloadInput& input) = 0;
  /// The value over everything since `reset()`.
  [[nodiscard]] virtual Json compute() const = 0;
  /// Updates, then returns `compute()`.
  [[nodiscard]] Json operator()(const WorkloadInput& input) final {
    update(input);
    return compute();
  }
};

/// A metric asked for by name, with the options it should run with (an object; see
/// MetricDescription::options). Configs write it as `"Name"` or
/// `{"name": "Name", "options": {...}}`, the command line as `Name` or `Name:key=value,...`.
struct MetricSpec {
  std::string name;                ///< Registered name (lookup ignores case and underscores).
  Json options = Json::object();  ///< Options; empty for none.
};

/// Static metrics by name, built-ins included.
[[nodiscard]] Registry<StaticMetric>& static_metrics();
/// Workload metrics (plain and accumulated) by name, built-ins included.
[[nodiscard]] Registry<WorkloadMetric>& workload_metrics();

namespace detail {
/// `typeid(T).name()` demangled, without namespaces: `neurobench::metrics::MSE` gives `MSE`.
[[nodiscard]] std::string short_type_name(const char* mangled);

/// Registers `T` under `name` in the registry of its family; never throws: a failed
/// registration is kept and reported by the registry accessors on first use.
template <class T>
bool register_metric(const char* name, const char* description) noexcept;

/// Records a failed static registration (reported later).
void record_registration_error(std::string message) noexcept;
/// Throws the first recorded registration error, if any.
void check_registration_errors();
/// Defers a registration until the registries are first used.
void defer_registration(std::function<void()> add) noexcept;
}  // namespace detail

/// Registers a metric class under its class name, with a one-line description, so that it can
/// be used by name from C++, configs and the command line. Use once in a `.cpp` file:
/// `NEUROBENCH_REGISTER_METRIC(SpikeRate, "Mean spikes per neuron per timestep");`
#define NEUROBENCH_REGISTER_METRIC(Class, description)                                 \
  [[maybe_unused]] static const bool neurobench_registered_##Class =                 \
      ::neurobench::detail::register_metric<Class>(#Class, description)

template <class T>
bool detail::register_metric(const char* name, const char* description) noexcept {
  try {
    std::string n(name);
    std::string d(description);
    detail::defer_registration([n, d] {
      if constexpr (std::is_base_of_v<WorkloadMetric, T>) {
        workload_metrics().add({n, d, [] { return std::unique_ptr<WorkloadMetric>(new T()); }});
      } else if constexpr (std::is_base_of_v<StaticMetric, T>) {
        static_metrics().add({n, d, [] { return std::unique_ptr<StaticMetric>(new T()); }});
      } else {
        static_assert(std::is_base_of_v<WorkloadMetric, T> || std::is_base_of_v<StaticMetric, T>,
                      "NEUROBENCH_REGISTER_METRIC needs a StaticMetric or WorkloadMetric");
      }
    });
  } catch (...) {
    detail::record_registration_error(std::string("cannot register metric ") + name);
  }
  return true;
}

}  // namespace neurobench
