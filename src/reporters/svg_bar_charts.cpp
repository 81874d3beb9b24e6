// SPDX-License-Identifier: Apache-2.0
// Bar charts of the HTML report: activation sparsity by layer and synaptic operations. The
// latency and accuracy charts are in svg_latency_chart.cpp and svg_accuracy_chart.cpp.
#include "reporters/svg_charts.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

#include "reporters/svg_plot.hpp"
#include "reporters/text.hpp"

namespace neurobench::detail {

// --- activation sparsity by layer ------------------------------------------------------------

namespace {

const std::string kLayerPrefix = "ActivationSparsityByLayer.";

struct LayerValues {
  std::vector<std::string> layers;   // union over the runs, in order of first appearance
  std::vector<std::size_t> with;     // runs that have per-layer values
  std::vector<std::string> without;  // labels of the others
};

LayerValues layer_values(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  LayerValues out;
  std::set<std::string> seen;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    bool any = false;
    for (const auto& v : flat[r].values()) {
      if (!starts_with(v.key, kLayerPrefix) || !detail::is_finite(v)) continue;
      any = true;
      const std::string layer = v.key.substr(kLayerPrefix.size());
      if (seen.insert(layer).second) out.layers.push_back(layer);
    }
    if (any) {
      out.with.push_back(r);
    } else {
      out.without.push_back(runs[r].label);
    }
  }
  return out;
}

// The bars of layer `l`, one per run that has per-layer values, and the layer's label.
std::string layer_group(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat,
                        const LayerValues& data, std::size_t l, const Plot& p, const Scale& y) {
  const std::string& layer = data.layers[l];
  const double gw = p.width / static_cast<double>(data.layers.size());
  const double bw = gw * 0.8 / static_cast<double>(data.with.size());
  const double gx = p.left + gw * static_cast<double>(l);
  std::string svg = fmt::format("<g class=\"group\" data-layer=\"{}\">", esc(layer));
  for (std::size_t j = 0; j < data.with.size(); ++j) {
    const std::size_t r = data.with[j];
    const auto v = flat[r].number(kLayerPrefix + layer);
    if (!v) continue;
    const double top = y(std::clamp(*v, 0.0, 1.0));
    svg += fmt::format(
        "<rect class=\"bar\" data-run=\"{}\" data-layer=\"{}\" data-value=\"{}\" x=\"{}\" "
        "y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}, {}: {}</title></rect>",
        esc(runs[r].label), esc(layer), exact(*v), px(gx + gw * 0.1 + bw * static_cast<double>(j)),
        px(top), px(std::max(bw - 1, 1.0)), px(p.bottom() - top), run_colour(r), esc(runs[r].label),
        esc(layer), esc(format_number(*v)));
  }
  const double cx = gx + gw / 2;
  svg += fmt::format(
      "<text class=\"tick-label layer-label\" transform=\"translate({},{}) rotate(-40)\" "
      "text-anchor=\"end\">{}<title>{}</title></text></g>",
      px(cx), px(p.bottom() + 12), esc(shorten(layer, 32)), esc(layer));
  return svg;
}

}  // namespace

std::string sparsity_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-sparsity";
  const std::string title = "Activation sparsity by layer";
  const LayerValues data = layer_values(runs, flat);
  if (data.layers.empty()) {
    return left_out(id, title,
                    "no run has per-layer activation sparsity (the ActivationSparsityByLayer "
                    "metric).");
  }
  const double slot = std::max(14.0, 60.0 / static_cast<double>(data.with.size()));
  const double group = std::max(48.0, slot * static_cast<double>(data.with.size()) / 0.8);
  const double width = std::max(960.0, 90 + 24 + group * static_cast<double>(data.layers.size()));
  std::string body;
  std::vector<LegendItem> items;
  for (const std::size_t r : data.with) {
    items.push_back({runs[r].label, run_colour(r), runs[r].label});
  }
  const double legend_h = legend(body, items, 90, 12, width - 110);
  std::size_t longest = 0;
  for (const auto& l : data.layers) {
    longest = std::max(longest, std::min<std::size_t>(l.size(), 32));
  }
  const Plot p{90, 24 + legend_h, width - 90 - 24, 260};
  const double height = p.bottom() + 24 + text_width(std::string(longest, 'x')) * 0.65;
  const Scale y = linear_scale(0, 1, true, p.bottom(), p.top);
  std::string svg = svg_open("svg-sparsity", width, height, title) + body;
  y_axis(svg, y, p, "activation sparsity (higher is better)");
  for (std::size_t l = 0; l < data.layers.size(); ++l) {
    svg += layer_group(runs, flat, data, l, p, y);
  }
  baseline(svg, p);
  svg += "</svg>";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Fraction of zero outputs of each activation layer over the whole "
      "run, one bar per run. Layers are the union over all runs; a missing bar means that run "
      "has no such layer.</p>{}{}</section>\n",
      id, esc(title), svg, not_shown_note(data.without, "no ActivationSparsityByLayer"));
}

// --- synaptic operations ---------------------------------------------------------------------

namespace {

struct OperationKind {
  const char* key;
  const char* name;
  const char* colour;
};

constexpr std::array<OperationKind, 3> kOperationKinds = {{
    {"SynapticOperations.Effective_MACs", "Effective_MACs", "#4269d0"},
    {"SynapticOperations.Effective_ACs", "Effective_ACs", "#ff725c"},
    {"SynapticOperations.Dense", "Dense", "#9aa3b0"},
}};

struct OperationValues {
  std::vector<std::size_t> with;     // runs that have synaptic operations
  std::vector<std::string> without;  // labels of the others
  std::vector<double> values;        // every value shown, for the scale
};

OperationValues operation_values(const std::vector<RunResults>& runs,
                                 const std::vector<FlatRun>& flat) {
  OperationValues out;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    bool any = false;
    for (const auto& k : kOperationKinds) {
      if (auto v = flat[r].number(k.key)) {
        any = true;
        out.values.push_back(*v);
      }
    }
    if (any) {
      out.with.push_back(r);
    } else {
      out.without.push_back(runs[r].label);
    }
  }
  return out;
}

// The bars of one run, centred on `cx`, each with its value above it, and the run's label.
std::string operations_group(const std::string& label, const FlatRun& flat, double cx, double gw,
                             const Plot& p, const Scale& y) {
  const double bw = std::min(34.0, gw * 0.8 / 3);
  std::string svg = fmt::format("<g class=\"group\" data-run=\"{}\">", esc(label));
  for (std::size_t k = 0; k < kOperationKinds.size(); ++k) {
    const OperationKind& kind = kOperationKinds[k];
    const auto v = flat.number(kind.key);
    if (!v) continue;
    const double x = cx - 1.5 * bw + bw * static_cast<double>(k);
    const double top = std::min(y(std::max(*v, 0.0)), p.bottom());
    svg += fmt::format(
        "<rect class=\"bar\" data-run=\"{}\" data-op=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" "
        "width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}, {}: {}</title></rect>"
        "<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        esc(label), kind.name, exact(*v), px(x + 1), px(top), px(bw - 2), px(p.bottom() - top),
        kind.colour, esc(label), kind.name, esc(format_number(*v)), px(x + bw / 2), px(top - 4),
        esc(format_number(*v)));
  }
  svg += fmt::format(
      "<text class=\"tick-label run-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}"
      "<title>{}</title></text></g>",
      px(cx), px(p.bottom() + 18), esc(shorten(label, static_cast<std::size_t>(gw / 7))),
      esc(label));
  return svg;
}

}  // namespace

std::string operations_chart(const std::vector<RunResults>& runs,
                             const std::vector<FlatRun>& flat) {
  const char* id = "chart-operations";
  const std::string title = "Synaptic operations per sample";
  const OperationValues data = operation_values(runs, flat);
  if (data.with.empty()) {
    return left_out(id, title, "no run has synaptic operations (the SynapticOperations metric).");
  }
  const double group = 3 * 34 + 40;
  const double width = std::max(960.0, 90 + 24 + group * static_cast<double>(data.with.size()));
  std::string body;
  std::vector<LegendItem> items;
  for (const auto& k : kOperationKinds) items.push_back({k.name, k.colour, ""});
  const double legend_h = legend(body, items, 90, 12, width - 110);
  const Plot p{90, 30 + legend_h, width - 90 - 24, 280};
  const double height = p.bottom() + 44;
  const Scale y = auto_scale(data.values, p.bottom(), p.top);
  std::string svg = svg_open("svg-operations", width, height, title) + body;
  y_axis(svg, y, p, y.log ? "operations per sample (log scale)" : "operations per sample");
  const double gw = p.width / static_cast<double>(data.with.size());
  for (std::size_t j = 0; j < data.with.size(); ++j) {
    const std::size_t r = data.with[j];
    const double cx = p.left + gw * (static_cast<double>(j) + 0.5);
    svg += operations_group(runs[r].label, flat[r], cx, gw, p, y);
  }
  baseline(svg, p);
  svg += "</svg>";
  const std::string scale_note =
      y.log ? " The values span more than two decades, so the axis is logarithmic; a zero sits "
              "on the baseline."
            : "";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Effective multiply-accumulates (non-spiking inputs), effective "
      "accumulates (spiking inputs) and the dense count, per sample, for each run.{}</p>"
      "{}{}</section>\n",
      id, esc(title), esc(scale_note), svg, not_shown_note(data.without, "no SynapticOperations"));
}

}  // namespace neurobench::detail
