// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <neurobench/metrics/description.hpp>

namespace neurobench {

/// One benchmark run's results, read back from a results file (`neurobench run --json`), ready
/// for a report or a comparison. See docs/reports.md.
struct RunResults {
  std::string label;   ///< Names the run in reports; unique within a set of runs.
  std::string source;  ///< Where the results came from (a path), for messages.
  /// Metric name -> number, object of numbers (nested objects allowed) or null (a failed
  /// metric), in the file's order. Never holds a `_` key: those are metadata.
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  nlohmann::ordered_json run = nullptr;          ///< The file's `_run` object, or null.
  nlohmann::ordered_json environment = nullptr;  ///< The file's `_environment` object, or null.
};

/// Reads run results from a parsed results document. Accepts the flat object written by
/// `neurobench run --json` (with or without `_run`/`_environment`) and `{"results": {...}}`.
/// Throws InputError naming `source` when the document is not an object, holds no metric, or
/// has a value that is not a number, an object of numbers or null.
[[nodiscard]] RunResults parse_run_results(const nlohmann::ordered_json& document,
                                           std::string label, const std::string& source);

/// Reads a results file. The label defaults to the file's stem (`out/cnn.json` -> `cnn`).
/// Throws InputError naming the file when it is missing, unreadable, not JSON or of the wrong
/// shape.
///
///     neurobench::RunResults cnn = neurobench::load_run_results("cnn.json");
[[nodiscard]] RunResults load_run_results(const std::filesystem::path& path,
                                          std::string label = "");

/// Reads several results files, labelled by `labels` (one per file) or by their stems when
/// `labels` is empty; duplicate labels are made unique (see make_labels_unique). Throws
/// UsageError when `paths` is empty or `labels` has another length, InputError as above.
[[nodiscard]] std::vector<RunResults> load_run_results(
    const std::vector<std::filesystem::path>& paths, const std::vector<std::string>& labels = {});

/// Makes labels unique: a label shared by several runs becomes `folder/label` (the source's
/// parent folder) when that tells them apart, else gets a suffix ` (2)`, ` (3)`, ...; an empty
/// label becomes `run N`.
void make_labels_unique(std::vector<RunResults>& runs);

/// What the report knows about a (flattened) metric key.
struct MetricInfo {
  std::string unit;              ///< "ms", "bytes", "fraction", "ops/sample", ...; empty if none.
  Better better = Better::None;  ///< Which way is an improvement.
};

/// Unit and direction of a flattened key such as `ClassificationAccuracy` or
/// `Latency.batch_p90_ms` (ms, lower is better). Unknown metrics have no unit and no direction.
[[nodiscard]] MetricInfo metric_info(std::string_view key);

/// One value of a flattened results object.
struct FlatValue {
  /// Whether a value is there.
  enum class State {
    Number,   ///< `number` holds it.
    Failed,   ///< The metric is null in the file: it failed.
    Missing,  ///< The key is absent from the file.
  };
  std::string key;  ///< `Metric` or `Metric.key` (nested objects joined with dots).
  State state = State::Missing;
  double number = 0.0;
};

/// Flattens a metrics object into `Metric.key` values, in order (objects are expanded, so an
/// empty object gives nothing).
[[nodiscard]] std::vector<FlatValue> flatten_metrics(const nlohmann::ordered_json& metrics);

/// The value of a flattened key in one run (State::Missing when absent).
[[nodiscard]] FlatValue lookup(const RunResults& run, std::string_view key);

/// Renders one self-contained HTML5 page comparing runs side by side: every metric with the
/// difference to the first run, each run's environment, and inline SVG charts (activation
/// sparsity by layer, synaptic operations, latency distribution, accuracy against operations).
/// No JavaScript and no external resource. Throws UsageError when `runs` is empty.
[[nodiscard]] std::string render_html_report(const std::vector<RunResults>& runs);

/// Renders Markdown for a pull request: one row per run in the layout of NeuroBench's
/// leaderboards (correctness metric, footprint, connection sparsity, activation sparsity,
/// dense, effective MACs, effective ACs), then every other metric with differences to the first
/// run. Throws UsageError when `runs` is empty.
[[nodiscard]] std::string render_markdown_report(const std::vector<RunResults>& runs);

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
/// keys first). A change from 0 to a non-zero value in the worse direction is a regression
/// whatever the threshold; missing and failed values never are. Throws UsageError when the
/// options are invalid or a `metrics` prefix matches no key in either run.
[[nodiscard]] std::vector<ComparisonRow> compare(const RunResults& a, const RunResults& b,
                                                 const CompareOptions& options = {});

/// True when any row is a regression.
[[nodiscard]] bool has_regression(const std::vector<ComparisonRow>& rows);

/// A terminal table of a comparison: aligned columns with units, both values, the absolute and
/// percent difference and a marker on regressions, then a one-line summary.
[[nodiscard]] std::string render_comparison(const std::vector<ComparisonRow>& rows,
                                            const RunResults& a, const RunResults& b,
                                            const CompareOptions& options = {});

/// A number as reports show it: integers as is below 1e6, 3 significant digits in scientific
/// notation from 1e6 or below 1e-3 (`1.9e6`), else up to 6 significant digits.
[[nodiscard]] std::string format_number(double value);

}  // namespace neurobench
