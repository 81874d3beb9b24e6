// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <neurobench/errors.hpp>

// Exit statuses are the library's (kExitOk, kExitMetricFailed, kExitError in errors.hpp).
namespace neurobench::cli {

/// The options of `neurobench run`.
struct RunArgs {
  std::string config;  ///< Optional JSON config; flags given with it override its values.
  std::string model;
  std::string data;
  int64_t batch_size = 64;
  std::vector<std::string> static_metrics;
  std::vector<std::string> workload_metrics;
  std::vector<std::string> metrics;  ///< Any metric; placed as static or workload by name.
  std::vector<std::string> pre;
  std::vector<std::string> post;
  bool stepwise = false;
  std::vector<std::string> activation_modules;
  std::vector<std::string> connection_modules;
  std::string json_out;
  std::string csv_out;
  std::string text_out;
  bool quiet = false;
  bool verbose = false;
  std::optional<std::uint64_t> shuffle_seed;
  int threads = 1;
  // The timing pass (Latency, InferenceTime, Throughput, StartupTime): see TimingOptions.
  int64_t warmup = 3;
  int64_t runs = 0;
  double min_time = 1.0;
  int64_t latency_batch_size = 0;
  int64_t startup_runs = 5;
};

/// Adds the `run` subcommand, filling `args`.
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
/// The options of `run` merged over its config file, if one was given.
[[nodiscard]] RunArgs resolve_run_args(const CLI::App& run, const RunArgs& command_line);
/// Runs a benchmark; returns the exit status.
int run_command(const RunArgs& args);
/// Prints every registered metric and processor; returns the exit status.
int list_command(std::ostream& out);

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

/// The options of `neurobench compare`.
struct CompareArgs {
  std::string a;                     ///< The baseline results file.
  std::string b;                     ///< The results file compared with it.
  std::string fail_above = "5%";     ///< Regression threshold: `5%` or `5` (percent).
  std::vector<std::string> metrics;  ///< Key prefixes to compare; all when empty.
};

/// Adds the `compare` subcommand, filling `args`.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);
/// Prints a comparison of two results files; returns 1 when a metric regressed past the
/// threshold, 0 otherwise.
int compare_command(const CompareArgs& args, std::ostream& out);

}  // namespace neurobench::cli
