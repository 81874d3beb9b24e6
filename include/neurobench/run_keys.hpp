// SPDX-License-Identifier: Apache-2.0
#pragma once

// The keys of a run, in one table: each config key with its flag of `neurobench run`, its help
// text, the kind of value it takes and whether a suite may set it. The config's reader and
// writer, the command's flags and --help, the reference table of docs/cli.md and neurobench_cpp
// all read it. Plain data: no LibTorch header.
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The kind of value a run key takes, which says how each source reads it.
enum class RunKeyValue {
  Path,        ///< A file: relative paths from the config's folder (a flag's: the working one).
  Boolean,     ///< `true` or `false`; a flag without a value.
  Integer,     ///< A whole number in the key's range (BenchmarkConfig::number_range()).
  Seconds,     ///< A number of seconds in the key's range.
  Text,        ///< A string.
  Device,      ///< `cpu`, `cuda`, `cuda:N` or `lazy` (parse_device()).
  Names,       ///< A list of names; a flag's comma-separated.
  Metrics,     ///< Metrics: `Name` or `{"name", "options"}`; a flag's `Name:key=value,...`.
  Processors,  ///< Processors, as metrics.
  Dataset,     ///< A data set by kind: `{"kind", "path", options...}` or `KIND:PATH`.
  Outputs,     ///< Results files by format: `{"json": FILE, ...}`; flags `--json FILE`, ...
  Options,     ///< `key=value,...` (a flag of the command line alone).
  Choice,      ///< One of a few words (RunKey::choices).
};

/// One key of a run.
struct RunKey {
  /// The config key (`batch_size`); empty for a flag of the command line alone (`--subset`).
  std::string_view key;
  /// `neurobench run`'s flag (`--batch-size`), or empty: `outputs` has one per results format
  /// (`--json`, `--csv`, `--text`: results_formats()).
  std::string_view flag;
  std::string_view short_flag;  ///< `-q`, or empty.
  RunKeyValue value = RunKeyValue::Text;
  std::string_view value_name;  ///< What --help shows for the value: `INT`, `SECONDS`, `PATH`.
  std::string_view help;        ///< One line: what it does.
  bool suite_may_set = true;    ///< A suite's entries may set it (docs/suites.md).
  std::string_view choices = {};  ///< A Choice's words, comma-separated: `auto,lines,off`.
};

/// Every key of a run, in the order configs are written.
[[nodiscard]] const std::vector<RunKey>& run_keys();
/// The words of a Choice key (RunKey::choices split at its commas: `auto`, `lines`, `off`);
/// empty for any other key.
[[nodiscard]] std::vector<std::string> run_key_choices(const RunKey& key);
/// The key with config key `key`, or nullptr.
[[nodiscard]] const RunKey* find_run_key(std::string_view key);
/// The table as Markdown (config key, flag, value, default, what it does): the reference table
/// of docs/cli.md, "Every key of a run".
[[nodiscard]] std::string run_keys_markdown();

}  // namespace neurobench
NEUROBENCH_API_END
