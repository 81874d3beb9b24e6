// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/reporters/run_results.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// What the reports know about a (flattened) metric key: how to label its value and which way
/// is an improvement.
struct MetricInfo {
  std::string unit;              ///< "ms", "bytes", "fraction", "ops/sample", ...; empty if none.
  Better better = Better::None;  ///< Which way is an improvement.
};

/// What `run`'s `_metrics` says about a flattened key such as `SpikeRate` or `DenseMACs.MACs`:
/// the entry of the metric the key belongs to (the longest metric name that is the key or
/// a dotted prefix of it), then, for a key of an object value, MetricDescription::describe_key.
/// Nothing when `_metrics` does not describe that metric (or the file has no `_metrics`).
[[nodiscard]] std::optional<MetricInfo> described_metric_info(const RunResults& run,
                                                              std::string_view key);

/// Unit and direction of a flattened key in `run`: from the run's `_metrics`, else from the
/// legacy table (legacy_metric_info). Reports and comparisons use this, so a user's own metric
/// described in `_metrics` gets its unit, colours and regression gate.
///
///     neurobench::MetricInfo info = neurobench::metric_info(run, "SpikeRate");
[[nodiscard]] MetricInfo metric_info(const RunResults& run, std::string_view key);

/// Unit and direction of a flattened key across runs: from the first of `runs` whose
/// `_metrics` describes the key's metric, else from the legacy table. Multi-run reports use
/// this.
[[nodiscard]] MetricInfo metric_info(const std::vector<RunResults>& runs, std::string_view key);

/// The fallback for results files written before `_metrics` existed: the units and directions
/// the built-in metrics declare (their MetricDescription, as `neurobench list` shows it), keyed
/// by name, such as `ClassificationAccuracy` (fraction, higher is better) or
/// `Latency.batch_p90_ms` (ms, lower is better). Other metrics have no unit and no direction.
/// Never reads a results file's descriptions.
[[nodiscard]] MetricInfo legacy_metric_info(std::string_view key);

/// The legacy table's answer for a flattened key (legacy_metric_info), kept for code written
/// before `_metrics`: it knows only the built-in metrics. Prefer metric_info(run, key).
[[nodiscard]] inline MetricInfo metric_info(std::string_view key) {
  return legacy_metric_info(key);
}

}  // namespace neurobench
NEUROBENCH_API_END
