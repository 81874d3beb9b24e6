// SPDX-License-Identifier: Apache-2.0
// `neurobench report`: an HTML page or Markdown tables comparing results files.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/report.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

CLI::App* add_report_command(CLI::App& app, ReportArgs& a) {
  CLI::App* report = app.add_subcommand(
      "report",
      "Write an HTML page (charts, no scripts) or Markdown tables comparing results "
      "files written by 'run --json'");
  report->add_option("results", a.files, "results files (JSON); the first is the baseline")
      ->required();
  report->add_option("-o,--output", a.output,
                     "write the report here (atomically); without it, print it on stdout")
      ->check(output_path_text());
  report->add_option("--format", a.format,
                     "html or markdown; default: from the extension of -o (.html, .md), "
                     "markdown on stdout");
  report
      ->add_option("--labels", a.labels,
                   "names of the runs, comma-separated, one per file (default: file names "
                   "without .json)")
      ->delimiter(',');
  return report;
}

namespace {

enum class ReportFormat { Html, Markdown };

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

ReportFormat report_format(const ReportArgs& a) {
  if (!a.format.empty()) {
    const std::string f = lower(a.format);
    if (f == "html" || f == "htm") return ReportFormat::Html;
    if (f == "markdown" || f == "md") return ReportFormat::Markdown;
    throw UsageError(fmt::format("--format: unknown format '{}' (use html or markdown)", a.format));
  }
  if (a.output.empty()) return ReportFormat::Markdown;
  const std::string ext = lower(std::filesystem::path(a.output).extension().string());
  if (ext == ".html" || ext == ".htm") return ReportFormat::Html;
  if (ext == ".md" || ext == ".markdown") return ReportFormat::Markdown;
  throw UsageError(fmt::format(
      "{}: cannot tell the report format from the extension '{}': give --format html or "
      "--format markdown",
      a.output, ext));
}

}  // namespace

int report_command(const ReportArgs& a, std::ostream& out) {
  const ReportFormat format = report_format(a);
  std::vector<std::filesystem::path> paths(a.files.begin(), a.files.end());
  if (!a.output.empty()) {
    // Before reading anything: a bad -o fails fast, and the report never overwrites an input.
    try {
      (void)check_output_file(a.output);
    } catch (const InputError& e) {
      throw InputError(fmt::format("-o: {}", e.what()));
    }
    std::vector<NamedFile> inputs;
    for (const auto& p : paths) inputs.push_back({p, "a results file"});
    check_distinct_files({{a.output, "-o"}}, inputs);
  }
  const std::vector<RunResults> runs = load_run_results(paths, a.labels);
  const std::string text =
      format == ReportFormat::Html ? render_html_report(runs) : render_markdown_report(runs);
  if (a.output.empty()) {
    out << text;
    out.flush();
    return kExitOk;
  }
  write_output_file(a.output, text);
  out << fmt::format("wrote {} ({} report of {} run{})\n", a.output,
                     format == ReportFormat::Html ? "HTML" : "Markdown", runs.size(),
                     runs.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace neurobench::cli
