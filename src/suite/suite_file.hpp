// SPDX-License-Identifier: Apache-2.0
// A suite file (docs/suites.md): runs named as the cross product of axes of partial
// `neurobench run` configs, with repeats and a baseline. Private to `neurobench suite`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <neurobench/config.hpp>
#include <neurobench/json.hpp>

namespace neurobench::suite {

/// One group of repeats: one point of the axes' cross product.
struct SuiteGroup {
  /// The entries' names joined with `/`, in axis order (models, datasets, settings):
  /// `cnn/b250`. Also the group's folder under OUT/runs.
  std::string id;
  /// The merged config: paths absolute (or as the files wrote them when absolute), no
  /// `outputs`, no notes.
  BenchmarkConfig config;
  /// The config asks for a timing metric (timing_metrics(): Latency, InferenceTime,
  /// Throughput, StartupTime, ...): its runs run alone.
  bool timed = false;
};

/// A suite file, read and checked.
struct SuiteFile {
  std::filesystem::path file;             ///< Where it was read from.
  std::string name;                       ///< `name`; the file's stem when absent.
  std::vector<SuiteGroup> groups;         ///< The cross product, models outermost.
  int repeats = 1;                        ///< `repeats`: runs per group, 1 to kMaxRepeats.
  std::string baseline;                   ///< `baseline`: a group id; the first group when absent.
  std::optional<double> timeout_seconds;  ///< `timeout_seconds`: per run; none when absent.
  int jobs = 1;                           ///< `jobs`: runs at once, 1 to kMaxJobs.
};

/// The most repeats a suite may ask for.
inline constexpr int kMaxRepeats = 10000;
/// The most runs (groups x repeats) a suite may have, checked before anything is expanded:
/// at a second or more a run (a process that loads LibTorch and the model), hours on one core;
/// the plan, the run records and the summary's results stay in memory.
inline constexpr std::uint64_t kMaxRuns = 10000;
/// The longest entry name, in characters (an entry name is a folder name).
inline constexpr std::size_t kMaxEntryNameLength = 100;
/// The most runs at once.
inline constexpr int kMaxJobs = 1024;
/// The longest per-run timeout, in seconds: 30 days.
inline constexpr double kMaxTimeoutSeconds = 30.0 * 86400;

/// The suite in `json`, read from `file` (relative paths are taken from its folder). Throws
/// UsageError naming `file` and the key at fault for an unknown key, a value of the wrong type
/// or out of range, an empty or missing `models`, an empty `datasets` or `settings`, an entry
/// name that cannot be a folder name (or is longer than kMaxEntryNameLength), a bad entry (a key
/// a run config does not have, a `config` that cannot be read or is not a valid config,
/// `outputs`, both `data` and `dataset`), more than kMaxRuns runs (counted before anything is
/// expanded, naming the axes' sizes), a merged run without a model, data or
/// metrics, or with a name `neurobench run` would refuse before loading the model (an unknown
/// metric, processor or data set kind, a bad option of one, a data set without a required
/// option such as `subset`), or a `baseline` that is not one of the groups.
[[nodiscard]] SuiteFile parse_suite(const Json& json, const std::filesystem::path& file);

/// Reads a suite file (JSON, comments allowed). Throws InputError naming the file when it is
/// missing, not a regular file or not JSON, and UsageError as parse_suite().
[[nodiscard]] SuiteFile read_suite_file(const std::filesystem::path& file);

}  // namespace neurobench::suite
