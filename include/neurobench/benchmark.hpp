// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/device.hpp>
#include <neurobench/distributed.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/export.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/timing.hpp>
#include <neurobench/processors/processors.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The metrics of a benchmark: static ones (model only), workload ones (model, preds, data)
/// and timing ones (the timing pass).
struct MetricSet {
  std::vector<std::unique_ptr<StaticMetric>> static_metrics;
  std::vector<std::unique_ptr<WorkloadMetric>> workload_metrics;
  std::vector<std::unique_ptr<TimingMetric>> timing_metrics;
  /// Metric name -> the options it was made with (complete), for the results' `_metrics`.
  Json options = Json::object();
  /// The names in the order they were asked for (results keep it); filled by from_specs.
  /// Metrics added by hand come after, static first, then workload, then timing.
  std::vector<std::string> order;

  /// Makes the metrics named, from the registries (a workload name may be a timing metric).
  /// Throws UsageError for an unknown name or a name given twice.
  [[nodiscard]] static MetricSet from_names(const std::vector<std::string>& static_names,
                                            const std::vector<std::string>& workload_names);
  /// Makes the metrics asked for, with their options. Throws UsageError for an unknown name,
  /// a name given twice, or options the metric does not accept.
  [[nodiscard]] static MetricSet from_specs(const std::vector<MetricSpec>& static_specs,
                                            const std::vector<MetricSpec>& workload_specs);
};

/// The per-layer profile of a run (docs/deployment-metrics.md#per-layer-profile): after the
/// other passes, one pass over the data set counts each connection and activation layer's
/// operations and activation sparsity (as SynapticOperations and ActivationSparsityByLayer
/// count them), then `runs` forward calls are timed without hooks and `runs` with a clock read
/// at each layer's entry and exit; Results::profile holds the outcome. Latency's own timing
/// pass is not changed.
struct ProfileOptions {
  static constexpr int64_t kMaxRuns = 1000000;  ///< Most timed runs of each kind.
  static constexpr int64_t kMaxWarmup = 10000;  ///< Most warm-up runs of each kind.
  bool enabled = false;  ///< Make the profile.
  int64_t warmup = 2;    ///< Untimed runs before each kind of timed runs.
  /// Timed runs without hooks, then as many with the layer clocks.
  int64_t runs = 20;
  /// Throws UsageError naming the field: `warmup` 0 to kMaxWarmup, `runs` 1 to kMaxRuns.
  void validate() const;
};

/// How a run behaves.
struct RunOptions {
  bool quiet = false;     ///< No progress bar on stderr.
  bool verbose = false;   ///< Print each batch's workload results to stderr.
  /// Warnings about the inputs are errors: NaN or Inf in the data set's arrays or the model's
  /// parameters or buffers make run() throw InputError before anything runs, instead of a
  /// warning in Results::warnings.
  bool strict = false;
  TimingOptions timing;  ///< How the timing pass runs (only when a timing metric is asked for).
  /// The per-layer profile, made after the timing pass with the timing pass's batch size
  /// (TimingOptions::batch_size, else the loader's). Not in a sharded run: UsageError.
  ProfileOptions profile;
  /// Where the model runs (docs/devices.md): the CPU, a CUDA GPU (`cuda`, `cuda:N`;
  /// parse_device() in <neurobench/device.hpp>) or the lazy device. run() checks it first
  /// (UsageError naming what is missing), runs the static metrics on the model as it is, then
  /// moves the model there (NeuroBenchModel::to(); it stays there afterwards) and each batch's
  /// data and targets before pre-processing, as NeuroBench's `Benchmark.run(device=...)` does.
  /// Hook metrics count on the device and read their counts back once per batch; timings wait
  /// for the device's work (synchronize()).
  c10::Device device = c10::kCPU;
  /// CUDA runs: allow TF32 for float32 convolutions (cuDNN) and matrix products (cuBLAS) while
  /// the run lasts. Faster on GPUs from Ampere on, but about 1e-3 relative precision: off by
  /// default, so that the results equal the CPU's. LibTorch's own settings are restored after
  /// the run. On any other device it has no effect: the run warns and records
  /// `_environment.tf32` false.
  bool tf32 = false;
  /// The metrics scope (docs/metrics.md#metrics-scope): the dotted path of one submodule
  /// (`net`, `net.encoder`) to which the static metrics (Footprint, ParameterCount,
  /// ConnectionSparsity, and any metric reading the model's modules, parameters or buffers)
  /// and the layer hooks of the workload metrics (ActivationSparsity, SynapticOperations,
  /// DenseMACs, ..., and the per-layer profile) are restricted, as NeuroBench's metrics see
  /// only a model's `__net__()`; the forward pass still runs the whole model, and metrics of
  /// its outputs (accuracy, CocoMap), timings and ModelFileSize are the whole model's. Empty:
  /// the whole model. run() throws UsageError naming the path, with the model's top-level
  /// submodules, when the model has no submodule there, and records the path as
  /// `_run.metrics_scope`.
  std::string metrics_scope;
  /// The workload metrics compare predictions with the targets as the data set gave them,
  /// whatever targets the pre-processors return: NeuroBench's `input, target =
  /// preprocess(data)` uses only `input` (neurobench_cpp sets it). False: with the targets the
  /// pre-processing chain returns.
  bool targets_from_loader = false;
  /// A sharded run (docs/distributed.md): the processes it runs on. Each rank runs its
  /// contiguous shard of the batches (and of the timing batches); the metric states are merged
  /// in rank order, and every rank returns the results of the whole data set, with
  /// `_run.distributed` saying how it ran. A metric that cannot be merged
  /// (WorkloadMetric::mergeable()) fails. Null, or a group of one process: an ordinary run.
  std::shared_ptr<ProcessGroup> group;
};

/// One metric that failed: its name and the cause.
struct MetricFailure {
  std::string metric;   ///< Metric name.
  std::string message;  ///< What went wrong.
};

/// The outcome of a run.
struct Results {
  /// Metric name -> value, in the order the metrics were given (static, then workload);
  /// a failed metric's value is null. NaN and infinities stay numbers here (run() warns about
  /// each metric holding one); results files write them as "NaN", "Infinity", "-Infinity".
  Json values = Json::object();
  /// Metric name -> what its value means (MetricDescription::to_json(), plus the `options` it
  /// ran with), saved as `_metrics` in JSON results.
  Json metrics = Json::object();
  std::vector<MetricFailure> failures;  ///< Metrics that failed (the others completed).
  /// Things the user should know: layers not found, timing limits, and the model's own
  /// (NeuroBenchModel::warnings(), each once; e.g. a step-wise network that keeps no state).
  std::vector<std::string> warnings;
  int64_t samples = 0;                  ///< Samples seen by the workload pass.
  std::size_t batches = 0;              ///< Batches run by the workload pass.
  Environment environment;              ///< Where and how the run was made.
  /// How the run was made: `model`, `metrics_scope` (when RunOptions::metrics_scope is set),
  /// `batch_size`, `model_sha256` and `data_sha256` (the
  /// SHA-256 of the files read, when the model and data set say: source_sha256()),
  /// `non_finite_inputs` (each tensor of the data set or the model holding NaN or Inf: `tensor`,
  /// `kind`, `source`, `count`, `nan`, `inf`, `first_index`; only when there are some), and
  /// `timing` (the timing pass's settings, when there was one). Callers may add to it (the
  /// command line adds `data`); it is saved as `_run` in JSON results together with samples,
  /// batches, failures and warnings.
  Json run = Json::object();
  /// The per-layer profile when RunOptions::profile asked for one, else null; saved as
  /// `_profile` in JSON results. Keys (docs/deployment-metrics.md#per-layer-profile):
  /// `batch_size`, `warmup`, `runs`, `samples` (of the counting pass), `plain_forward_s` and
  /// `profiled_forward_s` (mean seconds per forward call without and with the layer clocks),
  /// `overhead` (their ratio minus 1), `layers_s` (the layers' time per forward),
  /// `other_s` (the rest of the profiled forward), and `layers`: one object per layer in
  /// the order first called, with `layer`, `kind` (`connection` or `activation`), `type`,
  /// `output_shape`, `calls_per_run`, `time_per_call_s`, `time_per_run_s`, `share` (of the
  /// profiled forward), `dense_ops`, `effective_macs`, `effective_acs` (per sample; null for
  /// activation layers) and `activation_sparsity` (null for connection layers).
  Json profile = nullptr;

  /// True when no metric failed.
  [[nodiscard]] bool ok() const { return failures.empty(); }
};

/// Runs a model over a data set and computes static and workload metrics, the way NeuroBench's
/// `Benchmark.run` does: static metrics on the model as loaded; then per batch: pre-process,
/// infer, post-process, workload metrics; plain workload metrics are combined as
/// `sum(value_b * batch_size_b) / dataset_size`, accumulated ones report `compute()`.
/// Timing metrics (Latency, InferenceTime, Throughput, StartupTime) are measured afterwards by
/// a timing pass without hooks (see TimingOptions); when there are timing metrics and no
/// workload metrics, the workload pass is skipped.
///
/// ```cpp
/// auto model = std::make_shared<neurobench::TorchScriptModel>("net.pt");
/// auto data = std::make_shared<neurobench::TensorDataset>(
///     neurobench::TensorDataset::from_npz("test.npz"));
/// neurobench::Benchmark bench(model, neurobench::DataLoader(data), {}, {},
///     neurobench::MetricSet::from_names({"Footprint"}, {"ClassificationAccuracy"}));
/// neurobench::Results r = bench.run();
/// ```
class Benchmark {
 public:
  /// `layers` chooses the activation and connection layer classes (defaults: the spec's).
  Benchmark(std::shared_ptr<NeuroBenchModel> model, DataLoader loader,
            std::vector<std::unique_ptr<PreProcessor>> pre,
            std::vector<std::unique_ptr<PostProcessor>> post, MetricSet metrics,
            LayerSetup layers = default_layers());
  ~Benchmark();
  Benchmark(Benchmark&&) noexcept;
  Benchmark& operator=(Benchmark&&) noexcept;

  /// Runs the benchmark. First looks for NaN and Inf in the data set's arrays and the model's
  /// parameters and buffers: each tensor holding some gets a warning naming it, the count and
  /// the first index, and a record in `_run.non_finite_inputs` (with `options.strict`, an
  /// InputError instead, before anything runs). Throws InputError for bad data or a model that
  /// fails on it (no results then); a metric that fails is recorded in `Results::failures` and
  /// the others still complete. Throws Interrupted, with no results, when a stop is requested
  /// (request_stop() in <neurobench/stop.hpp>, from another thread or a signal handler): the
  /// request is seen between passes and after each batch or timed run.
  [[nodiscard]] Results run(const RunOptions& options = {});

  /// The activation and connection layer classes of the spec.
  [[nodiscard]] static LayerSetup default_layers();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neurobench
NEUROBENCH_API_END
