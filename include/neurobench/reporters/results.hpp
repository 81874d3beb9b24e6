// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <neurobench/export.hpp>
#include <neurobench/results.hpp>
#include <neurobench/reporters/formats.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The environment as a JSON object (keys as the Environment fields).
[[nodiscard]] Json to_json(const Environment& environment);

/// The JSON results document: every metric value by name, in order, then, for results of a
/// Benchmark run (their environment is recorded), `_metrics` (what each value means:
/// Results::metrics), `_run` (Results::run plus samples, batches, failures, warnings and
/// `non_finite`, the flattened keys whose value is NaN or infinite) and `_environment`. Keys
/// starting with `_` are never metrics. NaN and infinities, at any depth, are written as the
/// strings "NaN", "Infinity" and "-Infinity" (null is a failed metric; see
/// docs/file-formats.md). CSV and text leave `_metrics` out and write the same words.
[[nodiscard]] Json results_document(const Results& results);

/// The results as JSON: results_document(), indented by 2 (a text that is not UTF-8 has its
/// invalid bytes written as U+FFFD, and a warning in `_run` says so).
[[nodiscard]] std::string render_json(const Results& results);
/// The results as CSV: a header row of keys and one row of values; nested values as
/// `Metric.key`; `_metrics` left out.
[[nodiscard]] std::string render_csv(const Results& results);
/// The results as `key: value` lines, an object value as JSON on its line; `_metrics` left
/// out.
[[nodiscard]] std::string render_text(const Results& results);

/// Renders results in the format called `format` (`json`, `csv`, `text`: results_formats() in
/// <neurobench/reporters/formats.hpp>). Throws UsageError for an unknown format.
[[nodiscard]] std::string render(const Results& results, std::string_view format);

/// A readable table of the results, for a terminal.
[[nodiscard]] std::string render_table(const Results& results);

/// `_run.phases` in one line, `time by phase: model load 0.0192 s, ..., workload pass 0.0381 s
/// (together 0.06 s)`; empty when the results have none (docs/cli.md). `results_written_s`,
/// when given, comes last as `results written`: the time the results files took to write, which
/// they cannot hold themselves.
[[nodiscard]] std::string render_phases(const Results& results,
                                        std::optional<double> results_written_s = std::nullopt);

/// Writes `contents` to `path` as write_output_file() does (<neurobench/io/output_file.hpp>): a
/// regular file whole or not at all, a device or FIFO in place. Its former name, kept for
/// existing callers. Throws InputError naming the path when it cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

/// Saves results to `path` in the format called `format` (as render()) with
/// write_output_file(): a regular file whole or not at all (a temporary file, then a rename), a
/// device or FIFO written in place.
void save_results(const Results& results, const std::filesystem::path& path,
                  std::string_view format);

}  // namespace neurobench
NEUROBENCH_API_END
