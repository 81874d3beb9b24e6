// SPDX-License-Identifier: Apache-2.0
// `neurobench report --format markdown`: tables to paste into a pull request.
#include <neurobench/reporters/markdown_report.hpp>

#include <set>

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
#include "reporters/text.hpp"

namespace neurobench {

namespace {

using detail::FlatRun;
using detail::md_esc;
using detail::value_text;

struct Column {
  std::string key;
  std::string header;
};

// NeuroBench's leaderboard columns, with units in the header.
std::vector<Column> leaderboard_columns(const std::vector<FlatRun>& flat) {
  const auto correctness = detail::correctness_metric(flat);
  return {
      {correctness ? correctness->key : "ClassificationAccuracy",
       correctness ? correctness->header : "Accuracy"},
      {"Footprint", "Footprint (bytes)"},
      {"ConnectionSparsity", "Connection sparsity"},
      {"ActivationSparsity", "Activation sparsity"},
      {"SynapticOperations.Dense", "Dense (ops/sample)"},
      {"SynapticOperations.Effective_MACs", "Eff_MACs (ops/sample)"},
      {"SynapticOperations.Effective_ACs", "Eff_ACs (ops/sample)"},
  };
}

std::string leaderboard_table(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat,
                              const std::vector<Column>& columns) {
  std::string out = "| Run |";
  for (const auto& c : columns) out += " " + c.header + " |";
  out += "\n|:---|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---:|";
  out += "\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += "| " + md_esc(runs[r].label) + " |";
    for (const auto& c : columns) {
      out += " " + value_text(flat[r].get(c.key), "failed", "n/a") + " |";
    }
    out += "\n";
  }
  return out;
}

std::string md_diff(const FlatValue& a, const FlatValue& b, Better better) {
  const detail::Difference d = detail::difference(a, b, better);
  if (!d.available) return "n/a";
  std::string text = detail::signed_number(d.abs) + " (" + detail::percent_text(d);
  if (d.verdict == detail::Difference::Verdict::Better) text += ", better";
  if (d.verdict == detail::Difference::Verdict::Worse) text += ", worse";
  return text + ")";
}

// Every key not in the leaderboard: unit, each run's value, the differences to the first run.
std::string other_metrics_table(const std::vector<RunResults>& runs,
                                const std::vector<FlatRun>& flat,
                                const std::vector<std::string>& keys) {
  std::string out = "\n| Metric | Unit |";
  for (const auto& r : runs) out += " " + md_esc(r.label) + " |";
  for (std::size_t r = 1; r < runs.size(); ++r) out += " \xCE\x94 " + md_esc(runs[r].label) + " |";
  out += "\n|:---|:---|";
  for (std::size_t r = 0; r < 2 * runs.size() - 1; ++r) out += "---:|";
  out += "\n";
  const detail::MetricIndex index(runs);
  for (const auto& key : keys) {
    const MetricInfo info = index.info(key);
    out += "| " + md_esc(key) + " | " + md_esc(info.unit) + " |";
    for (const auto& f : flat) out += " " + value_text(f.get(key), "failed", "n/a") + " |";
    for (std::size_t r = 1; r < runs.size(); ++r) {
      out += " " + md_diff(flat[0].get(key), flat[r].get(key), info.better) + " |";
    }
    out += "\n";
  }
  return out;
}

// One line on where a run ran.
std::string environment_line(const RunResults& run, const detail::TimingBasis& timing) {
  using detail::env_field;
  std::vector<std::string> parts;
  // Static and layer metrics of one submodule only (RunOptions::metrics_scope): said first.
  if (auto scope = detail::run_field(run, "metrics_scope"); !scope.empty()) {
    parts.push_back("metrics scope " + scope);
  }
  if (auto cpu = env_field(run, "cpu"); !cpu.empty()) parts.push_back(cpu);
  if (auto threads = env_field(run, "threads"); !threads.empty()) {
    parts.push_back(threads + (threads == "1" ? " thread" : " threads"));
  }
  // A run off the CPU says where; a CPU run (or an older file) keeps the line as it was.
  if (auto device = detail::device_text(run); !device.empty() && device != "cpu") {
    parts.push_back(device);
  }
  if (auto lt = env_field(run, "libtorch"); !lt.empty()) parts.push_back("LibTorch " + lt);
  if (auto commit = detail::commit_text(run); !commit.empty()) parts.push_back("commit " + commit);
  if (auto date = env_field(run, "date"); !date.empty()) parts.push_back(date);
  std::string line = fmt::format("{}", fmt::join(parts, ", "));
  if (timing.runs) {
    std::string t = fmt::format("timings over {} runs", format_number(*timing.runs));
    if (timing.warmup) t += fmt::format(" after {} warm-ups", format_number(*timing.warmup));
    line += (line.empty() ? "" : "; ") + t;
  }
  return line;
}

std::string environment_list(const std::vector<RunResults>& runs,
                             const std::vector<FlatRun>& flat) {
  std::string out;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string line = environment_line(runs[r], detail::timing_basis(runs[r], flat[r]));
    if (!line.empty()) out += "- **" + md_esc(runs[r].label) + "**: " + md_esc(line) + "\n";
  }
  return out;
}

}  // namespace

std::string render_markdown_report(const std::vector<RunResults>& runs) {
  if (runs.empty()) throw UsageError("a report needs at least one run");
  const std::vector<FlatRun> flat = detail::flat_runs(runs);
  const std::vector<Column> columns = leaderboard_columns(flat);
  std::string out = leaderboard_table(runs, flat, columns);
  std::set<std::string> shown;
  for (const auto& c : columns) shown.insert(c.key);
  std::vector<std::string> others;
  for (const auto& key : detail::union_keys(flat)) {
    if (!shown.count(key)) others.push_back(key);
  }
  if (!others.empty()) out += other_metrics_table(runs, flat, others);
  out += detail::fscil_sessions_markdown(runs);  // FSCIL runs only: every session
  out += detail::profile_markdown(runs);         // runs made with --profile only
  const std::string environment = environment_list(runs, flat);
  if (!environment.empty()) out += "\n" + environment;
  return out;
}

}  // namespace neurobench
