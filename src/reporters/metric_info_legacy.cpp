// SPDX-License-Identifier: Apache-2.0
// The legacy lookup: units and directions of the built-in metrics, keyed by name, as their
// describe() declares them. Only the fallback for results files written before `_metrics`
// existed (and for metrics a file does not describe); a file's own descriptions always win
// (metric_info.cpp).
#include <neurobench/reporters/metric_info.hpp>

#include <neurobench/metrics/metric.hpp>

namespace neurobench {

MetricInfo legacy_metric_info(std::string_view key) {
  const auto dot = key.find('.');
  const std::string_view name = key.substr(0, dot);
  const MetricDescription* d = find_metric(name);
  // Built-ins only, by their exact name: a results file names a metric as it was registered.
  if (d == nullptr || d->source != "built-in" || d->name != name) return {};
  const ValueDescription v =
      d->describe_key(dot == std::string_view::npos ? std::string_view() : key.substr(dot + 1));
  return {v.unit, v.better};
}

}  // namespace neurobench
