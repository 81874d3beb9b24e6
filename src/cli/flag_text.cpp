// SPDX-License-Identifier: Apache-2.0
// The text of flags CLI11 takes as it is: numbers it converts itself (--distributed-timeout,
// suite --timeout, --jobs), checked first as every number of the project is read (docs/cli.md),
// since CLI11 would take `nan` and `inf` as doubles and `0x10` as 16; and output paths, which
// must not be empty.
#include "cli/commands.hpp"

#include <fmt/format.h>

#include "run/config_numbers.hpp"

namespace neurobench::cli {

CLI::Validator decimal_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (detail::decimal_number(text)) return {};
        return fmt::format(
            "'{}' is not a decimal number (such as 3, 0.5 or 2e-3; inf, nan and "
            "hexadecimal are not)",
            text);
      },
      "", "decimal");
}

CLI::Validator whole_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (detail::is_whole_number(text)) return {};
        return fmt::format("'{}' is not a whole number in decimal digits", text);
      },
      "", "whole");
}

CLI::Validator output_path_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "an empty path: give the file to write" : std::string();
      },
      "", "path");
}

}  // namespace neurobench::cli
