// SPDX-License-Identifier: Apache-2.0
// `neurobench report`: an HTML page or Markdown tables comparing results files.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/formats.hpp>
#include <neurobench/reporters/report.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

namespace {

// "html or markdown", from the table of report formats.
std::string format_choices() {
  std::string text;
  const auto& formats = report_formats();
  for (std::size_t i = 0; i < formats.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + formats[i].name;
  }
  return text;
}

// ".html, .md": each format's usual extension.
std::string extension_choices() {
  std::string text;
  for (const auto& f : report_formats()) {
    text += (text.empty() ? "" : ", ") + f.extensions.front();
  }
  return text;
}

// --format names it (a name or an extension: html, htm, markdown, md); else the extension of
// -o; else, on stdout, Markdown.
const ReportFormat& chosen_format(const ReportArgs& a) {
  if (!a.format.empty()) {
    try {
      return report_format(a.format);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--format: {}", e.what()));
    }
  }
  if (a.output.empty()) return report_format("markdown");
  try {
    return report_format_for(a.output);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: give --format {}", e.what(), format_choices()));
  }
}

}  // namespace

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
                     format_choices() + "; default: from the extension of -o (" +
                         extension_choices() + "), markdown on stdout");
  report
      ->add_option("--labels", a.labels,
                   "names of the runs, comma-separated, one per file (default: file names "
                   "without .json)")
      ->delimiter(',');
  return report;
}

int report_command(const ReportArgs& a, std::ostream& out) {
  const ReportFormat& format = chosen_format(a);
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
  const std::string text = format.write(runs);
  if (a.output.empty()) {
    out << text;
    out.flush();
    return kExitOk;
  }
  write_output_file(a.output, text);
  out << fmt::format("wrote {} ({} report of {} run{})\n", a.output, format.description,
                     runs.size(), runs.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace neurobench::cli
