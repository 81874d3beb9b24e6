// SPDX-License-Identifier: Apache-2.0
// `neurobench report --format html`: one self-contained page with the runs' environment, every
// metric and the charts (svg_*.cpp).
#include <neurobench/reporters/html_report.hpp>

#include <algorithm>
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/format.hpp>
#include <neurobench/reporters/metric_info.hpp>

#include "reporters/flat_values.hpp"
#include "reporters/fscil_sessions.hpp"
#include "reporters/metric_index.hpp"
#include "reporters/profile_html.hpp"
#include "reporters/run_context.hpp"
#include "reporters/svg_charts.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench {

namespace {

using detail::Difference;
using detail::esc;
using detail::exact;
using detail::FlatRun;

// The column headers of the runs, each with its colour.
std::string run_header_cells(const std::vector<RunResults>& runs) {
  std::string out;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += fmt::format(
        "<th scope=\"col\" class=\"run\" data-run=\"{0}\"><span class=\"swatch\" "
        "style=\"background:{1}\"></span>{0}</th>",
        esc(runs[r].label), detail::run_colour(r));
  }
  return out;
}

// --- the metrics table -----------------------------------------------------------------------

std::string value_cell(const std::string& label, const FlatValue& v) {
  switch (v.state) {
    case FlatValue::State::Number:
      if (detail::is_non_finite(v)) {  // "NaN", "Infinity", "-Infinity" in the file
        return fmt::format(
            "<td class=\"value nonfinite\" data-run=\"{0}\" data-state=\"nonfinite\" "
            "data-value=\"{1}\" title=\"not a finite number\">{1}</td>",
            esc(label), format_number(v.number));
      }
      return fmt::format(
          "<td class=\"value\" data-run=\"{}\" data-state=\"number\" data-value=\"{}\" "
          "title=\"{}\">{}</td>",
          esc(label), exact(v.number), exact(v.number), esc(format_number(v.number)));
    case FlatValue::State::Failed:
      return fmt::format(
          "<td class=\"value failed\" data-run=\"{}\" data-state=\"failed\">failed</td>",
          esc(label));
    case FlatValue::State::Unavailable:
      return fmt::format(
          "<td class=\"value unavailable\" data-run=\"{}\" data-state=\"unavailable\" "
          "title=\"cannot be measured where this run ran: see its warnings\">unavailable</td>",
          esc(label));
    case FlatValue::State::Missing:
      break;
  }
  return fmt::format(
      "<td class=\"value missing\" data-run=\"{}\" data-state=\"missing\">\xE2\x80\x94</td>",
      esc(label));
}

std::string diff_cell(const std::string& label, const Difference& d) {
  if (!d.available) {
    return fmt::format("<td class=\"diff na\" data-run=\"{}\">\xE2\x80\x94</td>", esc(label));
  }
  const char* verdict = d.verdict == Difference::Verdict::Better  ? "better"
                        : d.verdict == Difference::Verdict::Worse ? "worse"
                        : d.verdict == Difference::Verdict::Same  ? "same"
                                                                  : "neutral";
  return fmt::format("<td class=\"diff {}\" data-run=\"{}\" data-diff=\"{}\"{}>{} ({})</td>",
                     verdict, esc(label), exact(d.abs),
                     d.has_percent ? fmt::format(" data-percent=\"{}\"", exact(d.percent)) : "",
                     esc(detail::signed_number(d.abs)), esc(detail::percent_text(d)));
}

// One key: its unit and direction (from the runs' `_metrics`, else the legacy table), each
// run's value, the differences to the first run.
std::string metric_row(const std::string& key, const std::vector<RunResults>& runs,
                       const std::vector<FlatRun>& flat, const detail::MetricIndex& index) {
  const MetricInfo info = index.info(key);
  const char* arrow = info.better == Better::Higher  ? "\xE2\x86\x91 higher"
                      : info.better == Better::Lower ? "\xE2\x86\x93 lower"
                                                     : "";
  std::string out = fmt::format(
      "<tr data-key=\"{0}\" data-better=\"{1}\"><th scope=\"row\" class=\"key\">{0}</th>"
      "<td class=\"unit\">{2}</td><td class=\"better\">{3}</td>",
      esc(key), to_string(info.better), esc(info.unit), arrow);
  for (std::size_t r = 0; r < runs.size(); ++r) out += value_cell(runs[r].label, flat[r].get(key));
  for (std::size_t r = 1; r < runs.size(); ++r) {
    out += diff_cell(runs[r].label,
                     detail::difference(flat[0].get(key), flat[r].get(key), info.better));
  }
  return out + "</tr>\n";
}

std::string metrics_table(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  std::string out =
      "<div class=\"scroll\"><table id=\"metrics\"><thead><tr>"
      "<th scope=\"col\">Metric</th><th scope=\"col\">Unit</th>"
      "<th scope=\"col\">Better</th>" +
      run_header_cells(runs);
  for (std::size_t r = 1; r < runs.size(); ++r) {
    out += fmt::format(
        "<th scope=\"col\" class=\"diff\" data-run=\"{0}\" title=\"{0} minus {1}\">"
        "\xCE\x94 {0}</th>",
        esc(runs[r].label), esc(runs[0].label));
  }
  out += "</tr></thead><tbody>\n";
  const detail::MetricIndex index(runs);
  for (const auto& key : detail::union_keys(flat)) out += metric_row(key, runs, flat, index);
  out += "</tbody></table></div>\n";
  return out;
}

// --- the environment table -------------------------------------------------------------------

struct EnvironmentRow {
  const char* key;
  const char* name;
  bool always;  // shown even when no run has it
  std::function<std::string(std::size_t)> value;
};

std::string failures_text(const RunResults& run, const FlatRun& flat) {
  std::vector<std::string> failed;
  const auto& meta = run.run;
  if (meta.is_object() && meta.contains("failures") && meta["failures"].is_object()) {
    for (const auto& [name, why] : meta["failures"].items()) {
      failed.push_back(name + ": " + detail::json_text(why));
    }
  }
  if (failed.empty()) {
    for (const auto& v : flat.values()) {
      if (v.state == FlatValue::State::Failed) failed.push_back(v.key);
    }
  }
  return fmt::format("{}", fmt::join(failed, "; "));
}

std::string warnings_text(const RunResults& run) {
  std::vector<std::string> warnings;
  const auto& meta = run.run;
  if (meta.is_object() && meta.contains("warnings") && meta["warnings"].is_array()) {
    for (const auto& w : meta["warnings"]) warnings.push_back(detail::json_text(w));
  }
  return fmt::format("{}", fmt::join(warnings, "; "));
}

std::vector<EnvironmentRow> environment_rows(const std::vector<RunResults>& runs,
                                             const std::vector<FlatRun>& flat) {
  auto env = [&runs](const char* k) {
    return [&runs, k](std::size_t r) { return detail::env_field(runs[r], k); };
  };
  auto run = [&runs](const char* k) {
    return [&runs, k](std::size_t r) { return detail::run_field(runs[r], k); };
  };
  auto timing = [&runs, &flat](std::size_t r) { return detail::timing_basis(runs[r], flat[r]); };
  auto text = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string(); };
  return {
      {"source", "Results file", true, [&runs](std::size_t r) { return runs[r].source; }},
      {"model", "Model", false, run("model")},
      {"metrics_scope", "Metrics scope", false, run("metrics_scope")},
      {"data", "Data", false, run("data")},
      {"samples", "Samples", false, run("samples")},
      {"batch_size", "Batch size", false, run("batch_size")},
      {"stepwise", "Step-wise", false, run("stepwise")},
      {"phases", "Time by phase", false,
       [&runs](std::size_t r) {
         return runs[r].run.is_object() && runs[r].run.contains("phases")
                    ? detail::phases_text(runs[r].run["phases"])
                    : std::string();
       }},
      {"cpu", "CPU", true, env("cpu")},
      {"device", "Device", false, [&runs](std::size_t r) { return detail::device_text(runs[r]); }},
      {"cores", "Cores", false, env("cores")},
      {"threads", "Threads", true, env("threads")},
      {"libtorch", "LibTorch", true, env("libtorch")},
      {"libtorch_build", "LibTorch build", false, env("libtorch_build")},
      {"blas", "BLAS", false, env("blas")},
      {"build_type", "Build type", false, env("build_type")},
      {"compiler", "Compiler", false, env("compiler")},
      {"os", "OS", false, env("os")},
      {"neurobench", "neurobench", false, env("neurobench")},
      {"git_commit", "Commit", true,
       [&runs](std::size_t r) { return detail::commit_text(runs[r]); }},
      {"date", "Date", true, env("date")},
      {"timed_runs", "Timed runs", true, [=](std::size_t r) { return text(timing(r).runs); }},
      {"warmup_runs", "Warm-up runs", true, [=](std::size_t r) { return text(timing(r).warmup); }},
      {"failures", "Failed metrics", false,
       [&runs, &flat](std::size_t r) { return failures_text(runs[r], flat[r]); }},
      {"warnings", "Warnings", false, [&runs](std::size_t r) { return warnings_text(runs[r]); }},
  };
}

// A row of the environment table, or nothing when no run has a value and it is not a main row.
std::string environment_row(const EnvironmentRow& row, const std::vector<RunResults>& runs) {
  std::vector<std::string> cells;
  bool any = false;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    cells.push_back(row.value(r));
    any = any || !cells.back().empty();
  }
  if (!any && !row.always) return "";
  std::string out = fmt::format("<tr data-key=\"{}\"><th scope=\"row\">{}</th>", row.key, row.name);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += cells[r].empty()
               ? fmt::format("<td class=\"missing\" data-run=\"{}\">\xE2\x80\x94</td>",
                             esc(runs[r].label))
               : fmt::format("<td data-run=\"{}\">{}</td>", esc(runs[r].label), esc(cells[r]));
  }
  return out + "</tr>\n";
}

std::string environment_table(const std::vector<RunResults>& runs,
                              const std::vector<FlatRun>& flat) {
  std::string out =
      "<div class=\"scroll\"><table id=\"environment\"><thead><tr><th scope=\"col\">"
      "</th>" +
      run_header_cells(runs) + "</tr></thead><tbody>\n";
  for (const auto& row : environment_rows(runs, flat)) out += environment_row(row, runs);
  out += "</tbody></table></div>\n";
  std::vector<std::string> bare;
  for (const auto& r : runs) {
    if (!r.environment.is_object()) bare.push_back(r.label);
  }
  if (!bare.empty()) {
    out += detail::not_shown_note(bare, "the results file records no environment (_environment)");
  }
  return out;
}

// --- the page --------------------------------------------------------------------------------

constexpr const char* kStyle = R"(
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--head:#f3f5f8;--better:#1a7f37;--worse:#c62828}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
  color:var(--fg);background:#fff;margin:0 auto;max-width:1240px;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:18px;margin:36px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
nav a{color:#2f5bb7;margin-right:14px;text-decoration:none}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;width:100%}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--head);white-space:nowrap}
tbody th{font-weight:500;white-space:nowrap}
td.value,td.diff{text-align:right;white-space:nowrap}
td.unit,td.better{color:var(--muted);white-space:nowrap}
td.diff.better{color:var(--better)}
td.diff.worse{color:var(--worse);font-weight:600}
td.diff.same,td.diff.neutral,td.diff.na,td.missing{color:var(--muted)}
td.failed,td.nonfinite{color:var(--worse);font-style:italic}
td.unavailable{color:var(--muted);font-style:italic}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.note,.caption{color:var(--muted);margin:6px 0}
.left-out-note{font-style:italic}
svg{display:block;max-width:100%;height:auto;margin:8px 0}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#333}
svg .axis-label{font-size:12px;fill:#444}
svg .grid{stroke:#e7eaf0;stroke-width:1}
svg .axis-line{stroke:#666;stroke-width:1}
svg .bar-label{font-size:10px;fill:#555}
svg .point{stroke:#fff;stroke-width:1.5}
svg .point-label{font-size:12px;font-weight:600}
svg .run-detail{font-size:10px;fill:#777}
svg .whisker,svg .cap{stroke-width:2}
svg .glyph-legend .whisker{stroke:#777}
svg .box{fill-opacity:.35;stroke-width:1.5}
svg .median{stroke:#1d2330;stroke-width:3}
svg .mean{fill:#1d2330}
svg .p99{stroke:#1d2330;stroke-width:1.5;stroke-dasharray:3 2}
h3{font-size:15px;margin:18px 0 6px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
)";

// The document's head, the title and summary of the runs, and the navigation.
std::string page_header(const std::vector<RunResults>& runs) {
  std::vector<std::string> labels;
  std::vector<std::string> chips;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    labels.push_back(runs[r].label);
    chips.push_back(
        fmt::format("<span class=\"run-chip\" data-run=\"{0}\"><span class=\"swatch\" "
                    "style=\"background:{1}\"></span>{0}</span>",
                    esc(runs[r].label), detail::run_colour(r)));
  }
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>NeuroBench report: {}</title>\n",
                     esc(fmt::format("{}", fmt::join(labels, ", "))));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  out += "<header><h1>NeuroBench report</h1>";
  out +=
      fmt::format("<p id=\"summary\" data-runs=\"{}\">{} {}: {}.{}</p>", runs.size(), runs.size(),
                  runs.size() == 1 ? "run" : "runs side by side", fmt::join(chips, ", "),
                  runs.size() > 1 ? " Differences are to the first run, " + esc(runs[0].label) +
                                        ": green is better, red is worse."
                                  : std::string());
  out +=
      "<nav><a href=\"#runs\">Runs</a><a href=\"#metrics-section\">Metrics</a>"
      "<a href=\"#chart-sparsity\">Sparsity</a><a href=\"#chart-operations\">Operations</a>"
      "<a href=\"#chart-latency\">Latency</a><a href=\"#chart-accuracy\">Accuracy</a>";
  if (std::any_of(runs.begin(), runs.end(), [](const RunResults& r) { return r.fscil; })) {
    out += "<a href=\"#fscil\">FSCIL sessions</a>";
  }
  out += "</nav></header>\n";
  return out;
}

}  // namespace

std::string render_html_report(const std::vector<RunResults>& runs) {
  if (runs.empty()) throw UsageError("a report needs at least one run");
  const std::vector<FlatRun> flat = detail::flat_runs(runs);
  std::string out = page_header(runs);
  out += "<section id=\"runs\"><h2>Runs and environment</h2>\n" + environment_table(runs, flat) +
         "</section>\n";
  out +=
      "<section id=\"metrics-section\"><h2>Metrics</h2>\n<p class=\"caption\">Every metric "
      "of every run, nested values as <code>Metric.key</code>.";
  if (runs.size() > 1) {
    out += " Differences are to " + esc(runs[0].label) +
           ", absolute and in percent; coloured when the metric has a better direction.";
  }
  out += "</p>\n" + metrics_table(runs, flat) + "</section>\n";
  out += detail::sparsity_chart(runs, flat);
  out += detail::operations_chart(runs, flat);
  out += detail::energy_chart(runs, flat);
  out += detail::latency_chart(runs, flat);
  out += detail::accuracy_chart(runs, flat);
  out += detail::profile_html(runs);  // runs made with --profile only
  // FSCIL runs only: their sessions and the chart of accuracy over sessions.
  out += detail::fscil_sessions_html(runs);
  out +=
      "<footer>Written by <code>neurobench report</code>. A self-contained page: no scripts, "
      "no external resources.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace neurobench
