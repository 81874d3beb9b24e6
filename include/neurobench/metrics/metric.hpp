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
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/registry.hpp>

NEUROBENCH_API_BEGIN

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
  kActivations = 1,      ///< Every call of an activation layer (its output; `mem` of neurons).
  kConnections = 2,      ///< Every call of a connection layer's operator (inputs and weights).
  kOperators = 4,        ///< Every call, anywhere in the model, of the operators named by
                         ///< `WorkloadMetric::observed_operators()` (before it runs).
  kOperatorOutputs = 8,  ///< The same operators after they run: `on_operator` sees the output
                         ///< and no arguments (with kOperators too, each call comes twice).
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

  /// Number of non-zero elements of `output`, counted once however many metrics ask. For an
  /// output on a device (a GPU), this reads the count back and so waits for the device at each
  /// call of the layer: a metric that runs there should give the output to
  /// CountSum::add_nonzeros() instead and read the sum once per batch.
  [[nodiscard]] int64_t nonzeros() const;
  /// The number of non-zero elements of `output` as a 0-dim int64 tensor on the output's
  /// device, counted once however many metrics ask; nothing is read back (docs/devices.md).
  [[nodiscard]] const torch::Tensor& nonzero_count() const;
  mutable int64_t nonzeros_cache = -1;  ///< Internal to nonzeros(): -1 until counted.
  mutable torch::Tensor nonzero_count_cache{};  ///< Internal to nonzero_count().
  /// Internal: how many elements of `mem` the call changed, on the CPU, counted once for the
  /// built-in metrics that ask (MembraneUpdates, NeuronOperations); -1 until counted.
  mutable int64_t mem_changed_cache = -1;
};

/// One call of a connection layer's operator, as hook-based metrics see it.
struct ConnectionCall {
  std::string_view layer;      ///< Dotted path (`fc1`), or `aten::linear#0` when inlined.
  std::string_view type_name;  ///< Class name (`Linear`, `LSTMCell`), or the operator if inlined.
  std::string_view op;         ///< The operator, e.g. `aten::linear`, `aten::lstm_cell`.
  c10::ArrayRef<c10::IValue> args;  ///< The operator's arguments in schema order.
  /// Recurrent cells (`aten::*_cell`): whether the cell's forward was given a state (`hx`);
  /// false when it was called on its input alone and PyTorch started from zeros. True for
  /// every other operator.
  bool state_given = true;
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

  /// How a run combines the batches, called by Benchmark: `begin_run()`, then per batch
  /// `add_batch(input, batch_size / dataset_size)`, then `run_value()`. Here: the weighted
  /// mean of `operator()`'s values (numbers, or objects of numbers key by key);
  /// AccumulatedMetric reports `compute()` instead.
  virtual void begin_run();
  /// Takes one batch, weighted by its share of the data set. Throws MetricError when the
  /// batch's value is neither a number nor an object of numbers.
  virtual void add_batch(const WorkloadInput& input, double weight);
  /// The run's value (0 when no batch was added).
  [[nodiscard]] virtual Json run_value() const;
  /// The value `--verbose` shows after a batch: the batch's own value here.
  [[nodiscard]] virtual Json shown_after_batch() const { return last_value_; }

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
  /// independently of the kConnections events. When observing kOperatorOutputs, the same calls
  /// also arrive after the operator ran: `call.output` its first result, `call.args` empty.
  virtual void on_operator(const OperatorCall& /*call*/) {}

  /// Sharded runs (docs/distributed.md): true when export_state() and merge_state() are
  /// implemented, so that the metric can run on shards of the data set in several processes and
  /// be merged. Every plain workload metric can; an AccumulatedMetric says so by overriding the
  /// three. A sharded run records a metric that cannot as failed, and runs the others.
  [[nodiscard]] virtual bool mergeable() const { return true; }
  /// Sharded runs: what merge_state() needs of this instance's run so far, in a Json that may
  /// hold binary values (tensor_state() in <neurobench/metrics/state.hpp>). Here: each batch's
  /// value and weight, in order. Throws MetricError when the metric is not mergeable().
  [[nodiscard]] virtual Json export_state() const;
  /// Sharded runs: takes in the state another instance exported after running the batches that
  /// come next in the data set, as if this instance had run them too (shards are merged in
  /// order, the first shard's instance taking the others'). Here: adds each batch's value in
  /// order, so that the run's value is the one a single process computes, bit for bit. Throws
  /// MetricError for a state it cannot read, or when the metric is not mergeable().
  virtual void merge_state(const Json& state);

 private:
  Json sum_;         // the weighted sum of the batches so far
  Json last_value_;  // the last batch's value
  Json terms_;       // [value, weight] of each batch, in order (export_state)
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

  /// `reset()`.
  void begin_run() final { reset(); }
  /// `update(input)`; the weight is not used.
  void add_batch(const WorkloadInput& input, double /*weight*/) final { update(input); }
  /// `compute()`.
  [[nodiscard]] Json run_value() const final { return compute(); }
  /// `compute()`: the value so far.
  [[nodiscard]] Json shown_after_batch() const final { return compute(); }
  /// False unless overridden together with export_state() and merge_state(): the state of an
  /// accumulated metric is its own (the built-ins implement all three).
  [[nodiscard]] bool mergeable() const override { return false; }
  /// Throws MetricError: override it (with merge_state() and mergeable()) to run sharded.
  [[nodiscard]] Json export_state() const override;
  /// Throws MetricError: override it (with export_state() and mergeable()) to run sharded.
  void merge_state(const Json& state) override;
};

struct Timings;
struct PlatformSampling;

/// A metric computed from Benchmark's timing pass rather than per batch (Latency, Throughput).
///
/// Benchmark runs one timing pass for all timing metrics of a run, after the workload pass,
/// with hooks removed, and calls `compute(timings)` on each (see TimingOptions and Timings in
/// neurobench/metrics/timing.hpp).
class TimingMetric {
 public:
  virtual ~TimingMetric() = default;
  /// The value from the timing pass's measurements.
  [[nodiscard]] virtual Json compute(const Timings& timings) const = 0;
  /// True when the timing pass must load the model file afresh (StartupTime).
  [[nodiscard]] virtual bool needs_startup_runs() const { return false; }
  /// What the timing pass's platform sampler should read for this metric during the timed runs
  /// (Energy, Utilisation, Clock, Temperature), or nullptr for none: the pass then puts what it
  /// read in `Timings::platform` under the metric's name.
  [[nodiscard]] virtual const PlatformSampling* platform_sampling() const { return nullptr; }
  /// The metric's name in results (its class name unless overridden).
  [[nodiscard]] virtual std::string name() const;
};

/// Static metrics by name, built-ins included.
[[nodiscard]] Registry<StaticMetric, MetricDescription>& static_metrics();
/// Workload metrics (plain and accumulated) by name, built-ins included.
[[nodiscard]] Registry<WorkloadMetric, MetricDescription>& workload_metrics();
/// Timing metrics by name, built-ins included.
[[nodiscard]] Registry<TimingMetric, MetricDescription>& timing_metrics();

/// The description of the metric registered as `name` in any family (static, workload or
/// timing), or nullptr.
[[nodiscard]] const MetricDescription* find_metric(std::string_view name);
/// Every registered metric's description: static, then workload, then timing metrics.
[[nodiscard]] std::vector<const MetricDescription*> all_metrics();

namespace detail {

template <class T, class = void>
struct has_describe : std::false_type {};
template <class T>
struct has_describe<T, std::void_t<decltype(T::describe())>> : std::true_type {};

/// The description of `T` from its registration line: the line's own, or `T::describe()`
/// (called later, inside register_metric, so that nothing throws during static
/// initialisation).
template <class T>
struct DescriptionArg {
  MetricDescription given;
  MetricDescription (*describe)() = nullptr;
  DescriptionArg() {  // only compiled for a registration line without a description
    static_assert(has_describe<T>::value,
                  "NEUROBENCH_REGISTER_METRIC(Class) needs a static Class::describe(); or give "
                  "the description: NEUROBENCH_REGISTER_METRIC(Class, \"one line\")");
    describe = &T::describe;
  }
  DescriptionArg(MetricDescription d)  // NOLINT(google-explicit-constructor)
      : given(std::move(d)) {}
  DescriptionArg(const char* one_line)  // NOLINT(google-explicit-constructor)
      : given(one_line) {}
};

/// Adds `T` to the registry of its family (static, workload or timing).
template <class T>
void add_metric(MetricDescription d) {
  check_takes_options<T>(d);
  if constexpr (std::is_base_of_v<TimingMetric, T>) {
    d.kind = "timing";
    timing_metrics().add(std::move(d), &make_plugin<T, TimingMetric>);
  } else if constexpr (std::is_base_of_v<WorkloadMetric, T>) {
    d.kind = "workload";
    workload_metrics().add(std::move(d), &make_plugin<T, WorkloadMetric>);
  } else {
    static_assert(std::is_base_of_v<StaticMetric, T>,
                  "NEUROBENCH_REGISTER_METRIC needs a StaticMetric, WorkloadMetric or "
                  "TimingMetric");
    d.kind = "static";
    static_metrics().add(std::move(d), &make_plugin<T, StaticMetric>);
  }
}

/// Registers `T` (see NEUROBENCH_REGISTER_METRIC); never throws: a failed registration is
/// kept and reported by the registry accessors on first use.
template <class T>
bool register_metric(const char* class_text, DescriptionArg<T> arg) noexcept {
  try {
    MetricDescription d = arg.describe != nullptr ? arg.describe() : std::move(arg.given);
    d.name = registered_class_name(class_text);
    d.source = registration_source();
    defer_registration([d = std::move(d)] { add_metric<T>(d); });
  } catch (...) {
    record_registration_error(std::string("cannot register metric ") + class_text);
  }
  return true;
}
}  // namespace detail

/// Registers a metric class under its class name (namespaces dropped), so that it can be used
/// by name from C++, configs and the command line (`--plugin` for a shared library). Use once
/// in a `.cpp` file, with the description on the line or from a static `describe()` member:
///
/// ```cpp
/// NEUROBENCH_REGISTER_METRIC(lab::SpikeRate);  // SpikeRate::describe() says what it is
/// NEUROBENCH_REGISTER_METRIC(lab::SpikeCount, "spikes per sample");
/// NEUROBENCH_REGISTER_METRIC(lab::SpikeCount, neurobench::MetricDescription("spikes per sample")
///                                                  .with_unit("spikes").lower_is_better());
/// ```
///
/// A class with options takes them in a constructor `T(const neurobench::Json& options)`
/// (complete: checked against the declared options, defaults filled in).
#define NEUROBENCH_REGISTER_METRIC(...)                                                      \
  [[maybe_unused]] static const bool NEUROBENCH_PP_CAT(neurobench_registered_metric_,        \
                                                       __COUNTER__) =                        \
      ::neurobench::detail::register_metric<NEUROBENCH_PP_FIRST(__VA_ARGS__, ~)>(            \
          NEUROBENCH_PP_STR(NEUROBENCH_PP_FIRST(__VA_ARGS__, ~)),                            \
          ::neurobench::detail::DescriptionArg<NEUROBENCH_PP_FIRST(__VA_ARGS__, ~)>{         \
              NEUROBENCH_PP_REST(__VA_ARGS__, )})

}  // namespace neurobench
NEUROBENCH_API_END
