// SPDX-License-Identifier: Apache-2.0
// The HTML report's line chart of FSCIL runs: accuracy over sessions, on all classes seen and on
// the new classes alone.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/flat_values.hpp"
#include "reporters/fscil_sessions.hpp"
#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

namespace {

// One line of the chart: a run's accuracy of one kind, a point per session with a finite value.
struct FscilLine {
  std::size_t run;
  const char* kind;                                // class: all-seen or new-classes
  const char* what;                                // for the legend and the tooltips
  std::string key;                                 // the session value it plots
  std::vector<std::pair<int64_t, double>> points;  // (session, accuracy)
};

std::vector<FscilLine> fscil_chart_lines(const std::vector<RunResults>& runs) {
  std::vector<FscilLine> lines;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!runs[r].fscil) continue;
    for (FscilLine line :
         {FscilLine{r, "all-seen", "all classes seen", "ClassificationAccuracy", {}},
          FscilLine{r, "new-classes", "new classes alone", kFscilNewClassesKey, {}}}) {
      for (const auto& s : runs[r].fscil->sessions) {
        const FlatValue v = fscil_session_value(s, line.key);
        if (is_finite(v)) line.points.emplace_back(s.session, v.number);
      }
      if (!line.points.empty()) lines.push_back(std::move(line));
    }
  }
  return lines;
}

std::string fscil_line_svg(const FscilLine& line, const std::string& label, const Scale& x,
                           const Scale& y) {
  std::string points;
  for (const auto& [session, accuracy] : line.points) {
    points +=
        (points.empty() ? "" : " ") + px(x(static_cast<double>(session))) + "," + px(y(accuracy));
  }
  const bool dashed = std::string(line.kind) == "new-classes";
  std::string out = fmt::format(
      "<g class=\"fscil-line\" data-run=\"{0}\" data-kind=\"{1}\"><polyline class=\"line {1}\" "
      "data-run=\"{0}\" data-points=\"{2}\" points=\"{3}\" fill=\"none\" stroke=\"{4}\" "
      "stroke-width=\"2\"{5}/>",
      esc(label), line.kind, line.points.size(), points, run_colour(line.run),
      dashed ? " stroke-dasharray=\"6 4\"" : "");
  for (const auto& [session, accuracy] : line.points) {
    out += fmt::format(
        "<circle class=\"point {0}\" data-session=\"{1}\" data-value=\"{2}\" cx=\"{3}\" "
        "cy=\"{4}\" r=\"4\" fill=\"{5}\"><title>{6}, session {1}: accuracy on {7} {8}</title>"
        "</circle>",
        line.kind, session, exact(accuracy), px(x(static_cast<double>(session))), px(y(accuracy)),
        run_colour(line.run), esc(label), line.what, esc(format_number(accuracy)));
  }
  return out + "</g>";
}

// Sessions 0 to `last`, a tick on every session (every other one past 20).
Scale fscil_session_scale(int64_t last, const Plot& p) {
  Scale s;
  s.lo = 0;
  s.hi = static_cast<double>(std::max<int64_t>(last, 1));
  s.p0 = p.left;
  s.p1 = p.right();
  const int64_t every = last > 20 ? 2 : 1;
  for (int64_t t = 0; t <= static_cast<int64_t>(s.hi); t += every) {
    s.ticks.push_back(static_cast<double>(t));
  }
  return s;
}

}  // namespace

std::string fscil_accuracy_chart(const std::vector<RunResults>& runs) {
  const std::vector<FscilLine> lines = fscil_chart_lines(runs);
  if (lines.empty()) return "";
  const std::string title = "FSCIL accuracy over sessions";
  const double width = 960;
  std::string body;
  std::vector<LegendItem> items;
  int64_t last = 0;
  for (const auto& line : lines) {
    const std::string& label = runs[line.run].label;
    items.push_back({label + ": " + line.what +
                         (std::string(line.kind) == "new-classes" ? " (dashed)" : " (solid)"),
                     run_colour(line.run), label});
    last = std::max(last, line.points.back().first);
  }
  const double legend_h = legend(body, items, 100, 12, width - 120);
  const Plot p{100, 30 + legend_h, width - 100 - 60, 320};
  const double height = p.bottom() + 56;
  const Scale x = fscil_session_scale(last, p);
  const Scale y = linear_scale(0, 1, true, p.bottom(), p.top);
  std::string svg = svg_open("svg-fscil", width, height, title) + body;
  y_axis(svg, y, p, "ClassificationAccuracy (fraction), higher is better");
  x_axis(svg, x, p, "session (0: the base classes)");
  for (const auto& line : lines) svg += fscil_line_svg(line, runs[line.run].label, x, y);
  svg += "</svg>";
  return fmt::format(
      "<section id=\"chart-fscil\" class=\"chart\"><h2>{}</h2><p class=\"caption\">Each FSCIL "
      "run's accuracy in every session: on all the classes seen so far (solid) and on the new "
      "classes alone (dashed; from session 1). Sessions with a failed or non-finite accuracy "
      "have no point.</p>{}</section>\n",
      esc(title), svg);
}

}  // namespace neurobench::detail
