// SPDX-License-Identifier: Apache-2.0
#include "reporters/metric_index.hpp"

namespace neurobench::detail {

MetricIndex::MetricIndex(const std::vector<const RunResults*>& runs) {
  runs_.reserve(runs.size());
  for (const RunResults* run : runs) add(*run);
}

MetricIndex::MetricIndex(const std::vector<RunResults>& runs) {
  runs_.reserve(runs.size());
  for (const RunResults& run : runs) add(run);
}

void MetricIndex::add(const RunResults& run) {
  RunIndex index;
  index.reserve(run.descriptions.size());
  for (const MetricDescription& d : run.descriptions) {
    const auto [it, added] = index.try_emplace(d.name, Described{&d, {}});
    if (!added) continue;  // the first description of a name, as a search from the start
    for (const auto& [key, value] : d.keys) it->second.keys.try_emplace(key, &value);
  }
  runs_.push_back(std::move(index));
}

std::optional<MetricInfo> MetricIndex::find(const RunIndex& index, std::string_view key) {
  // The longest metric name that is the key or a prefix of it ending before a dot. Names may
  // hold dots themselves (`a.b` owns `a.b.c`), so try the whole key, then shorter prefixes.
  std::size_t end = key.size();
  while (true) {
    const auto it = index.find(key.substr(0, end));
    if (it != index.end()) {
      const Described& d = it->second;
      const ValueDescription& own = d.metric->value;
      if (end == key.size()) return MetricInfo{own.unit, own.better};
      // As MetricDescription::describe_key: the key, else its first part, else the metric's.
      const std::string_view sub = key.substr(end + 1);
      auto k = d.keys.find(sub);
      if (k == d.keys.end()) k = d.keys.find(sub.substr(0, sub.find('.')));
      if (k == d.keys.end()) return MetricInfo{own.unit, own.better};
      return MetricInfo{k->second->unit, k->second->better};
    }
    const std::size_t dot = key.rfind('.', end == 0 ? 0 : end - 1);
    if (dot == std::string_view::npos || end == 0) return std::nullopt;
    end = dot;
  }
}

std::optional<MetricInfo> MetricIndex::described(std::string_view key) const {
  for (const RunIndex& index : runs_) {
    if (auto info = find(index, key)) return info;
  }
  return std::nullopt;
}

MetricInfo MetricIndex::info(std::string_view key) const {
  if (auto info = described(key)) return *info;
  return legacy_metric_info(key);
}

}  // namespace neurobench::detail
