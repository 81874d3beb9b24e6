// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

struct Results;
struct RunResults;

/// A format of the results files `neurobench run` writes. Its name is the flag (`--json FILE`),
/// the config key (`"outputs": {"json": FILE}`) and the argument of render() and
/// save_results(); its extensions let a file name say the format (results_format_for()).
struct ResultsFormat {
  std::string name;                     ///< `json`, `csv`, `text`.
  std::vector<std::string> extensions;  ///< Lower case, with the dot; the first is the usual.
  std::string description;              ///< What a file holds, for help texts: `JSON`.
  std::string (*write)(const Results& results) = nullptr;  ///< The file's text.
};

/// A format of the reports `neurobench report` writes: `--format NAME`, or the extension of
/// `-o FILE`.
struct ReportFormat {
  std::string name;                     ///< `html`, `markdown`.
  std::vector<std::string> extensions;  ///< Lower case, with the dot; the first is the usual.
  std::string description;              ///< What a file holds, for messages: `HTML`.
  std::string (*write)(const std::vector<RunResults>& runs) = nullptr;  ///< The report.
};

/// Every results format, in the order the command line lists them: `json` (render_json()),
/// `csv` (render_csv()), `text` (render_text()).
[[nodiscard]] const std::vector<ResultsFormat>& results_formats();
/// The results format called `name`, or whose extension is `name` without its dot (`txt`),
/// ignoring case. Throws UsageError listing the formats when there is none.
[[nodiscard]] const ResultsFormat& results_format(std::string_view name);
/// The results format that the extension of `path` names (`.json`, `.csv`, `.txt`, `.text`),
/// ignoring case. Throws UsageError naming the path and the extensions when there is none.
[[nodiscard]] const ResultsFormat& results_format_for(const std::filesystem::path& path);

/// Every report format: `html` (render_html_report()), `markdown`
/// (render_markdown_report()).
[[nodiscard]] const std::vector<ReportFormat>& report_formats();
/// The report format called `name`, or whose extension is `name` without its dot (`md`),
/// ignoring case. Throws UsageError listing the formats when there is none.
[[nodiscard]] const ReportFormat& report_format(std::string_view name);
/// The report format that the extension of `path` names (`.html`, `.htm`, `.md`, `.markdown`),
/// ignoring case. Throws UsageError naming the path and the extensions when there is none.
[[nodiscard]] const ReportFormat& report_format_for(const std::filesystem::path& path);

}  // namespace neurobench
NEUROBENCH_API_END
