// SPDX-License-Identifier: Apache-2.0
// The HTML report's scatter chart: the task's correctness metric against operations per sample.
#include "reporters/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>
#include <neurobench/reporters/metric_info.hpp>

#include "reporters/run_context.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

namespace {

struct Point {
  std::size_t run;
  double x, y;
  std::string source;  // which operations x counts
};

// A run's operations per sample and where they come from: effective MACs plus ACs, else the
// dense MAC count, else the dense synaptic operations.
std::optional<std::pair<double, std::string>> operations_of(const FlatRun& f) {
  const auto macs = f.number("SynapticOperations.Effective_MACs");
  const auto acs = f.number("SynapticOperations.Effective_ACs");
  if (macs || acs) {
    return std::pair{macs.value_or(0) + acs.value_or(0), "Effective_MACs + Effective_ACs"};
  }
  if (auto dense_macs = f.number("DenseMACs.MACs")) return std::pair{*dense_macs, "DenseMACs.MACs"};
  if (auto dense = f.number("SynapticOperations.Dense")) {
    return std::pair{*dense, "SynapticOperations.Dense"};
  }
  return std::nullopt;
}

// A y scale padded around the values, kept within [0, 1] for fractions.
Scale metric_scale(const std::vector<Point>& points, const MetricInfo& info, const Plot& p) {
  std::vector<double> ys;
  for (const auto& pt : points) ys.push_back(pt.y);
  double ylo = *std::min_element(ys.begin(), ys.end());
  double yhi = *std::max_element(ys.begin(), ys.end());
  const double pad = yhi > ylo ? (yhi - ylo) * 0.15 : std::max(std::abs(yhi) * 0.05, 0.01);
  ylo -= pad;
  yhi += pad;
  if (info.unit == "fraction") {
    ylo = std::max(ylo, 0.0);
    yhi = std::min(yhi, 1.0);
  }
  return linear_scale(ylo, yhi, false, p.bottom(), p.top);
}

std::string metric_label(const std::string& metric, const MetricInfo& info) {
  return metric + (info.unit.empty() ? "" : " (" + info.unit + ")") +
         (info.better == Better::None ? ""
                                      : ", " + std::string(to_string(info.better)) + " is better");
}

std::string operations_label(const std::set<std::string>& sources, bool log) {
  return (sources.size() == 1 ? "operations per sample (" + *sources.begin() + ")"
                              : std::string("operations per sample (see the note)")) +
         (log ? ", log scale" : "");
}

std::string point_mark(const Point& pt, const std::string& label, const std::string& metric,
                       const Scale& x, const Scale& y) {
  const double cx = x(pt.x), cy = y(pt.y);
  return fmt::format(
      "<g class=\"point-group\" data-run=\"{0}\"><circle class=\"point\" data-run=\"{0}\" "
      "data-value=\"{1}\" data-x=\"{2}\" data-y=\"{1}\" data-ops-source=\"{3}\" cx=\"{4}\" "
      "cy=\"{5}\" r=\"6\" fill=\"{6}\"><title>{0}: {7} {8}, {9} operations</title></circle>"
      "<text class=\"point-label\" x=\"{10}\" y=\"{11}\">{0}</text></g>",
      esc(label), exact(pt.y), exact(pt.x), esc(pt.source), px(cx), px(cy), run_colour(pt.run),
      esc(metric), esc(format_number(pt.y)), esc(format_number(pt.x)), px(cx + 9), px(cy - 8));
}

// " Operations counted as: a: ...; b: ...." when the runs count them differently.
std::string sources_note(const std::vector<RunResults>& runs, const std::vector<Point>& points,
                         const std::set<std::string>& sources) {
  if (sources.size() <= 1) return "";
  std::string note;
  for (const auto& pt : points) {
    note += fmt::format("{}{}: {}", note.empty() ? "" : "; ", runs[pt.run].label, pt.source);
  }
  return " Operations counted as: " + note + ".";
}

std::string accuracy_svg(const std::vector<RunResults>& runs, const std::vector<Point>& points,
                         const std::string& metric, const MetricInfo& info,
                         const std::string& title) {
  const double width = 960;
  std::string body;
  std::vector<LegendItem> items;
  for (const auto& pt : points) {
    items.push_back({runs[pt.run].label, run_colour(pt.run), runs[pt.run].label});
  }
  const double legend_h = legend(body, items, 100, 12, width - 120);
  const Plot p{100, 30 + legend_h, width - 100 - 60, 320};
  const double height = p.bottom() + 56;
  std::vector<double> xs;
  std::set<std::string> sources;
  for (const auto& pt : points) {
    xs.push_back(pt.x);
    sources.insert(pt.source);
  }
  const Scale x = auto_scale(xs, p.left, p.right());
  const Scale y = metric_scale(points, info, p);
  std::string out = svg_open("svg-accuracy", width, height, title) + body;
  y_axis(out, y, p, metric_label(metric, info));
  x_axis(out, x, p, operations_label(sources, x.log));
  for (const auto& pt : points) out += point_mark(pt, runs[pt.run].label, metric, x, y);
  return out + "</svg>";
}

}  // namespace

std::string accuracy_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-accuracy";
  const auto correctness = correctness_metric(flat);
  const std::string metric = correctness ? correctness->key : "ClassificationAccuracy";
  const std::string title = metric + " against operations";
  std::vector<Point> points;
  std::vector<std::string> without;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto y = flat[r].number(metric);
    const auto x = operations_of(flat[r]);
    if (!x || !y) {
      without.push_back(runs[r].label);
      continue;
    }
    points.push_back({r, x->first, *y, x->second});
  }
  if (points.empty()) {
    return left_out(id, title,
                    correctness ? "no run has both " + metric +
                                      " and operation counts (SynapticOperations or DenseMACs)."
                                : "no run has a correctness metric (ClassificationAccuracy, "
                                  "SMAPE, R2 or MSE).");
  }
  const MetricInfo info = metric_info(runs, metric);
  std::set<std::string> sources;
  for (const auto& pt : points) sources.insert(pt.source);
  const std::string direction = info.better == Better::Higher  ? " Up and to the left is better."
                                : info.better == Better::Lower ? " Down and to the left is better."
                                                               : "";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">{} of each run against its operations per sample: effective MACs "
      "plus effective ACs, or the dense MAC count when a run has no synaptic operations.{}{}</p>"
      "{}{}</section>\n",
      id, esc(title), esc(metric), esc(direction), esc(sources_note(runs, points, sources)),
      accuracy_svg(runs, points, metric, info, title),
      not_shown_note(without, "no " + metric + " or no operation counts"));
}

}  // namespace neurobench::detail
