// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <neurobench/reporters/metric_info.hpp>
#include <neurobench/reporters/run_results.hpp>

namespace neurobench {

/// Options of compare().
struct CompareOptions {
  /// A change in the worse direction larger than this percentage of the first value is a
  /// regression. Must be finite and >= 0.
  double fail_above_percent = 5.0;
  /// Compare only keys starting with one of these (ignoring case); all keys when empty.
  std::vector<std::string> metrics;

  /// Throws UsageError naming the field when an option is invalid.
  void validate() const;
};

/// One key compared between two runs.
struct ComparisonRow {
  std::string key;  ///< Flattened key, `Metric.key`.
  /// Unit and direction: from the second run's `_metrics`, else the first run's, else the
  /// legacy table (see metric_info()).
  MetricInfo info;
  FlatValue a;                  ///< The value in the first run.
  FlatValue b;                  ///< The value in the second run.
  bool has_difference = false;  ///< Both are numbers: `difference` is set.
  double difference = 0.0;      ///< b - a.
  /// 100 * (b - a) / |a|; unset when a is 0 and b is not (a "new" value) or a value is absent.
  bool has_percent = false;
  double percent = 0.0;
  bool regression = false;  ///< Changed the worse way by more than the threshold.
};

/// Compares every numeric (or failed) key present in either run, in order of appearance (a's
/// keys first). Which way is worse comes from the runs' `_metrics` (b's, then a's; the newest
/// description), else the legacy table. A change from 0 to a non-zero value in the worse
/// direction is a regression whatever the threshold; missing and failed values never are.
/// Throws UsageError when the options are invalid or a `metrics` prefix matches no key in
/// either run.
[[nodiscard]] std::vector<ComparisonRow> compare(const RunResults& a, const RunResults& b,
                                                 const CompareOptions& options = {});

/// True when any row is a regression.
[[nodiscard]] bool has_regression(const std::vector<ComparisonRow>& rows);

/// A terminal table of a comparison: aligned columns with units, both values, the absolute and
/// percent difference and a marker on regressions, then a one-line summary.
[[nodiscard]] std::string render_comparison(const std::vector<ComparisonRow>& rows,
                                            const RunResults& a, const RunResults& b,
                                            const CompareOptions& options = {});

}  // namespace neurobench
