// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/metrics/count_sum.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/timing.hpp>

NEUROBENCH_API_BEGIN

/// The built-in metrics, exactly as ../shared/spec/NEUROBENCH.md defines them. They are
/// registered by the registry accessors; these declarations let C++ code use them directly.
namespace neurobench::metrics {

/// Default activation layer classes: ReLU, Sigmoid and snnTorch's spiking neurons.
[[nodiscard]] const std::vector<std::string>& default_activation_types();
/// Default connection layer classes: Linear, Conv1d/2d/3d, RNN/LSTM/GRU cells and layers.
[[nodiscard]] const std::vector<std::string>& default_connection_types();
/// snnTorch's spiking neuron classes (Leaky, Synaptic, Lapicque, Alpha, RLeaky, RSynaptic).
[[nodiscard]] const std::vector<std::string>& spiking_neuron_types();

/// Bytes of all parameters plus all buffers (numel x element size).
class Footprint final : public StaticMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const NeuroBenchModel& model, const LayerSetup& layers) const override;
};

/// Number of parameter elements.
class ParameterCount final : public StaticMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const NeuroBenchModel& model, const LayerSetup& layers) const override;
};

/// Zeros over elements of the connection layers' weights, rounded to 4 decimals (Linear and
/// Conv: `weight`; recurrent cells and layers: every `weight_*` and `bias_*`).
class ConnectionSparsity final : public StaticMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const NeuroBenchModel& model, const LayerSetup& layers) const override;
};

/// Bytes of the file the model was loaded from; MetricError for a model not loaded from one.
class ModelFileSize final : public StaticMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const NeuroBenchModel& model, const LayerSetup& layers) const override;
};

/// Mean of `preds == targets` (float32); shapes must match.
class ClassificationAccuracy final : public WorkloadMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json operator()(const WorkloadInput& input) override;
};

/// Mean of `(preds - targets)^2` (float32).
class MSE final : public WorkloadMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json operator()(const WorkloadInput& input) override;
};

/// `200 * mean(|p - t| / (|p| + |t|))` (float32); a NaN batch mean becomes 200.
class SMAPE final : public WorkloadMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json operator()(const WorkloadInput& input) override;
};

/// Coefficient of determination for 2-column targets: per column `1 - SSE / (N * var)` over
/// the whole run (population variance), averaged over the two columns.
class R2 final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;

 private:
  std::vector<torch::Tensor> preds_;
  std::vector<torch::Tensor> targets_;
};

/// Fraction of zeros among all activation layer outputs of the batch.
class ActivationSparsity final : public WorkloadMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json operator()(const WorkloadInput& input) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kActivations; }
  void begin_batch() override;
  void on_activation(const ActivationCall& call) override;

 private:
  int64_t elements_ = 0;
  CountSum nonzeros_;
};

/// Activation sparsity per layer over the whole run, keyed by dotted layer path (option
/// `keys`: `path`, the default) or, as NeuroBench keys it, by the layer's attribute name in its
/// parent with the counts of layers that share a name summed (`keys`: `name`).
class ActivationSparsityByLayer final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  /// Keyed by path.
  ActivationSparsityByLayer() = default;
  /// With options `{"keys": "path" | "name"}`; UsageError for another value.
  explicit ActivationSparsityByLayer(const Json& options);
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kActivations; }
  void on_activation(const ActivationCall& call) override;

 private:
  struct Counts {
    int64_t elements = 0;
    CountSum nonzeros;
  };
  std::vector<std::string> order_;  // paths, in the order first seen
  std::map<std::string, Counts, std::less<>> layers_;
  bool by_name_ = false;  // keys: the last component of the path, counts of a name summed
};

/// Synaptic operations per sample: effective MACs (real-valued inputs), effective ACs
/// (spiking inputs) and the dense count, in closed form (see docs/metrics.md).
class SynapticOperations final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  SynapticOperations();
  /// With options `{"per_layer": bool}` (see describe()); UsageError for another option value.
  explicit SynapticOperations(const Json& options);
  ~SynapticOperations() override;
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  /// False with per_layer (its value lists every batch), else true.
  [[nodiscard]] bool mergeable() const override;
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kConnections; }
  void on_connection(const ConnectionCall& call) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Multiply-accumulates and floating-point operations (2 per MAC) per sample that a dense
/// implementation of the model performs, from the shapes of the operands seen at run time:
/// `{"MACs", "FLOPs"}`. Counts Linear, convolutions (transposed too), RNN/LSTM/GRU cells and
/// layers (LSTM projections included), and `aten::matmul`, `mm`, `bmm`, `addmm` and `baddbmm`,
/// wherever they are called in the model; each operator call counts once. Biases and
/// activations are not counted. See docs/metrics.md.
class DenseMACs final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kOperators; }
  [[nodiscard]] std::vector<std::string> observed_operators() const override;
  /// Counts one call; throws MetricError naming the call site when the arguments' shapes do
  /// not fit the operator.
  void on_operator(const OperatorCall& call) override;

 private:
  int64_t macs_ = 0;
  int64_t samples_ = 0;
};

/// Membrane potential updates of spiking layers per sample.
class MembraneUpdates final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kActivations; }
  void begin_batch() override;
  void on_activation(const ActivationCall& call) override;

 private:
  std::map<std::string, int64_t, std::less<>> calls_in_batch_;
  CountSum updates_;
  int64_t samples_ = 0;
};

/// Neuron operations per sample: membrane updates weighed by the neuron model's cost per
/// update, and the dense count.
class NeuronOperations final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override { return LayerEvents::kActivations; }
  void begin_batch() override;
  void on_activation(const ActivationCall& call) override;

 private:
  struct LayerBatch {
    int64_t calls = 0;        // calls of the layer in this batch
    int64_t first_numel = 0;  // numel of its mem after the first call
  };
  std::map<std::string, LayerBatch, std::less<>> layers_in_batch_;
  CountSum effective_;  // membrane updates times their cost, whole numbers of operations
  double dense_ = 0;
  int64_t samples_ = 0;
};

/// Energy per sample estimated from the operations the run counted: effective MACs and ACs
/// (as SynapticOperations counts them), effective neuron operations (NeuronOperations) and,
/// with option `memory`, one memory access per weight read, activation written or read and
/// membrane potential read or written, each times the energy a published table gives per
/// operation (default: Horowitz, ISSCC 2014, 45 nm, 32-bit float). An estimate in J and mWh per
/// sample, split by kind of operation; see docs/deployment-metrics.md#energy-estimate.
///
/// Options: `table` (kEnergyTables' names, default `horowitz45_fp32`), `memory` (`none`,
/// `sram`, `dram`; default `none`), `pj` (an object replacing the table's entries `mac`, `ac`,
/// `neuron_op`, `sram`, `dram`, in picojoules). UsageError for an unknown table or entry.
class EnergyEstimate final : public AccumulatedMetric {
 public:
  /// Energy per operation in picojoules.
  struct Costs {
    double mac_pj = 0;        ///< One multiply-accumulate.
    double ac_pj = 0;         ///< One accumulate (an add).
    double neuron_op_pj = 0;  ///< One neuron operation (NeuronOperations' unit).
    double sram_pj = 0;       ///< One access of one element in on-chip SRAM.
    double dram_pj = 0;       ///< One access of one element in DRAM.
  };
  /// Which memory the modelled accesses go to.
  enum class Memory { None, Sram, Dram };
  /// The energies of a named table; UsageError naming the known tables for another name.
  [[nodiscard]] static Costs table(std::string_view name);
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  /// With the default options.
  EnergyEstimate();
  /// With options `{"table", "memory", "pj"}` (any may be left out).
  explicit EnergyEstimate(const Json& options);
  ~EnergyEstimate() override;
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override {
    return LayerEvents::kActivations | LayerEvents::kConnections;
  }
  void begin_batch() override;
  void on_activation(const ActivationCall& call) override;
  void on_connection(const ConnectionCall& call) override;
  /// Takes the synaptic operations from `counted`, a SynapticOperations of the same run that
  /// sees the same layer events from the same reset on, instead of counting them a second time.
  /// nullptr ends the sharing: the counts `counted` holds then become this metric's own (its
  /// state, value and merging are then as if it had counted them). The workload pass shares
  /// when a run asks for both metrics, and ends the sharing at its end.
  void share_synaptic_operations(const SynapticOperations* counted);

 private:
  struct Counts {  // per sample
    double macs = 0, acs = 0, neuron_ops = 0;
    double weight_words = 0, activation_words = 0, state_words = 0;
  };
  [[nodiscard]] Counts counts() const;
  Costs costs_;
  Memory memory_ = Memory::None;
  SynapticOperations synaptic_;  // unused while shared_synaptic_ is set
  const SynapticOperations* shared_synaptic_ = nullptr;
  NeuronOperations neurons_;
  MembraneUpdates membrane_;
  int64_t activation_elements_ = 0;
  CountSum activation_nonzeros_;
  int64_t samples_ = 0;
};

/// What a microcontroller deployment of the model would need, in KB (1024 bytes): flash for
/// the parameters and buffers at the stored precision, and RAM for the peak of the tensors
/// alive at once along the execution order of the operators, plus the spiking layers'
/// membrane potentials, per sample. Computed from the first batch of the workload pass (the
/// shapes are only known once the model runs): `{"Flash_KB", "RAM_KB", "RAM_Activations_KB",
/// "RAM_State_KB"}`. Option `precision`: `float32` (default; 4 bytes per element) or `int8`
/// (1 byte per weight and activation, 4 per bias and membrane potential). What it models and
/// what not: docs/deployment-metrics.md#memoryestimate.
class MemoryEstimate final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  /// With the default options.
  MemoryEstimate();
  /// With options `{"precision": "float32" | "int8"}`; UsageError for another precision.
  explicit MemoryEstimate(const Json& options);
  ~MemoryEstimate() override;
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;
  [[nodiscard]] LayerEvents observes() const override {
    return LayerEvents::kActivations | LayerEvents::kOperators | LayerEvents::kOperatorOutputs;
  }
  [[nodiscard]] std::vector<std::string> observed_operators() const override;
  void begin_batch() override;
  void on_activation(const ActivationCall& call) override;
  void on_operator(const OperatorCall& call) override;

 private:
  struct Trace;
  std::unique_ptr<Trace> trace_;  // the first batch's tensors, until update()
  bool int8_ = false;
  Json value_;  // null until the first batch is done
};

/// COCO mean average precision of object detections in event-camera recordings, as NeuroBench's
/// CocoMap computes it through Prophesee's CocoEvaluator and pycocotools' COCOeval (boxes; IoU
/// 0.50:0.95, area ranges, 1/10/100 detections, 101-point interpolated precision): the first
/// 0.5 s of each recording skipped, one COCO image per recording and time stamp with boxes,
/// detections within 40 ms of it. The value is an object whose `mean_ap` is NeuroBench's value,
/// with COCOeval's other figures (keys::kCocoMapKeys); -1 where COCO leaves a figure undefined.
///
/// Needs the sequential detection batches of the gen4-detection data set: targets `(K, 7)`
/// rows `[tbin, slot, x1, y1, x2, y2, class]` and extras `recording`, `padding`,
/// `tbin_start_us`, `delta_t_us` `(slots)` and `frame_is_labeled` `(tbins, slots)`;
/// predictions `(M, 8)` rows `[tbin, slot, x1, y1, x2, y2, class, score]`, classes 0
/// (background) to 3. Throws InputError naming the tensor and its shape or row for anything
/// else. Option `skip_unlabeled_frames` (default false): see docs/metrics.md.
class CocoMap final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction, keys and options (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  /// With the default options.
  CocoMap();
  /// With complete options (`{"skip_unlabeled_frames": bool}`), as the registry passes them.
  explicit CocoMap(const Json& options);
  ~CocoMap() override;
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool skip_unlabeled_frames_ = false;
};

/// Wall time of model inference alone per timed run (batch) and per sample, in
/// milliseconds: mean, median, p90, p99, min, max and standard deviation, with the number of
/// runs and warm-up runs they rest on.
class Latency final : public TimingMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// Like Latency, but pre-processing + inference + post-processing.
class InferenceTime final : public TimingMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// Samples per second over the timed runs (wall time, batch assembly included).
class Throughput final : public TimingMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const Timings& timings) const override;
};

/// Time to load the model file afresh and run its first inference, in milliseconds
/// (medians over `TimingOptions::startup_runs` loads, with the extremes of the total).
class StartupTime final : public TimingMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  [[nodiscard]] Json compute(const Timings& timings) const override;
  [[nodiscard]] bool needs_startup_runs() const override { return true; }
};

/// Peak resident memory of the process during the workload pass, the resident memory when it
/// started, the growth between the two, and the model's footprint for comparison (bytes).
/// Linux: the peak is reset at the start of the run through /proc/self/clear_refs; where
/// that is not allowed, the peak since the process started is reported and
/// `peak_since_process_start` is 1.
class PeakMemory final : public AccumulatedMetric {
 public:
  /// What the metric reports: unit, direction and keys (see MetricDescription).
  [[nodiscard]] static MetricDescription describe();
  void reset() override;
  void update(const WorkloadInput& input) override;
  [[nodiscard]] Json compute() const override;
  [[nodiscard]] bool mergeable() const override { return true; }
  [[nodiscard]] Json export_state() const override;
  void merge_state(const Json& state) override;

 private:
  int64_t start_rss_ = 0;
  int64_t footprint_ = -1;
  bool since_process_start_ = false;
  c10::Device device_ = c10::kCPU;       // where the batches ran (a GPU's memory is reported too)
  [[nodiscard]] Json own_value() const;  // this process's figures
  Json largest_merged_;  // the merged shard with the largest peak, if larger than this one's
};

/// The cost of one membrane update of a spiking neuron class with the given reset mechanism
/// (`subtract` or `zero`); throws MetricError for an unknown class.
[[nodiscard]] int neuron_update_cost(std::string_view type_name, std::string_view reset);

}  // namespace neurobench::metrics
NEUROBENCH_API_END
