// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the passes of a Benchmark run share: the results being filled in and the metrics that
// failed. Private to the library.

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <neurobench/benchmark.hpp>
#include <neurobench/metrics/timing.hpp>
#include <neurobench/stop.hpp>

#include "stop_detail.hpp"

namespace neurobench::detail {

/// The results of a run in the making, and its failed metrics.
class RunState {
 public:
  Results results;

  /// Records that `metric` failed (the first cause only); its value becomes null at the end.
  void fail(const std::string& metric, const std::string& message);
  /// True when `metric` failed.
  [[nodiscard]] bool failed(const std::string& metric) const { return failed_.count(metric) != 0; }
  /// The failure recorded for `metric`, or nullptr.
  [[nodiscard]] const std::string* failure(const std::string& metric) const {
    const auto it = failed_.find(metric);
    return it == failed_.end() ? nullptr : &it->second;
  }
  /// Records that `metric` cannot be measured here (MetricUnavailable): its value null, the
  /// reason in `_run.unavailable` and in a warning; not a failure.
  void unavailable(const std::string& metric, const std::string& reason);
  /// Runs `compute` for `metric`, recording a LibTorch or other error as its failure (a
  /// MetricUnavailable as unavailable()); an InputError (bad data, not the metric's fault) and
  /// Interrupted go through.
  template <class F>
  void guard(const std::string& metric, F&& compute);
  /// Adds a warning unless it is there already.
  void warn_once(const std::string& warning);
  /// Sets failed metrics to null and lists them in `results.failures`, in results order; then
  /// warns about every metric with a NaN or infinite value (warn_non_finite).
  void finish();
  /// One warning per metric whose value is or holds NaN or an infinity, naming the keys:
  /// results files write them as strings that a failed metric's null is not.
  void warn_non_finite();

 private:
  std::map<std::string, std::string> failed_;  // metric name -> message
};

/// The text of a LibTorch error without its C++ backtrace.
[[nodiscard]] std::string what_of(const c10::Error& e);

template <class F>
void RunState::guard(const std::string& metric, F&& compute) {
  try {
    compute();
  } catch (const InputError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const MetricUnavailable& e) {
    unavailable(metric, e.what());
  } catch (const c10::Error& e) {
    fail(metric, what_of(e));
  } catch (const std::exception& e) {
    fail(metric, e.what());
  }
}

/// Pre-processes a batch; a processor's LibTorch error is an InputError naming the batch.
[[nodiscard]] Batch pre_process(std::vector<std::unique_ptr<PreProcessor>>& pre, Batch batch,
                                std::size_t b);
/// Post-processes predictions; a LibTorch error is an InputError naming the batch.
[[nodiscard]] torch::Tensor post_process(std::vector<std::unique_ptr<PostProcessor>>& post,
                                         torch::Tensor preds, std::size_t b);

/// Seconds between two points of the monotonic clock.
[[nodiscard]] inline double seconds_between(std::chrono::steady_clock::time_point a,
                                            std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// The batches `[first, end)` of a data loader.
struct BatchRange {
  std::size_t first = 0;
  std::size_t end = 0;
  [[nodiscard]] std::size_t size() const { return end - first; }
};

/// Shard `rank` of `shards` of `count` batches: contiguous, in order, sizes differing by at most
/// one (`[count * rank / shards, count * (rank + 1) / shards)`).
[[nodiscard]] BatchRange shard_of(std::size_t count, int rank, int shards);

/// What a pass needs of the benchmark.
struct PassInput {
  NeuroBenchModel& model;
  const DataLoader& loader;
  std::vector<std::unique_ptr<PreProcessor>>& pre;
  std::vector<std::unique_ptr<PostProcessor>>& post;
  const LayerSetup& layers;
  int shard = 0;   ///< This process's shard of the data set (sharded runs; else 0 of 1).
  int shards = 1;  ///< Shards of the data set: the world size of a sharded run.
  c10::Device device = c10::kCPU;  ///< Where the model is and each batch goes.
};

/// The batch's data, targets and structured input on `device` (extras stay where they are), as
/// NeuroBench moves them before pre-processing. Throws InputError naming the batch when they cannot
/// go there.
[[nodiscard]] Batch to_device(Batch batch, const c10::Device& device, std::size_t b);

/// The model's predictions for a pre-processed batch: NeuroBenchModel::forward_input() on the
/// batch's structured input (Batch::input) when it has one, else forward() on its data.
[[nodiscard]] torch::Tensor infer(NeuroBenchModel& model, const Batch& batch);

/// Readies the model for batch `b` before its forward (both passes call this, and nothing
/// else between it and the forward): begin_batch(), then, when the batch has the extra
/// `starts_recording` (a sequential data set's, include/neurobench/data/sequential.hpp),
/// reset_slots() with it, or with every slot set when `first` (the first batch of a pass, of a
/// rank's shard, or of a cycle through the timing batches: no state may come from elsewhere).
/// Throws InputError naming batch `b` when the extra is not bool `(batch)`.
void ready_model_for_batch(NeuroBenchModel& model, const Batch& batch, bool first, std::size_t b);

/// Static metrics on the model as it is before the first batch.
void static_pass(const PassInput& in, const std::vector<std::unique_ptr<StaticMetric>>& metrics,
                 RunState& state);
/// The workload pass: every batch pre-processed, inferred with hooks, post-processed, and
/// given to the workload metrics; then their run values.
void workload_pass(const PassInput& in, const std::vector<std::unique_ptr<WorkloadMetric>>& metrics,
                   const RunOptions& options, RunState& state);
/// The timing pass (see TimingOptions) and the timing metrics' values.
void timing_pass(const PassInput& in, const std::vector<std::unique_ptr<TimingMetric>>& metrics,
                 const TimingOptions& options, RunState& state);
/// The timing pass's measurements, on this process's shard of the timing batches; warnings
/// about them go to `results`. `startup`: load the model again for StartupTime.
[[nodiscard]] Timings measure_timings(
    const PassInput& in, const TimingOptions& options, bool startup, Results& results,
    const std::vector<std::pair<std::string, PlatformSampling>>& platform = {});
/// What the timing metrics of `metrics` ask the platform sampler for (platform_sampling()), by
/// metric name.
[[nodiscard]] std::vector<std::pair<std::string, PlatformSampling>> platform_requests(
    const std::vector<std::unique_ptr<TimingMetric>>& metrics);
/// `_run.platform` (each platform metric's records) and a warning for each source a metric that
/// has a value could not read.
void record_platform(const Timings& t, RunState& state);
/// `_run.timing`: the settings asked for, the runs made and whether max_time cut them short.
void record_timing(const TimingOptions& options, bool startup, const Timings& t,
                   Results& results);
/// True when a timing metric of `metrics` needs fresh loads of the model file.
[[nodiscard]] bool needs_startup_runs(const std::vector<std::unique_ptr<TimingMetric>>& metrics);

/// The workload pass of a sharded run (docs/distributed.md): this rank's shard of the batches,
/// then one exchange of the metric states through `group`, merged in rank order into every
/// rank's metrics, so that every rank ends with the values of the whole data set. Metrics that
/// are not mergeable() fail. Throws what a rank threw (DistributedError on the other ranks).
/// `refused`: what this rank threw before the pass (`--strict` on NaN in its shard), sent in
/// place of its shard's states, so that every rank stops naming it.
void sharded_workload_pass(const PassInput& in,
                           const std::vector<std::unique_ptr<WorkloadMetric>>& metrics,
                           const RunOptions& options, RunState& state, ProcessGroup& group,
                           std::exception_ptr refused = nullptr);
/// The timing pass of a sharded run: every rank times its shard, then one exchange; the timing
/// metrics are computed on every rank's runs together (Throughput: the ranks' rates added), and
/// each rank's own values go in `_run.distributed.ranks`.
void sharded_timing_pass(const PassInput& in,
                         const std::vector<std::unique_ptr<TimingMetric>>& metrics,
                         const TimingOptions& options, RunState& state, ProcessGroup& group);

}  // namespace neurobench::detail
