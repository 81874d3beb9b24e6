// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include <neurobench/metrics/description.hpp>

namespace neurobench {

/// What the reports know about a (flattened) metric key: how to label its value and which way
/// is an improvement.
struct MetricInfo {
  std::string unit;              ///< "ms", "bytes", "fraction", "ops/sample", ...; empty if none.
  Better better = Better::None;  ///< Which way is an improvement.
};

/// The fallback for results files written before `_metrics` existed: a fixed table of the
/// built-in metrics' units and directions, keyed by name, such as `ClassificationAccuracy`
/// (fraction, higher is better) or `Latency.batch_p90_ms` (ms, lower is better). Metrics it
/// does not know have no unit and no direction. Never reads a results file's descriptions.
[[nodiscard]] MetricInfo legacy_metric_info(std::string_view key);

/// The legacy table's answer for a flattened key (legacy_metric_info), kept for code written
/// before `_metrics`: it knows only the built-in metrics.
[[nodiscard]] inline MetricInfo metric_info(std::string_view key) {
  return legacy_metric_info(key);
}

}  // namespace neurobench
