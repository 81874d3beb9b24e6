// SPDX-License-Identifier: Apache-2.0
// The HTML report's latency chart: one box-and-whisker glyph per run.
#include "reporters/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/run_context.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

namespace {

struct LatencyStats {
  std::size_t run;
  double min, median, max;
  std::optional<double> mean, p90, p99, batch_size;
  TimingBasis basis;
};

// A run's figures, when it has at least min, median and max.
std::optional<LatencyStats> latency_stats(const std::vector<RunResults>& runs,
                                          const std::vector<FlatRun>& flat, std::size_t r) {
  const auto& f = flat[r];
  const auto min = f.number("Latency.batch_min_ms");
  const auto median = f.number("Latency.batch_median_ms");
  const auto max = f.number("Latency.batch_max_ms");
  if (!min || !median || !max) return std::nullopt;
  return LatencyStats{r,
                      *min,
                      *median,
                      *max,
                      f.number("Latency.batch_mean_ms"),
                      f.number("Latency.batch_p90_ms"),
                      f.number("Latency.batch_p99_ms"),
                      f.number("Latency.batch_size"),
                      timing_basis(runs[r], f)};
}

// Every figure drawn, for the scale.
std::vector<double> latency_values(const std::vector<LatencyStats>& rows) {
  std::vector<double> values;
  for (const auto& s : rows) {
    for (const auto& v : {std::optional<double>(s.min), std::optional<double>(s.median),
                          std::optional<double>(s.max), s.mean, s.p90, s.p99}) {
      if (v) values.push_back(*v);
    }
  }
  return values;
}

// The legend: the parts of the glyph.
std::string glyph_legend() {
  const double ly = 18;
  return "<g class=\"legend glyph-legend\">" +
         fmt::format(
             "<line class=\"whisker\" x1=\"190\" y1=\"{0}\" x2=\"230\" y2=\"{0}\"/>"
             "<text x=\"236\" y=\"{1}\">min to max</text>"
             "<rect class=\"box\" x=\"320\" y=\"{2}\" width=\"30\" height=\"12\" fill=\"#bbb\"/>"
             "<text x=\"356\" y=\"{1}\">median to p90</text>"
             "<line class=\"median\" x1=\"460\" y1=\"{2}\" x2=\"460\" y2=\"{3}\"/>"
             "<text x=\"468\" y=\"{1}\">median</text>"
             "<path class=\"mean\" d=\"M540,{4}l5,5l-5,5l-5,-5z\"/>"
             "<text x=\"550\" y=\"{1}\">mean</text>"
             "<line class=\"p99\" x1=\"610\" y1=\"{2}\" x2=\"610\" y2=\"{3}\"/>"
             "<text x=\"618\" y=\"{1}\">p99</text></g>",
             px(ly), px(ly + 4), px(ly - 6), px(ly + 6), px(ly - 5));
}

// The run's label, with its batch size and timed runs under it, left of the plot.
std::string glyph_label(const LatencyStats& s, const std::string& label, const Plot& p, double cy) {
  std::string detail;
  if (s.batch_size) detail = fmt::format("batch {}", format_number(*s.batch_size));
  if (s.basis.runs) {
    detail += fmt::format("{}{} runs", detail.empty() ? "" : ", ", format_number(*s.basis.runs));
  }
  return fmt::format(
      "<text class=\"run-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}<title>{}</title>"
      "</text><text class=\"run-detail\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
      px(p.left - 10), px(cy - 2), esc(shorten(label, 26)), esc(label), px(p.left - 10),
      px(cy + 12), esc(detail));
}

// Whiskers and caps from min to max, the box from the median to p90, the median, the mean, p99.
std::string glyph_marks(const LatencyStats& s, const char* colour, double cy, const Scale& x) {
  std::string svg = fmt::format(
      "<line class=\"whisker\" data-stat=\"range\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" "
      "stroke=\"{3}\"/>",
      px(x(s.min)), px(x(s.max)), px(cy), colour);
  for (const auto& [stat, v] : {std::pair<const char*, double>{"min", s.min}, {"max", s.max}}) {
    svg += fmt::format(
        "<line class=\"cap\" data-stat=\"{0}\" data-value=\"{1}\" x1=\"{2}\" y1=\"{3}\" "
        "x2=\"{2}\" y2=\"{4}\" stroke=\"{5}\"/>",
        stat, exact(v), px(x(v)), px(cy - 7), px(cy + 7), colour);
  }
  if (s.p90) {
    const double x0 = x(s.median), x1 = x(*s.p90);
    svg += fmt::format(
        "<rect class=\"box\" data-stat=\"p90\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"20\" fill=\"{}\" stroke=\"{}\"/>",
        exact(*s.p90), px(std::min(x0, x1)), px(cy - 10), px(std::max(std::abs(x1 - x0), 1.0)),
        colour, colour);
  }
  svg += fmt::format(
      "<line class=\"median\" data-stat=\"median\" data-value=\"{0}\" x1=\"{1}\" y1=\"{2}\" "
      "x2=\"{1}\" y2=\"{3}\"/>",
      exact(s.median), px(x(s.median)), px(cy - 12), px(cy + 12));
  if (s.mean) {
    svg += fmt::format(
        "<path class=\"mean\" data-stat=\"mean\" data-value=\"{}\" d=\"M{},{}l5,5l-5,5l-5,-5z\"/>",
        exact(*s.mean), px(x(*s.mean)), px(cy - 5));
  }
  if (s.p99) {
    svg += fmt::format(
        "<line class=\"p99\" data-stat=\"p99\" data-value=\"{0}\" x1=\"{1}\" y1=\"{2}\" "
        "x2=\"{1}\" y2=\"{3}\"/>",
        exact(*s.p99), px(x(*s.p99)), px(cy - 9), px(cy + 9));
  }
  return svg;
}

std::string latency_glyph(const LatencyStats& s, const std::string& label, double cy, const Plot& p,
                          const Scale& x) {
  std::string attrs = fmt::format(
      "data-run=\"{}\" data-value=\"{}\" data-min=\"{}\" data-median=\"{}\" data-max=\"{}\"",
      esc(label), exact(s.median), exact(s.min), exact(s.median), exact(s.max));
  if (s.mean) attrs += fmt::format(" data-mean=\"{}\"", exact(*s.mean));
  if (s.p90) attrs += fmt::format(" data-p90=\"{}\"", exact(*s.p90));
  if (s.p99) attrs += fmt::format(" data-p99=\"{}\"", exact(*s.p99));
  return fmt::format("<g class=\"latency-glyph\" {}>", attrs) + glyph_label(s, label, p, cy) +
         glyph_marks(s, run_colour(s.run), cy, x) +
         fmt::format("<title>{}: min {} ms, median {} ms{}{}{}, max {} ms</title></g>", esc(label),
                     esc(format_number(s.min)), esc(format_number(s.median)),
                     s.mean ? esc(", mean " + format_number(*s.mean) + " ms") : "",
                     s.p90 ? esc(", p90 " + format_number(*s.p90) + " ms") : "",
                     s.p99 ? esc(", p99 " + format_number(*s.p99) + " ms") : "",
                     esc(format_number(s.max)));
}

// " Figures rest on cnn: 120 timed runs after 3 warm-ups; ...", or nothing.
std::string basis_note(const std::vector<RunResults>& runs, const std::vector<LatencyStats>& rows) {
  std::string basis;
  for (const auto& s : rows) {
    if (!s.basis.runs) continue;
    basis += fmt::format("{}{}: {} timed runs", basis.empty() ? "" : "; ", runs[s.run].label,
                         format_number(*s.basis.runs));
    if (s.basis.warmup) basis += fmt::format(" after {} warm-ups", format_number(*s.basis.warmup));
  }
  return basis.empty() ? basis : " Figures rest on " + basis + ".";
}

}  // namespace

std::string latency_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-latency";
  const std::string title = "Latency distribution per batch";
  std::vector<LatencyStats> rows;
  std::vector<std::string> without;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (auto s = latency_stats(runs, flat, r)) {
      rows.push_back(*s);
    } else {
      without.push_back(runs[r].label);
    }
  }
  if (rows.empty()) {
    return left_out(id, title,
                    "no run has latency figures (the Latency metric with batch_min_ms, "
                    "batch_median_ms and batch_max_ms).");
  }
  const double width = 960;
  const double row_h = 46;
  const Plot p{190, 40, width - 190 - 30, row_h * static_cast<double>(rows.size())};
  const double height = p.bottom() + 52;
  const Scale x = auto_scale(latency_values(rows), p.left, p.right());
  std::string svg = svg_open("svg-latency", width, height, title) + glyph_legend();
  x_axis(svg, x, p, x.log ? "ms per batch (log scale)" : "ms per batch");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double cy = p.top + row_h * (static_cast<double>(i) + 0.5);
    svg += latency_glyph(rows[i], runs[rows[i].run].label, cy, p, x);
  }
  svg += "</svg>";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Time of one forward call on a batch (the Latency metric), in ms: "
      "whiskers from min to max, a box from the median to p90, the median as a thick line, the "
      "mean as a diamond, p99 as a short tick.{}</p>{}{}</section>\n",
      id, esc(title), esc(basis_note(runs, rows)), svg,
      not_shown_note(without, "no Latency figures"));
}

}  // namespace neurobench::detail
