// SPDX-License-Identifier: Apache-2.0
// The per-layer profile (Results::profile, `_run.profile` in results files) as CSV, as a text
// table, as the HTML report's section (a table and a bar chart per run, sorted by time) and as
// the Markdown report's tables. The tables end with a "(rest of forward)" row: `other_s`, the
// profiled forward call's time outside every row, so that a table's times add up to it.
#include <neurobench/reporters/profile.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/format.hpp>

#include "reporters/profile_html.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench {

namespace {

// A number of the profile; results files write NaN and infinities as strings, which show empty.
std::optional<double> profile_double(const Json& row, const char* key) {
  if (!row.is_object() || !row.contains(key)) return std::nullopt;
  const Json& v = row.at(key);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string profile_text_of(const Json& row, const char* key) {
  if (!row.is_object() || !row.contains(key) || !row.at(key).is_string()) return "";
  return row.at(key).get<std::string>();
}

// `64x8x14x14`; empty when the layer's output had no tensor.
std::string profile_shape(const Json& row) {
  if (!row.is_object() || !row.contains("output_shape")) return "";
  const Json& shape = row.at("output_shape");
  if (!shape.is_array()) return "";
  std::string out;
  for (const auto& d : shape) out += (out.empty() ? "" : "x") + d.dump();
  return out;
}

const Json& profile_layers(const Json& profile) {
  if (!profile.is_object() || !profile.contains("layers") || !profile.at("layers").is_array()) {
    throw InputError(
        fmt::format("not a per-layer profile: expected an object with an array "
                    "'layers', found {}",
                    profile.type_name()));
  }
  return profile.at("layers");
}

// The layers, the slowest per forward call first (ties: in execution order).
std::vector<const Json*> profile_by_time(const Json& layers) {
  std::vector<const Json*> rows;
  for (const auto& row : layers) rows.push_back(&row);
  std::stable_sort(rows.begin(), rows.end(), [](const Json* a, const Json* b) {
    return profile_double(*a, "time_per_run_s").value_or(0) >
           profile_double(*b, "time_per_run_s").value_or(0);
  });
  return rows;
}

// The "(rest of forward)" row of a displayed table: `other_s` and its share of the profiled
// forward call; null when the profile has no `other_s` (a file written before it).
Json profile_rest_row(const Json& profile) {
  const auto other = profile_double(profile, "other_s");
  if (!other) return nullptr;
  const auto forward = profile_double(profile, "profiled_forward_s");
  Json row = Json::object();
  row["layer"] = "(rest of forward)";
  row["kind"] = "rest";
  row["type"] = "";
  row["time_per_run_s"] = *other;
  row["share"] = forward && *forward > 0 ? Json(*other / *forward) : Json(nullptr);
  return row;
}

// The rows to display: the layers by time, then the rest row (kept in `rest`) when there is one.
std::vector<const Json*> profile_display_rows(const Json& profile, Json& rest) {
  std::vector<const Json*> rows = profile_by_time(profile_layers(profile));
  rest = profile_rest_row(profile);
  if (!rest.is_null()) rows.push_back(&rest);
  return rows;
}

// Seconds for people: `1.23 ms`, `45.6 us`.
std::string profile_seconds(std::optional<double> s) {
  if (!s) return "";
  const double v = *s;
  if (v >= 1) return fmt::format("{:.3g} s", v);
  if (v >= 1e-3) return fmt::format("{:.3g} ms", v * 1e3);
  if (v >= 1e-6) return fmt::format("{:.3g} us", v * 1e6);
  return fmt::format("{:.3g} ns", v * 1e9);
}

std::string profile_percent(std::optional<double> v) {
  return v ? fmt::format("{:.1f}%", *v * 100) : "";
}

std::string profile_count(std::optional<double> v) { return v ? format_number(*v) : ""; }

// Effective operations: MACs and ACs together.
std::optional<double> profile_effective(const Json& row) {
  const auto macs = profile_double(row, "effective_macs");
  const auto acs = profile_double(row, "effective_acs");
  if (!macs && !acs) return std::nullopt;
  return macs.value_or(0) + acs.value_or(0);
}

std::string profile_csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string profile_csv_number(const Json& row, const char* key) {
  if (!row.contains(key) || row.at(key).is_null()) return "";
  const Json& v = row.at(key);
  return v.is_number() ? v.dump() : profile_csv_field(v.is_string() ? v.get<std::string>() : "");
}

}  // namespace

std::string render_profile_csv(const Results& results) {
  static const char* const kNumbers[] = {"calls_per_run", "time_per_call_s",    "time_per_run_s",
                                         "share",         "dense_ops",          "effective_macs",
                                         "effective_acs", "activation_sparsity"};
  std::string out = "order,layer,kind,type,output_shape";
  for (const char* key : kNumbers) out += std::string(",") + key;
  out += "\n";
  if (results.profile.is_null()) return out;
  std::size_t order = 0;
  for (const auto& row : profile_layers(results.profile)) {
    out += fmt::format("{},{},{},{},{}", order++, profile_csv_field(profile_text_of(row, "layer")),
                       profile_text_of(row, "kind"),
                       profile_csv_field(profile_text_of(row, "type")), profile_shape(row));
    for (const char* key : kNumbers) out += "," + profile_csv_number(row, key);
    out += "\n";
  }
  return out;
}

std::string render_profile_table(const Json& profile) {
  if (profile.is_null()) return "";
  Json rest;
  const std::vector<const Json*> rows = profile_display_rows(profile, rest);
  std::vector<std::vector<std::string>> cells = {{"layer", "type", "output shape", "calls",
                                                  "time/call", "time/forward", "share", "dense ops",
                                                  "effective ops", "sparsity"}};
  for (const Json* row : rows) {
    const auto sparsity = profile_double(*row, "activation_sparsity");
    cells.push_back({profile_text_of(*row, "layer"), profile_text_of(*row, "type"),
                     profile_shape(*row), profile_count(profile_double(*row, "calls_per_run")),
                     profile_seconds(profile_double(*row, "time_per_call_s")),
                     profile_seconds(profile_double(*row, "time_per_run_s")),
                     profile_percent(profile_double(*row, "share")),
                     profile_count(profile_double(*row, "dense_ops")),
                     profile_count(profile_effective(*row)),
                     sparsity ? fmt::format("{:.4f}", *sparsity) : ""});
  }
  std::vector<std::size_t> widths(cells.front().size(), 0);
  for (const auto& line : cells) {
    for (std::size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  std::string out = "\nper-layer profile (ops per sample; times per forward call, sorted)\n";
  for (std::size_t l = 0; l < cells.size(); ++l) {
    std::string line;
    for (std::size_t c = 0; c < cells[l].size(); ++c) {
      // Names left-aligned, numbers right-aligned.
      line += c < 3 ? fmt::format("{:<{}}  ", cells[l][c], widths[c])
                    : fmt::format("{:>{}}  ", cells[l][c], widths[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (l == 0) {
      std::size_t total = 0;
      for (const auto w : widths) total += w + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  const auto overhead = profile_double(profile, "overhead");
  out += fmt::format(
      "forward call: {} with layer clocks ({} in the modules or layers listed, {} outside them), "
      "{} without "
      "({}{:.1f}% for the clocks; {} runs each, batch size {})\n",
      profile_seconds(profile_double(profile, "profiled_forward_s")),
      profile_seconds(profile_double(profile, "layers_s")),
      profile_seconds(profile_double(profile, "other_s")),
      profile_seconds(profile_double(profile, "plain_forward_s")),
      overhead.value_or(0) >= 0 ? "+" : "", overhead.value_or(0) * 100,
      profile.value("runs", Json(0)).dump(), profile.value("batch_size", Json(0)).dump());
  return out;
}

namespace detail {

namespace {

constexpr const char* kProfileConnectionColour = "#4269d0";
constexpr const char* kProfileActivationColour = "#ff725c";
constexpr const char* kProfileOtherColour = "#6cc5b0";
constexpr const char* kProfileRestColour = "#a0a0a0";

const char* profile_colour(const std::string& kind) {
  if (kind == "connection") return kProfileConnectionColour;
  if (kind == "activation") return kProfileActivationColour;
  if (kind == "rest") return kProfileRestColour;
  return kProfileOtherColour;
}

std::string profile_html_table(const std::vector<const Json*>& rows) {
  std::string out =
      "<div class=\"scroll\"><table class=\"profile\"><thead><tr><th scope=\"col\">layer</th>"
      "<th scope=\"col\">kind</th><th scope=\"col\">type</th><th scope=\"col\">output shape</th>"
      "<th scope=\"col\">calls per forward</th><th scope=\"col\">time per call</th>"
      "<th scope=\"col\">time per forward</th><th scope=\"col\">share</th>"
      "<th scope=\"col\">dense ops</th><th scope=\"col\">effective MACs</th>"
      "<th scope=\"col\">effective ACs</th><th scope=\"col\">activation sparsity</th>"
      "</tr></thead><tbody>\n";
  for (const Json* row : rows) {
    const auto sparsity = profile_double(*row, "activation_sparsity");
    out += fmt::format(
        "<tr data-layer=\"{}\" data-time=\"{}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        esc(profile_text_of(*row, "layer")),
        exact(profile_double(*row, "time_per_run_s").value_or(0)),
        esc(profile_text_of(*row, "layer")), esc(profile_text_of(*row, "kind")),
        esc(profile_text_of(*row, "type")), esc(profile_shape(*row)),
        esc(profile_count(profile_double(*row, "calls_per_run"))),
        esc(profile_seconds(profile_double(*row, "time_per_call_s"))),
        esc(profile_seconds(profile_double(*row, "time_per_run_s"))),
        esc(profile_percent(profile_double(*row, "share"))),
        esc(profile_count(profile_double(*row, "dense_ops"))),
        esc(profile_count(profile_double(*row, "effective_macs"))),
        esc(profile_count(profile_double(*row, "effective_acs"))),
        sparsity ? fmt::format("{:.4f}", *sparsity) : "");
  }
  return out + "</tbody></table></div>\n";
}

// Horizontal bars: each layer's time per forward call, the slowest at the top.
std::string profile_chart(const std::vector<const Json*>& rows, std::size_t r,
                          const std::string& label) {
  double longest = 0, most = 0;
  for (const Json* row : rows) {
    longest = std::max(longest, text_width(shorten(profile_text_of(*row, "layer"), 32)));
    most = std::max(most, profile_double(*row, "time_per_run_s").value_or(0) * 1e3);
  }
  const double width = 960;
  std::string body;
  const double legend_h = legend(body,
                                 {{"connection layer", kProfileConnectionColour, ""},
                                  {"activation layer", kProfileActivationColour, ""},
                                  {"other module", kProfileOtherColour, ""},
                                  {"rest of forward", kProfileRestColour, ""}},
                                 longest + 20, 12, width - longest - 40);
  const double bar = 18;
  const Plot p{longest + 20, 24 + legend_h, width - longest - 20 - 80,
               bar * static_cast<double>(rows.size())};
  const Scale x = linear_scale(0, most > 0 ? most : 1, true, p.left, p.right());
  const std::string id = fmt::format("svg-profile-{}", r);
  std::string svg =
      svg_open(id.c_str(), width, p.bottom() + 48, "Time per forward call by layer: " + label) +
      body;
  x_axis(svg, x, p, "time per forward call (ms), the layer's own (nested layers taken out)");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = *rows[i];
    const std::string layer = profile_text_of(row, "layer");
    const double ms = profile_double(row, "time_per_run_s").value_or(0) * 1e3;
    const double y = p.top + bar * static_cast<double>(i);
    svg += fmt::format(
        "<rect class=\"bar\" data-layer=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\" fill=\"{}\"><title>{}: {} per forward call ({})</title></rect>"
        "<text class=\"tick-label layer-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}"
        "<title>{}</title></text><text class=\"bar-label\" x=\"{}\" y=\"{}\">{}</text>",
        esc(layer), exact(ms / 1e3), px(p.left), px(y + 2), px(std::max(x(ms) - p.left, 0.5)),
        px(bar - 4), profile_colour(profile_text_of(row, "kind")), esc(layer),
        esc(profile_seconds(ms / 1e3)), esc(profile_percent(profile_double(row, "share"))),
        px(p.left - 6), px(y + bar - 5), esc(shorten(layer, 32)), esc(layer), px(x(ms) + 4),
        px(y + bar - 5), esc(profile_percent(profile_double(row, "share"))));
  }
  return svg + "</svg>";
}

// The profile of a run read from a results file, or null when it has none or a malformed one
// (the reports leave it out).
const Json* profile_of_run(const RunResults& run) {
  if (!run.run.is_object() || !run.run.contains("profile")) return nullptr;
  const Json& profile = run.run.at("profile");
  if (!profile.is_object() || !profile.contains("layers") || !profile.at("layers").is_array()) {
    return nullptr;
  }
  return &profile;
}

}  // namespace

std::string profile_html(const std::vector<RunResults>& runs) {
  std::string sections;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const Json* found = profile_of_run(runs[r]);
    if (found == nullptr) continue;
    const Json& profile = *found;
    Json rest;
    const std::vector<const Json*> rows = profile_display_rows(profile, rest);
    const auto overhead = profile_double(profile, "overhead");
    sections += fmt::format(
        "<div class=\"profile-run\" data-run=\"{}\"><h3>{}</h3><p class=\"caption\">Forward "
        "call: {} with the layer clocks ({} in the modules or layers listed, {} outside them), {} "
        "without them ({}{:.1f}%).</p>\n",
        esc(runs[r].label), esc(runs[r].label),
        esc(profile_seconds(profile_double(profile, "profiled_forward_s"))),
        esc(profile_seconds(profile_double(profile, "layers_s"))),
        esc(profile_seconds(profile_double(profile, "other_s"))),
        esc(profile_seconds(profile_double(profile, "plain_forward_s"))),
        overhead.value_or(0) >= 0 ? "+" : "", overhead.value_or(0) * 100);
    sections += profile_html_table(rows);
    if (!rows.empty()) {
      sections += fmt::format("<div id=\"chart-profile-{}\" class=\"chart\">{}</div>", r,
                              profile_chart(rows, r, runs[r].label));
    }
    sections += "</div>\n";
  }
  if (sections.empty()) return "";
  return "<section id=\"profile\"><h2>Per-layer profile</h2><p class=\"caption\">Each "
         "module (in an inlined model: each connection and activation layer) of the runs made "
         "with <code>--profile</code>, the slowest first: its own time per forward call (a "
         "module called inside another is taken out of the outer one's), its share of the "
         "profiled forward call, and its operations (connection layers) and activation sparsity "
         "(activation layers) per sample; last, the rest of the forward call, outside them "
         "all.</p>\n" +
         sections + "</section>\n";
}

std::string profile_markdown(const std::vector<RunResults>& runs) {
  std::string out;
  for (const RunResults& run : runs) {
    const Json* profile = profile_of_run(run);
    if (profile == nullptr) continue;
    Json rest;
    const std::vector<const Json*> rows = profile_display_rows(*profile, rest);
    const auto overhead = profile_double(*profile, "overhead");
    out += fmt::format(
        "\n**Per-layer profile: {}** (the slowest first; times per forward call). Forward call: {} "
        "with the layer clocks ({} in the modules or layers listed, {} outside them), {} without "
        "them ({}{:.1f}%).\n\n",
        md_esc(run.label), profile_seconds(profile_double(*profile, "profiled_forward_s")),
        profile_seconds(profile_double(*profile, "layers_s")),
        profile_seconds(profile_double(*profile, "other_s")),
        profile_seconds(profile_double(*profile, "plain_forward_s")),
        overhead.value_or(0) >= 0 ? "+" : "", overhead.value_or(0) * 100);
    out +=
        "| Layer | Kind | Type | Output shape | Calls | Time per call | Time per forward | Share "
        "| Dense ops | Effective MACs | Effective ACs | Activation sparsity |\n"
        "|:---|:---|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const Json* row : rows) {
      const auto sparsity = profile_double(*row, "activation_sparsity");
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      md_esc(profile_text_of(*row, "layer")), md_esc(profile_text_of(*row, "kind")),
                      md_esc(profile_text_of(*row, "type")), profile_shape(*row),
                      profile_count(profile_double(*row, "calls_per_run")),
                      profile_seconds(profile_double(*row, "time_per_call_s")),
                      profile_seconds(profile_double(*row, "time_per_run_s")),
                      profile_percent(profile_double(*row, "share")),
                      profile_count(profile_double(*row, "dense_ops")),
                      profile_count(profile_double(*row, "effective_macs")),
                      profile_count(profile_double(*row, "effective_acs")),
                      sparsity ? fmt::format("{:.4f}", *sparsity) : "");
    }
  }
  return out;
}

}  // namespace detail

}  // namespace neurobench
