// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace neurobench::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitMetricFailed = 1;
inline constexpr int kExitUsage = 2;

/// The options of `neurobench run`.
struct RunArgs {
  std::string config;  ///< Optional JSON config; flags given with it override its values.
  std::string model;
  std::string data;
  int64_t batch_size = 64;
  std::vector<std::string> static_metrics;
  std::vector<std::string> workload_metrics;
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
