// SPDX-License-Identifier: Apache-2.0
// The HTML report's energy chart: EnergyEstimate's split by kind of operation, one stacked bar
// per run, so that a spiking and a dense network side by side show where their energy goes.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/svg_charts.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

namespace {

struct EnergyPart {
  const char* key;
  const char* name;
  const char* colour;
};

constexpr std::array<EnergyPart, 6> kEnergyParts = {{
    {"EnergyEstimate.MACs_J", "MACs", "#4269d0"},
    {"EnergyEstimate.ACs_J", "ACs", "#ff725c"},
    {"EnergyEstimate.Neuron_Ops_J", "neuron operations", "#6cc5b0"},
    {"EnergyEstimate.Weight_Memory_J", "weight memory", "#a463f2"},
    {"EnergyEstimate.Activation_Memory_J", "activation memory", "#efb118"},
    {"EnergyEstimate.State_Memory_J", "state memory", "#9aa3b0"},
}};

// The unit that keeps the largest total between 1 and 1000: its name and joules per unit.
std::pair<const char*, double> energy_chart_unit(double max_joules) {
  constexpr std::array<std::pair<const char*, double>, 5> units = {
      {{"pJ", 1e-12}, {"nJ", 1e-9}, {"\xC2\xB5J", 1e-6}, {"mJ", 1e-3}, {"J", 1.0}}};
  for (const auto& u : units) {
    if (max_joules < u.second * 1000) return u;
  }
  return units.back();
}

}  // namespace

std::string energy_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-energy";
  const std::string title = "Estimated energy per sample";
  std::vector<std::size_t> with;
  std::vector<std::string> without;
  double max_total = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (auto total = flat[r].number("EnergyEstimate.Total_J")) {
      with.push_back(r);
      max_total = std::max(max_total, *total);
    } else {
      without.push_back(runs[r].label);
    }
  }
  if (with.empty()) return {};  // an opt-in metric: no note on every other report
  const auto [unit, joules] = energy_chart_unit(max_total);
  const double group = 80;
  const double width = std::max(960.0, 90 + 24 + group * static_cast<double>(with.size()));
  std::string body;
  std::vector<LegendItem> items;
  for (const auto& part : kEnergyParts) items.push_back({part.name, part.colour, ""});
  const double legend_h = legend(body, items, 90, 12, width - 110);
  const Plot p{90, 30 + legend_h, width - 90 - 24, 280};
  const double height = p.bottom() + 44;
  const Scale y = linear_scale(0, max_total / joules, true, p.bottom(), p.top);
  std::string svg = svg_open("svg-energy", width, height, title) + body;
  y_axis(svg, y, p, fmt::format("{} per sample (estimate)", unit));
  const double gw = p.width / static_cast<double>(with.size());
  const double bw = std::min(48.0, gw * 0.6);
  for (std::size_t j = 0; j < with.size(); ++j) {
    const std::size_t r = with[j];
    const std::string& label = runs[r].label;
    const double cx = p.left + gw * (static_cast<double>(j) + 0.5);
    svg += fmt::format("<g class=\"group\" data-run=\"{}\">", esc(label));
    double stacked = 0;
    for (const auto& part : kEnergyParts) {
      const auto v = flat[r].number(part.key);
      if (!v || *v <= 0) continue;
      const double lo = y(stacked / joules);
      stacked += *v;
      const double hi = y(stacked / joules);
      svg += fmt::format(
          "<rect class=\"bar\" data-run=\"{}\" data-part=\"{}\" data-value=\"{}\" x=\"{}\" "
          "y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}, {}: {} {}</title></rect>",
          esc(label), part.name, exact(*v), px(cx - bw / 2), px(hi), px(bw),
          px(std::max(lo - hi, 0.0)), part.colour, esc(label), part.name,
          esc(format_number(*v / joules)), unit);
    }
    const double total = flat[r].number("EnergyEstimate.Total_J").value_or(stacked);
    svg += fmt::format(
        "<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>"
        "<text class=\"tick-label run-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}"
        "<title>{}</title></text></g>",
        px(cx), px(y(total / joules) - 4), esc(format_number(total / joules)), px(cx),
        px(p.bottom() + 18), esc(shorten(label, static_cast<std::size_t>(gw / 7))), esc(label));
  }
  baseline(svg, p);
  svg += "</svg>";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">EnergyEstimate's split by kind of operation, stacked: counted "
      "operations times a table's energy per operation (the table is in each run's "
      "_metrics.EnergyEstimate.options). An estimate from operation counts, not a "
      "measurement.</p>{}{}</section>\n",
      id, esc(title), svg, not_shown_note(without, "no EnergyEstimate"));
}

}  // namespace neurobench::detail
