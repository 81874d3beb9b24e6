// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <neurobench/export.hpp>
#include <neurobench/metrics/description.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// One value of a flattened results object.
struct FlatValue {
  /// Whether a value is there.
  enum class State {
    Number,   ///< `number` holds it: finite, or NaN or an infinity ("NaN" etc. in the file).
    Failed,   ///< The metric is null in the file: it failed.
    Missing,  ///< The key is absent from the file.
    /// The metric is null and `_run.unavailable` names it: it cannot be measured where the run
    /// ran (no RAPL, no sensors: docs/metrics.md, "Unavailable"), which is not a failure.
    Unavailable,
  };
  std::string key;  ///< `Metric` or `Metric.key` (nested objects joined with dots).
  State state = State::Missing;
  double number = 0.0;
};

/// One session of an FSCIL results file (`neurobench fscil`, docs/fscil.md), as
/// `_fscil.sessions` holds it.
struct FscilSessionEntry {
  int64_t session = 0;  ///< 0: the base session; then 1, 2, ...
  std::string name;     ///< `base`, or the session's name (its language).
  int64_t classes = 0;  ///< The classes seen so far.
  int64_t samples = 0;  ///< The samples of the evaluation on every class seen so far.
  /// That evaluation's metrics (ClassificationAccuracy, ActivationSparsity,
  /// SynapticOperations, ...) in the form of RunResults::metrics: numbers, "NaN", ..., null
  /// (failed) or objects of these.
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  /// The accuracy on the new classes alone (every incremental class so far): State::Number;
  /// State::Failed when it failed (null in an incremental session); State::Missing for the
  /// base session, which has none. Its key is `new_classes_accuracy`.
  FlatValue new_classes_accuracy;
  int64_t query_samples = 0;  ///< The samples of the new-classes evaluation (0: none).
};

/// The per-session part of an FSCIL results file: its `_fscil` object.
struct FscilRun {
  int64_t base_classes = 0;                 ///< The base session's classes.
  std::vector<FscilSessionEntry> sessions;  ///< In the file's order: the base session first.
};

/// One benchmark run's results, read back from a results file (`neurobench run --json`), ready
/// for a report or a comparison. See docs/reports.md.
struct RunResults {
  std::string label;   ///< Names the run in reports; unique within a set of runs.
  std::string source;  ///< Where the results came from (a path), for messages.
  /// Metric name -> number, "NaN", "Infinity" or "-Infinity" (a number that is not finite),
  /// object of these (nested objects allowed) or null (a failed metric), in the file's order.
  /// Never holds a `_` key: those are metadata.
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  nlohmann::ordered_json run = nullptr;          ///< The file's `_run` object, or null.
  nlohmann::ordered_json environment = nullptr;  ///< The file's `_environment` object, or null.
  /// The file's `_metrics`: what each metric's value means (unit, direction, keys), in the
  /// file's order. Empty for files written before `_metrics` existed; see metric_info().
  std::vector<MetricDescription> descriptions;
  /// The file's `_fscil`, when it is the results file of an FSCIL run: every session's
  /// values (the metrics above are their means). Reports show it as a table and a chart;
  /// compare() leaves it out, compare_fscil_sessions() compares it.
  std::optional<FscilRun> fscil;
};

/// Reads run results from a parsed results document. Accepts the flat object written by
/// `neurobench run --json` (with or without `_run`/`_environment`/`_metrics`) and
/// `{"results": {...}}`. Throws InputError naming `source` when the document is not an object,
/// holds no metric, has a value that is not a number, "NaN", "Infinity", "-Infinity", an
/// object of these or null, or has a malformed `_metrics` (the message names the entry:
/// `_metrics.SpikeRate`) or `_fscil` (see parse_fscil_run). Linear in the size of the document,
/// at any depth.
[[nodiscard]] RunResults parse_run_results(const nlohmann::ordered_json& document,
                                           std::string label, const std::string& source);

/// Reads the `_fscil` object of an FSCIL results file (docs/fscil.md): `base_classes` and
/// `sessions`, each with `session`, `name`, `classes`, `samples`, `values` (as a run's
/// metrics), `new_classes_accuracy` (a number, "NaN", ..., or null) and `query_samples`; other
/// keys (`features`, `readout`, `failures`, ...) are left out. Throws InputError naming `source`
/// and the entry at fault (`_fscil.sessions[2].values`) when one is absent or of the wrong
/// type.
[[nodiscard]] FscilRun parse_fscil_run(const nlohmann::ordered_json& fscil,
                                       const std::string& source);

/// The largest results file load_run_results() reads: 256 MiB.
inline constexpr std::uint64_t kMaxResultsFileBytes = std::uint64_t{256} << 20;

/// Reads a results file. The label defaults to the file's stem (`out/cnn.json` -> `cnn`).
/// Throws InputError naming the file when it is missing, unreadable, not a regular file (a
/// directory, a FIFO or a device such as /dev/zero is refused before it is opened), larger than
/// kMaxResultsFileBytes, not JSON, nested more than 64 deep, holds a number beyond a double
/// (`1e400`; the message gives line and column) or is of the wrong shape.
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

/// Flattens a metrics object into `Metric.key` values, in order (objects are expanded, so an
/// empty object gives nothing).
[[nodiscard]] std::vector<FlatValue> flatten_metrics(const nlohmann::ordered_json& metrics);

/// The value of a flattened key in one run (State::Missing when absent).
[[nodiscard]] FlatValue lookup(const RunResults& run, std::string_view key);

}  // namespace neurobench
NEUROBENCH_API_END
