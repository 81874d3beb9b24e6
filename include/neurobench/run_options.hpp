// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a run behaves: plain data, for the config, the command line and the reporters, which need
// no model, metric or JIT header to name them (<neurobench/benchmark.hpp> includes this).
#include <cstdint>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include <neurobench/export.hpp>
#include <neurobench/metrics/timing_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

class ProcessGroup;

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

/// How the passes of a run show their progress on stderr (the config's `progress`).
enum class ProgressMode {
  Auto,   ///< A bar redrawn in place, on a terminal only, for passes longer than half a second.
  Lines,  ///< A line at each tenth of the batches and at the end, on any stderr (logs, notebooks).
  Off,    ///< Nothing (as `quiet`).
};

/// How a run behaves.
struct RunOptions {
  bool quiet = false;     ///< No progress on stderr, whatever `progress` says.
  ProgressMode progress = ProgressMode::Auto;  ///< How the passes show their progress.
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
  /// A run of static metrics alone (no workload or timing metric) reads no data: it does not
  /// run the model over the data set (NeuroBench's `Benchmark.run` does, though no value
  /// depends on it), scans only the model for NaN and Inf, and records no data digest;
  /// `_run.data_read` is false, `samples` and `batches` 0. False (the default, and what
  /// neurobench_cpp keeps, whose data loaders a user's script may count on being iterated):
  /// the model runs over the data as in NeuroBench. `neurobench run`, configs and suites set it.
  bool static_only_reads_no_data = false;
  /// A sharded run (docs/distributed.md): the processes it runs on. Each rank runs its
  /// contiguous shard of the batches (and of the timing batches); the metric states are merged
  /// in rank order, and every rank returns the results of the whole data set, with
  /// `_run.distributed` saying how it ran. A metric that cannot be merged
  /// (WorkloadMetric::mergeable()) fails. Null, or a group of one process: an ordinary run.
  std::shared_ptr<ProcessGroup> group;
};

}  // namespace neurobench
NEUROBENCH_API_END
