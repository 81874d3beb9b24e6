// SPDX-License-Identifier: Apache-2.0
// The example programs' command line. Errors after parsing are reported by the library's
// neurobench::report_errors, with the exit statuses of the `neurobench` command.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include <neurobench/errors.hpp>

namespace neurobench::examples {

/// Parses the command line. Returns the exit status to stop with (0 after --help,
/// neurobench::kExitError after a bad option, each with CLI11's message), or nothing when the
/// program goes on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitError;
  }
  return std::nullopt;
}

}  // namespace neurobench::examples
