// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/reporters/metric_info.hpp>
#include <neurobench/reporters/run_results.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Options of compare().
struct CompareOptions {
  /// A change in the worse direction larger than this percentage of the first value is a
  /// regression. Must be finite and >= 0.
  double fail_above_percent = 5.0;
  /// Compare only keys starting with one of these (ignoring case); all keys when empty. A
  /// metric that is null or a number where the other run has keys within it is compared when
  /// a prefix lies within it (`Latency` for `Latency.batch_p90`).
  std::vector<std::string> metrics;
  /// A metric that failed in the second run (null there) does not fail the comparison
  /// (comparison_failed()); by default it does. `neurobench compare --allow-failed`.
  bool allow_failed = false;
  /// A key of the first run that the second run lacks does not fail the comparison; by
  /// default it does. `neurobench compare --allow-missing`.
  bool allow_missing = false;

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
  /// Changed the worse way by more than the threshold; or NaN or infinite in the second run
  /// (`"NaN"`, `"Infinity"`, `"-Infinity"` in the file) where the first run does not hold the
  /// same, whatever the direction and the threshold.
  bool regression = false;
  /// The second run's value is null: the metric failed there.
  bool failed_in_b = false;
  /// The first run has a value (a number or null) under this key and the second none: not
  /// the key, nor a metric containing it (B's failed `Latency` covers `Latency.runs`: that
  /// row is `failed_in_b`), nor keys within it.
  bool missing_in_b = false;
};

/// Compares every numeric (or failed) key present in either run, in order of appearance (a's
/// keys first). Which way is worse comes from the runs' `_metrics` (b's, then a's; the newest
/// description), else the legacy table. A change from 0 to a non-zero value in the worse
/// direction is a regression whatever the threshold, and so is a value of b that is NaN or
/// infinite where a's is not the same; missing and failed values never are regressions but
/// are marked (`failed_in_b`, `missing_in_b`) for comparison_failed(). Time and memory are
/// linear in the number of keys.
/// Throws UsageError when the options are invalid or a `metrics` prefix matches no key in
/// either run.
[[nodiscard]] std::vector<ComparisonRow> compare(const RunResults& a, const RunResults& b,
                                                 const CompareOptions& options = {});

/// True when any row is a regression.
[[nodiscard]] bool has_regression(const std::vector<ComparisonRow>& rows);

/// True when the comparison fails as a gate: a regression, a metric failed in the second run
/// (unless `options.allow_failed`) or a key of the first run missing from the second (unless
/// `options.allow_missing`). `neurobench compare` exits 1 then.
[[nodiscard]] bool comparison_failed(const std::vector<ComparisonRow>& rows,
                                     const CompareOptions& options = {});

/// A terminal table of a comparison: aligned columns with units, both values, the absolute and
/// percent difference and a marker on regressions (`<< REGRESSION`) and on metrics failed or
/// missing in the second run (`<< FAILED in B`, `<< MISSING in B`, or `(allowed)` as `options`
/// say), then a summary: the regressions, then the failed and the missing keys, one line each.
[[nodiscard]] std::string render_comparison(const std::vector<ComparisonRow>& rows,
                                            const RunResults& a, const RunResults& b,
                                            const CompareOptions& options = {});

/// The per-session part of comparing two FSCIL results files (RunResults::fscil).
struct FscilComparison {
  /// Both runs are FSCIL results files: `rows` compares them session by session.
  bool compared = false;
  /// When only one of the runs is an FSCIL results file: why the sessions are not compared
  /// (names the other run); empty otherwise.
  std::string skipped;
  /// For each session (matched by number: A's sessions in order, then any only B has), its
  /// accuracy on all classes seen (`session 2.ClassificationAccuracy`, unit and direction of
  /// ClassificationAccuracy) and on the new classes alone (`session 2.new_classes_accuracy`,
  /// those of FscilNewClassesAccuracy), compared as compare() compares a key: the difference,
  /// the verdict by direction, regressions beyond the threshold, failed (null in B) and
  /// missing (a session or value of A that B lacks). A value neither run has gives no row.
  std::vector<ComparisonRow> rows;
  /// Sessions of the same number with other names (languages): `session 2: de in A, fr in B`.
  std::vector<std::string> renamed;
};

/// Compares two FSCIL results files session by session (see FscilComparison); `options` as
/// compare() takes them: the threshold, and `metrics` selecting ClassificationAccuracy and
/// FscilNewClassesAccuracy by prefix (a prefix matching neither selects no session value).
/// When one run or neither is an FSCIL results file, nothing is compared. Throws UsageError
/// when the options are invalid. `neurobench compare` fails the gate on these rows as on
/// compare()'s (comparison_failed()).
[[nodiscard]] FscilComparison compare_fscil_sessions(const RunResults& a, const RunResults& b,
                                                     const CompareOptions& options = {});

/// The terminal table of a session comparison, as render_comparison() writes one, under a line
/// `FSCIL sessions (...)` and the renamed sessions; `FSCIL sessions skipped: ...` when only one
/// run is an FSCIL results file; empty when neither is.
[[nodiscard]] std::string render_fscil_comparison(const FscilComparison& comparison,
                                                  const RunResults& a, const RunResults& b,
                                                  const CompareOptions& options = {});

}  // namespace neurobench
NEUROBENCH_API_END
