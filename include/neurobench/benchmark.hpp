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
#include <neurobench/results.hpp>
#include <neurobench/run_options.hpp>

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
  /// Whether a run of these metrics with `options` reads its data: always, but for static
  /// metrics alone (no workload or timing metric, no profile) with
  /// RunOptions::static_only_reads_no_data.
  [[nodiscard]] bool reads_data(const RunOptions& options) const;
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
