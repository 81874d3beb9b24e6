// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <neurobench/config.hpp>
#include <neurobench/errors.hpp>

// Exit statuses are the library's (kExitOk, kExitMetricFailed, kExitError in errors.hpp).
namespace neurobench::cli {

/// CLI11 validators of a numeric flag's text, put before its range check: a decimal number
/// (no inf, nan or hexadecimal) and a whole number in decimal digits (flag_text.cpp).
CLI::Validator decimal_text();
CLI::Validator whole_text();
/// A CLI11 validator of an output file's path: not empty (`--json ''` once wrote nothing,
/// silently).
CLI::Validator output_path_text();

/// How `neurobench run` takes part in a sharded run (docs/distributed.md): command-line only,
/// since they describe the launch, not the benchmark.
struct DistributedArgs {
  std::string mode = "auto";  ///< `--distributed`: auto, on or off.
  double timeout_s = 300;     ///< `--distributed-timeout`: seconds a rank waits for the others.
};

/// The options of `neurobench run` as given on the command line. The config file's values
/// and the flags given are merged into a BenchmarkConfig by resolve_run_args().
struct RunArgs {
  std::string config;  ///< Optional JSON config; flags given with it override its values.
  /// The flags of config keys (run_keys()), as typed, by config key: a value's text (a path,
  /// a number, a device), each value of a list flag (`--static A,B --static C`: both texts),
  /// and the flags without a value. Each is read by its key's reader when the flags are
  /// resolved, as the config's values are.
  std::map<std::string, std::string> texts;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, bool> switches;
  std::string subset;                        ///< `--subset`: the data set's `subset` option.
  std::vector<std::string> dataset_options;  ///< `--dataset-options key=value,...`, as given.
  /// Results files by format name (`--json FILE`: results_formats()).
  std::map<std::string, std::string> outputs;
  DistributedArgs distributed;
};

/// Adds the `run` subcommand, filling `args`.
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
/// The config file, if one was given, with the flags given on the command line over it.
/// Throws UsageError when the model or the data is given by neither, `--data` and `--dataset`
/// are both given, `--subset` or `--dataset-options` is given without a data set by kind, or
/// for a bad metric, processor or data set.
[[nodiscard]] BenchmarkConfig resolve_run_args(const CLI::App& run, const RunArgs& command_line);
/// Runs the benchmark `config` describes (read from `config_file`, if not empty), sharded over
/// the processes a launcher started when `distributed` says so; returns the exit status. In a
/// sharded run only rank 0 prints the results and writes the results files.
int run_command(const BenchmarkConfig& config, const std::string& config_file,
                const DistributedArgs& distributed = {});
/// Prints every registered metric and processor, or with `keys` every key of a run
/// (run_keys_markdown()); returns the exit status.
int list_command(std::ostream& out, bool keys = false);

}  // namespace neurobench::cli

namespace neurobench::cli {

/// The options of `neurobench report`.
struct ReportArgs {
  std::vector<std::string> files;   ///< Results files (`run --json`), the first is the baseline.
  std::string output;               ///< Where to write; stdout when empty.
  std::string format;               ///< "html" or "markdown"; from `output`'s extension if empty.
  std::vector<std::string> labels;  ///< One per file; the file stems when empty.
};

/// Adds the `report` subcommand, filling `args`.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);
/// Writes an HTML or Markdown report of results files; returns the exit status.
int report_command(const ReportArgs& args, std::ostream& out);

/// The options of `neurobench convert`.
struct ConvertArgs {
  std::string nir;                  ///< The NIR graph.
  std::string out;                  ///< The TorchScript file written.
  std::string time = "snntorch";    ///< nir_time.
  std::string dt = "0.0001";        ///< nir_dt, as written.
  std::string reset = "v_reset";    ///< nir_reset.
};

/// Adds the `convert` subcommand, filling `args`.
CLI::App* add_convert_command(CLI::App& app, ConvertArgs& args);
/// Builds a NIR graph into a TorchScript file and prints what each node became; returns the
/// exit status.
int convert_command(const ConvertArgs& args, std::ostream& out);

/// The options of `neurobench compare`.
struct CompareArgs {
  std::string a;                     ///< The baseline results file.
  std::string b;                     ///< The results file compared with it.
  std::string fail_above = "5%";     ///< Regression threshold: `5%` or `5` (percent).
  std::vector<std::string> metrics;  ///< Key prefixes to compare; all when empty.
  bool allow_failed = false;         ///< A metric failed in B does not fail the comparison.
  bool allow_missing = false;        ///< A key of A missing from B does not fail it.
};

/// Adds the `compare` subcommand, filling `args`.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);
/// Prints a comparison of two results files; returns 1 when a metric regressed past the
/// threshold, or failed or is missing in B (unless allowed), 0 otherwise.
int compare_command(const CompareArgs& args, std::ostream& out);

}  // namespace neurobench::cli

namespace neurobench::cli {

/// The options of `neurobench suite` (docs/suites.md).
struct SuiteArgs {
  std::string file;              ///< The suite file.
  int jobs = 1;                  ///< `--jobs`: overrides the suite's `jobs` when given.
  double timeout_seconds = 0;    ///< `--timeout`: overrides `timeout_seconds`; 0: none.
  std::string out;               ///< `--out`: the results folder; SUITE-results when empty.
  bool rerun = false;            ///< `--rerun`: run the runs already done too.
};

/// Adds the `suite` subcommand, filling `args`.
CLI::App* add_suite_command(CLI::App& app, SuiteArgs& args);
/// Runs a suite, printing progress to `out`; returns 0 when every run succeeded, 1 when one
/// failed, 128 + the signal when SIGINT or SIGTERM stopped it. Throws UsageError and
/// InputError for a bad suite file or results folder.
int suite_command(const SuiteArgs& args, const CLI::App& command, std::ostream& out);

}  // namespace neurobench::cli

namespace neurobench::cli {

/// The options of `neurobench fscil` (docs/fscil.md).
struct FscilArgs {
  std::string config;  ///< The FSCIL config file.
  std::string json;    ///< `--json`: the results file; the config's outputs.json when empty.
  bool quiet = false;  ///< `--quiet`: no progress bars.
};

/// Adds the `fscil` subcommand, filling `args`.
CLI::App* add_fscil_command(CLI::App& app, FscilArgs& args);
/// Runs the FSCIL protocol a config describes, prints a line per session and a table, and
/// writes the results file; returns 0, or 1 when a metric failed in some session. Throws
/// UsageError and InputError for a bad config, model or data, before anything is written.
int fscil_command(const FscilArgs& args);

}  // namespace neurobench::cli
