// SPDX-License-Identifier: Apache-2.0
// The parts the report's hand-drawn SVG charts are made of: scales, axes, legends, the run
// colours, and the notes of a chart left out. Private to the reporters (src/reporters).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace neurobench::detail {

/// The colour of the i-th run, the same everywhere on the page.
[[nodiscard]] const char* run_colour(std::size_t i);

/// Approximate width of chart text at 11px, for layout only.
[[nodiscard]] double text_width(std::string_view s);

/// Maps values to pixels, linear or logarithmic (base 10), with tick positions.
struct Scale {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double p0 = 0;  ///< Pixel of lo.
  double p1 = 1;  ///< Pixel of hi.
  std::vector<double> ticks;

  /// The pixel of `v`; on a log axis, zero and below sit at the baseline.
  [[nodiscard]] double operator()(double v) const;
};

/// A linear scale over [lo, hi] with "nice" ticks, widened to include 0 when `from_zero`.
[[nodiscard]] Scale linear_scale(double lo, double hi, bool from_zero, double p0, double p1);
/// A base-10 log scale from the decade below `min_positive` to the decade above `hi`.
[[nodiscard]] Scale log_scale(double min_positive, double hi, double p0, double p1);
/// Linear from zero, or logarithmic when the positive values span more than two decades.
[[nodiscard]] Scale auto_scale(const std::vector<double>& values, double p0, double p1);

/// The plotting area of a chart, in pixels.
struct Plot {
  double left, top, width, height;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
};

/// Appends a y axis with grid lines, tick labels and a rotated label.
void y_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label);
/// Appends an x axis with grid lines, tick labels and a label.
void x_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label);
/// Appends the horizontal axis line at the bottom of the plot.
void baseline(std::string& out, const Plot& p);

/// One entry of a legend.
struct LegendItem {
  std::string text;
  std::string colour;
  std::string run;  ///< data-run, when the item is a run.
};

/// Appends a legend of coloured swatches, wrapped to the width; returns its height.
double legend(std::string& out, const std::vector<LegendItem>& items, double left, double top,
              double width);

/// The opening `<svg>` tag of a chart, with its title.
[[nodiscard]] std::string svg_open(const char* id, double width, double height,
                                   const std::string& title);
/// The section of a chart that no run has data for, saying why.
[[nodiscard]] std::string left_out(const char* id, const std::string& title,
                                   const std::string& why);
/// A note naming the runs a chart does not show, and why; empty when there are none.
[[nodiscard]] std::string not_shown_note(const std::vector<std::string>& labels,
                                         const std::string& why);

}  // namespace neurobench::detail
