// SPDX-License-Identifier: Apache-2.0
// Unit and direction of a flattened key: from the results files' own descriptions
// (`_metrics`), else from the legacy table (legacy_metric_table.cpp).
#include <neurobench/reporters/metric_info.hpp>

namespace neurobench {

namespace {

// The `_metrics` entry that `key` belongs to: the metric named `key`, or the one whose name
// followed by a dot starts it. Names may hold dots themselves, so the longest name wins.
const MetricDescription* owner(const RunResults& run, std::string_view key) {
  const MetricDescription* best = nullptr;
  for (const auto& d : run.descriptions) {
    const std::string_view name = d.name;
    const bool owns =
        key == name || (key.size() > name.size() && key.compare(0, name.size(), name) == 0 &&
                        key[name.size()] == '.');
    if (owns && (best == nullptr || name.size() > best->name.size())) best = &d;
  }
  return best;
}

}  // namespace

std::optional<MetricInfo> described_metric_info(const RunResults& run, std::string_view key) {
  const MetricDescription* d = owner(run, key);
  if (d == nullptr) return std::nullopt;
  const std::string_view sub = key.size() > d->name.size() ? key.substr(d->name.size() + 1) : "";
  const ValueDescription v = d->describe_key(sub);
  return MetricInfo{v.unit, v.better};
}

MetricInfo metric_info(const RunResults& run, std::string_view key) {
  if (auto info = described_metric_info(run, key)) return *info;
  return legacy_metric_info(key);
}

MetricInfo metric_info(const std::vector<RunResults>& runs, std::string_view key) {
  for (const auto& run : runs) {
    if (auto info = described_metric_info(run, key)) return *info;
  }
  return legacy_metric_info(key);
}

}  // namespace neurobench
