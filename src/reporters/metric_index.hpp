// SPDX-License-Identifier: Apache-2.0
// The `_metrics` descriptions of runs indexed by name, for the unit and direction of every key
// of a report or comparison. Private to the reporters (src/reporters).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <neurobench/reporters/metric_info.hpp>
#include <neurobench/reporters/run_results.hpp>

namespace neurobench::detail {

/// What runs' `_metrics` say about flattened keys, as described_metric_info() and
/// metric_info() answer it, each key in a few hash lookups (a pass over every description per
/// key made reports of n metrics take time n^2). The runs must outlive the index.
class MetricIndex {
 public:
  /// Indexes `runs`, asked in this order: the first that describes a key's metric answers.
  explicit MetricIndex(const std::vector<const RunResults*>& runs);
  /// Indexes `runs` in their order.
  explicit MetricIndex(const std::vector<RunResults>& runs);

  /// The first run's description of `key`'s metric (the longest metric name that is the key or
  /// a dotted prefix of it), then MetricDescription::describe_key for the rest of the key.
  [[nodiscard]] std::optional<MetricInfo> described(std::string_view key) const;
  /// described(), else the legacy table.
  [[nodiscard]] MetricInfo info(std::string_view key) const;

 private:
  struct Described {
    const MetricDescription* metric;
    std::unordered_map<std::string_view, const ValueDescription*> keys;  // first of each name
  };
  using RunIndex = std::unordered_map<std::string_view, Described>;

  void add(const RunResults& run);
  static std::optional<MetricInfo> find(const RunIndex& index, std::string_view key);

  std::vector<RunIndex> runs_;
};

}  // namespace neurobench::detail
