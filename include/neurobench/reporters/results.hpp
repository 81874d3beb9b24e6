// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

#include <neurobench/benchmark.hpp>

namespace neurobench {

/// Formats of a results file.
enum class Format {
  Json,  ///< A flat object keyed by metric name (failed metrics: null).
  Csv,   ///< A header row of keys and one row of values; nested values as `Metric.key`.
  Text,  ///< `key: value` lines.
};

/// The format implied by a file name's extension (.json, .csv, .txt); UsageError otherwise.
[[nodiscard]] Format format_for(const std::filesystem::path& path);

/// Renders results in a format.
[[nodiscard]] std::string render(const Results& results, Format format);

/// A readable table of the results, for a terminal.
[[nodiscard]] std::string render_table(const Results& results);

/// Writes `contents` to `path` whole or not at all: into a temporary file beside it, then
/// renamed into place. Throws InputError naming the path when it cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

/// Saves results to `path` in `format`, atomically.
void save_results(const Results& results, const std::filesystem::path& path, Format format);

}  // namespace neurobench
