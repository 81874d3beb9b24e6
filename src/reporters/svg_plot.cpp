// SPDX-License-Identifier: Apache-2.0
#include "reporters/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/text.hpp"

namespace neurobench::detail {

namespace {

constexpr std::array<const char*, 8> kRunColours = {"#4269d0", "#efb118", "#ff725c", "#6cc5b0",
                                                    "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"};

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

// Tick labels of one axis share a style: all scientific from 1e3 up when the axis reaches 1e5.
std::string tick_text(double t, const Scale& s) {
  if (s.hi >= 1e5 && std::abs(t) >= 1e3) return scientific(t);
  return format_number(t);
}

}  // namespace

const char* run_colour(std::size_t i) { return kRunColours[i % kRunColours.size()]; }

double text_width(std::string_view s) { return 6.4 * static_cast<double>(s.size()); }

double Scale::operator()(double v) const {
  double t;
  if (log) {
    if (v <= 0) return p0;  // zero has no place on a log axis: drawn at the baseline
    t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  } else {
    t = (v - lo) / (hi - lo);
  }
  return p0 + t * (p1 - p0);
}

Scale linear_scale(double lo, double hi, bool from_zero, double p0, double p1) {
  if (from_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(hi > lo)) {
    const double pad = hi != 0 ? std::abs(hi) * 0.1 : 1.0;
    if (!from_zero || lo < 0) lo -= pad;
    hi += pad;
  }
  Scale s;
  const double step = nice_step((hi - lo) / 5);
  s.lo = std::floor(lo / step + 1e-9) * step;
  s.hi = std::ceil(hi / step - 1e-9) * step;
  if (!(s.hi > s.lo)) s.hi = s.lo + step;
  for (int i = 0;; ++i) {
    double t = s.lo + i * step;
    if (t > s.hi + step * 1e-6) break;
    if (std::abs(t) < step * 1e-9) t = 0;
    s.ticks.push_back(t);
  }
  s.p0 = p0;
  s.p1 = p1;
  return s;
}

Scale log_scale(double min_positive, double hi, double p0, double p1) {
  Scale s;
  s.log = true;
  int e0 = static_cast<int>(std::floor(std::log10(min_positive) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  s.lo = std::pow(10.0, e0);
  s.hi = std::pow(10.0, e1);
  const int every = (e1 - e0) > 10 ? 2 : 1;
  for (int e = e0; e <= e1; e += every) s.ticks.push_back(std::pow(10.0, e));
  s.p0 = p0;
  s.p1 = p1;
  return s;
}

Scale auto_scale(const std::vector<double>& values, double p0, double p1) {
  double min_positive = 0, max = 0;
  for (const double v : values) {
    max = std::max(max, v);
    if (v > 0 && (min_positive == 0 || v < min_positive)) min_positive = v;
  }
  if (min_positive > 0 && max / min_positive > 100) return log_scale(min_positive, max, p0, p1);
  return linear_scale(0, max, true, p0, p1);
}

void y_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label) {
  out += "<g class=\"axis y-axis\">";
  for (const double t : s.ticks) {
    const double y = s(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        px(p.left), px(y), px(p.right()), px(y), px(p.left - 6), px(y + 4), esc(tick_text(t, s)));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                     px(p.left), px(p.top), px(p.bottom()));
  out += fmt::format(
      "<text class=\"axis-label\" transform=\"translate({},{}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text></g>",
      px(p.left - 54), px(p.top + p.height / 2), esc(label));
}

void x_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label) {
  out += "<g class=\"axis x-axis\">";
  for (const double t : s.ticks) {
    const double x = s(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        px(x), px(p.top), px(x), px(p.bottom()), px(x), px(p.bottom() + 16), esc(tick_text(t, s)));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>",
                     px(p.left), px(p.bottom()), px(p.right()));
  out += fmt::format(
      "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
      px(p.left + p.width / 2), px(p.bottom() + 38), esc(label));
}

void baseline(std::string& out, const Plot& p) {
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>",
                     px(p.left), px(p.bottom()), px(p.right()));
}

double legend(std::string& out, const std::vector<LegendItem>& items, double left, double top,
              double width) {
  out += "<g class=\"legend\">";
  double x = left, y = top;
  for (const auto& item : items) {
    const double w = 22 + text_width(item.text) + 14;
    if (x + w > left + width && x > left) {
      x = left;
      y += 18;
    }
    out += fmt::format("<g class=\"legend-item\"{}>",
                       item.run.empty() ? "" : " data-run=\"" + esc(item.run) + "\"");
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" rx=\"2\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text></g>",
        px(x), px(y), item.colour, px(x + 17), px(y + 10), esc(item.text));
    x += w;
  }
  out += "</g>";
  return y - top + 18;
}

std::string svg_open(const char* id, double width, double height, const std::string& title) {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart-svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\"><title>{}</title>",
      id, px(width), px(height), px(width), px(height), esc(title), esc(title));
}

std::string left_out(const char* id, const std::string& title, const std::string& why) {
  return fmt::format(
      "<section id=\"{}\" class=\"chart left-out\"><h2>{}</h2>"
      "<p class=\"note left-out-note\">Left out: {}</p></section>\n",
      id, esc(title), esc(why));
}

std::string not_shown_note(const std::vector<std::string>& labels, const std::string& why) {
  if (labels.empty()) return "";
  std::vector<std::string> escaped;
  for (const auto& l : labels) escaped.push_back(esc(l));
  return fmt::format("<p class=\"note not-shown\">Not shown: {} ({}).</p>",
                     fmt::join(escaped, ", "), esc(why));
}

}  // namespace neurobench::detail
