// SPDX-License-Identifier: Apache-2.0
// The session tables of FSCIL results files, in the Markdown and HTML reports.
#include "reporters/fscil_sessions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/flat_values.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

const std::vector<FscilColumn>& fscil_session_columns() {
  static const std::vector<FscilColumn> columns = {
      {"ClassificationAccuracy", "Accuracy, all seen"},
      {kFscilNewClassesKey, "Accuracy, new classes"},
      {"ActivationSparsity", "Activation sparsity"},
      {"SynapticOperations.Effective_MACs", "Eff_MACs (ops/sample)"},
      {"SynapticOperations.Effective_ACs", "Eff_ACs (ops/sample)"},
  };
  return columns;
}

FlatValue fscil_session_value(const FscilSessionEntry& session, const std::string& key) {
  if (key == kFscilNewClassesKey) return session.new_classes_accuracy;
  for (auto& v : flatten_metrics(session.values)) {
    if (v.key == key) return v;
  }
  FlatValue missing;
  missing.key = key;
  return missing;
}

namespace {

std::vector<std::string> fscil_sessions_other_labels(const std::vector<RunResults>& runs) {
  std::vector<std::string> others;
  for (const auto& r : runs) {
    if (!r.fscil) others.push_back(r.label);
  }
  return others;
}

std::string fscil_sessions_markdown_table(const FscilRun& fscil) {
  const auto& columns = fscil_session_columns();
  std::string out = "| Session | Name | Classes seen |";
  for (const auto& c : columns) out += " " + c.header + " |";
  out += "\n|---:|:---|---:|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---:|";
  out += "\n";
  for (const auto& s : fscil.sessions) {
    out += fmt::format("| {} | {} | {} |", s.session, md_esc(s.name), s.classes);
    for (const auto& c : columns) {
      out += " " + detail::value_text(fscil_session_value(s, c.key), "failed", "n/a") + " |";
    }
    out += "\n";
  }
  return out;
}

std::string fscil_session_cell(const FscilSessionEntry& s, const std::string& key) {
  const FlatValue v = fscil_session_value(s, key);
  if (v.state == FlatValue::State::Number && is_finite(v)) {
    return fmt::format("<td class=\"value\" data-key=\"{}\" data-value=\"{}\" title=\"{}\">{}</td>",
                       esc(key), exact(v.number), exact(v.number), esc(format_number(v.number)));
  }
  const char* state = v.state == FlatValue::State::Failed    ? "failed"
                      : v.state == FlatValue::State::Missing ? "missing"
                                                             : "nonfinite";
  return fmt::format("<td class=\"value {0}\" data-key=\"{1}\" data-state=\"{0}\">{2}</td>", state,
                     esc(key), esc(detail::value_text(v, "failed", "\xE2\x80\x94")));
}

std::string fscil_sessions_html_table(const RunResults& run, std::size_t index) {
  std::string out = fmt::format(
      "<h3 data-run=\"{0}\"><span class=\"swatch\" style=\"background:{1}\"></span>{0}</h3>"
      "<div class=\"scroll\"><table class=\"fscil-sessions\" data-run=\"{0}\"><thead><tr>"
      "<th scope=\"col\">Session</th><th scope=\"col\">Name</th>"
      "<th scope=\"col\">Classes seen</th>",
      esc(run.label), run_colour(index));
  for (const auto& c : fscil_session_columns()) {
    out += fmt::format("<th scope=\"col\" data-key=\"{}\">{}</th>", esc(c.key), esc(c.header));
  }
  out += "</tr></thead><tbody>\n";
  for (const auto& s : run.fscil->sessions) {
    out += fmt::format(
        "<tr data-session=\"{0}\"><th scope=\"row\">{0}</th><td>{1}</td>"
        "<td class=\"value\" data-key=\"classes\" data-value=\"{2}\">{2}</td>",
        s.session, esc(s.name), s.classes);
    for (const auto& c : fscil_session_columns()) out += fscil_session_cell(s, c.key);
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace

std::string fscil_sessions_markdown(const std::vector<RunResults>& runs) {
  std::string out;
  for (const auto& r : runs) {
    if (!r.fscil) continue;
    out += "\n### FSCIL sessions: " + md_esc(r.label) + "\n\n" +
           fscil_sessions_markdown_table(*r.fscil);
  }
  if (out.empty()) return out;
  const auto others = fscil_sessions_other_labels(runs);
  if (!others.empty()) {
    std::vector<std::string> escaped;
    for (const auto& l : others) escaped.push_back(md_esc(l));
    out +=
        fmt::format("\nNo sessions for {}: not an FSCIL results file.\n", fmt::join(escaped, ", "));
  }
  return out;
}

std::string fscil_sessions_html(const std::vector<RunResults>& runs) {
  std::string tables;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].fscil) tables += fscil_sessions_html_table(runs[r], r);
  }
  if (tables.empty()) return "";
  return "<section id=\"fscil\"><h2>FSCIL sessions</h2>\n<p class=\"caption\">Every session of "
         "each few-shot class-incremental run (<code>neurobench fscil</code>): the classes seen "
         "so far; the accuracy on all of them and on the new classes alone; activation "
         "sparsity and effective operations on all classes seen. The metrics above are the "
         "means over these sessions.</p>\n" +
         tables + not_shown_note(fscil_sessions_other_labels(runs), "not an FSCIL results file") +
         "</section>\n" + fscil_accuracy_chart(runs);
}

}  // namespace neurobench::detail
