// SPDX-License-Identifier: Apache-2.0
// The flattened values of runs (`Metric.key`), and the difference between two of them, as
// compare and the reports show it. Private to the reporters (src/reporters).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <neurobench/metrics/description.hpp>
#include <neurobench/reporters/run_results.hpp>

namespace neurobench::detail {

/// The flattened values of one run, by key.
class FlatRun {
 public:
  explicit FlatRun(const RunResults& run);
  /// The value of `key`; State::Missing when the run has none.
  [[nodiscard]] FlatValue get(const std::string& key) const;
  /// The number of `key`, when it is a finite one (charts and timings leave NaN out).
  [[nodiscard]] std::optional<double> number(const std::string& key) const;
  /// Every value, in the file's order.
  [[nodiscard]] const std::vector<FlatValue>& values() const { return values_; }

 private:
  std::vector<FlatValue> values_;
  std::unordered_map<std::string, std::size_t> index_;
};

/// One FlatRun per run, in order.
[[nodiscard]] std::vector<FlatRun> flat_runs(const std::vector<RunResults>& runs);

/// Every flattened key of the runs, in order of first appearance.
[[nodiscard]] std::vector<std::string> union_keys(const std::vector<FlatRun>& runs);

/// True when `v` is a finite number.
[[nodiscard]] bool is_finite(const FlatValue& v);
/// True when `v` is NaN or an infinity (written "NaN", "Infinity", "-Infinity" in the file).
[[nodiscard]] bool is_non_finite(const FlatValue& v);
/// True when both are NaN, or both the same infinity.
[[nodiscard]] bool same_non_finite(const FlatValue& a, const FlatValue& b);

/// The difference of b to a, as reports show it.
struct Difference {
  bool available = false;  ///< Both are finite numbers.
  double abs = 0;
  bool has_percent = false;
  double percent = 0;
  enum class Verdict { Same, Better, Worse, Neutral } verdict = Verdict::Neutral;
};

/// The difference of `b` to `a`, judged by `better`.
[[nodiscard]] Difference difference(const FlatValue& a, const FlatValue& b, Better better);

/// A difference's percentage: `+25.0%`, `0%`, or `new` when a was 0 and b is not.
[[nodiscard]] std::string percent_text(const Difference& d);

/// A value as text: the number (NaN, Infinity, -Infinity as format_number() shows them),
/// `unavailable`, else `failed` or `missing` as given.
[[nodiscard]] std::string value_text(const FlatValue& v, const char* failed, const char* missing);

}  // namespace neurobench::detail
