// SPDX-License-Identifier: Apache-2.0
// The formats of results files and reports: one table each, read by `run` (--json, --csv,
// --text, a config's outputs), `report` (--format, -o's extension) and render().
#include <neurobench/reporters/formats.hpp>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>
#include <neurobench/reporters/results.hpp>

#include "util/text.hpp"

namespace neurobench {

namespace {

std::string lower_case(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The format of `table` called `name`, or with the extension `.name`; nullptr when none is.
template <class Format>
const Format* format_named(const std::vector<Format>& table, std::string_view name) {
  const std::string key = lower_case(name);
  for (const auto& f : table) {
    if (f.name == key) return &f;
  }
  for (const auto& f : table) {
    if (std::find(f.extensions.begin(), f.extensions.end(), "." + key) != f.extensions.end()) {
      return &f;
    }
  }
  return nullptr;
}

template <class Format>
std::string format_names(const std::vector<Format>& table) {
  std::string names;
  for (const auto& f : table) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

template <class Format>
const Format& format_by_name(const std::vector<Format>& table, std::string_view name,
                             const char* what) {
  if (const Format* f = format_named(table, name)) return *f;
  throw UsageError(fmt::format("unknown {} format '{}' (formats: {})", what,
                               detail::printable(name, 40), format_names(table)));
}

template <class Format>
const Format& format_by_extension(const std::vector<Format>& table,
                                  const std::filesystem::path& path, const char* what) {
  const std::string extension = lower_case(path.extension().string());
  for (const auto& f : table) {
    if (std::find(f.extensions.begin(), f.extensions.end(), extension) != f.extensions.end()) {
      return f;
    }
  }
  std::string extensions;
  for (const auto& f : table) {
    for (const auto& e : f.extensions) extensions += (extensions.empty() ? "" : ", ") + e;
  }
  throw UsageError(fmt::format("{}: unknown {} format '{}' (extensions: {})",
                               detail::printable(path.string(), 200), what,
                               detail::printable(extension, 40), extensions));
}

}  // namespace

const std::vector<ResultsFormat>& results_formats() {
  static const std::vector<ResultsFormat> formats = {
      {"json", {".json"}, "JSON", &render_json},
      {"csv", {".csv"}, "CSV", &render_csv},
      {"text", {".txt", ".text"}, "'key: value' lines", &render_text},
  };
  return formats;
}

const ResultsFormat& results_format(std::string_view name) {
  return format_by_name(results_formats(), name, "results");
}

const ResultsFormat& results_format_for(const std::filesystem::path& path) {
  return format_by_extension(results_formats(), path, "results");
}

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"html", {".html", ".htm"}, "HTML", &render_html_report},
      {"markdown", {".md", ".markdown"}, "Markdown", &render_markdown_report},
  };
  return formats;
}

const ReportFormat& report_format(std::string_view name) {
  return format_by_name(report_formats(), name, "report");
}

const ReportFormat& report_format_for(const std::filesystem::path& path) {
  return format_by_extension(report_formats(), path, "report");
}

}  // namespace neurobench
