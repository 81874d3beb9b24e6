// SPDX-License-Identifier: Apache-2.0
// Unit and direction of a flattened key: from the results files' own descriptions
// (`_metrics`), else from the legacy table (metric_info_legacy.cpp).
#include <neurobench/reporters/metric_info.hpp>

#include "reporters/metric_index.hpp"

namespace neurobench {

// One key: an index of one run's descriptions (the reports index theirs once, for every key).
std::optional<MetricInfo> described_metric_info(const RunResults& run, std::string_view key) {
  return detail::MetricIndex(std::vector<const RunResults*>{&run}).described(key);
}

MetricInfo metric_info(const RunResults& run, std::string_view key) {
  return detail::MetricIndex(std::vector<const RunResults*>{&run}).info(key);
}

MetricInfo metric_info(const std::vector<RunResults>& runs, std::string_view key) {
  return detail::MetricIndex(runs).info(key);
}

}  // namespace neurobench
