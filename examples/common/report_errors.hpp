// SPDX-License-Identifier: Apache-2.0
// The example programs' error handling: one message on stderr, and the exit status of the
// `neurobench` command (2 for bad usage or input, 1 for anything else that failed).
#pragma once

#include <exception>
#include <iostream>
#include <optional>

#include <c10/util/Exception.h>

#include <CLI/CLI.hpp>

#include <neurobench/errors.hpp>

namespace neurobench::examples {

inline constexpr int kExitFailed = 1;  ///< A metric or a step failed.
inline constexpr int kExitUsage = 2;   ///< Bad usage or bad input.

/// Parses the command line. Returns the exit status to stop with (0 after --help, kExitUsage
/// after a bad option, each with CLI11's message), or nothing when the program goes on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  return std::nullopt;
}

/// Runs `body` and returns its exit status, or reports what it threw and returns kExitUsage
/// or kExitFailed.
template <class Body>
int report_errors(Body&& body) {
  try {
    return body();
  } catch (const neurobench::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const neurobench::UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace neurobench::examples
