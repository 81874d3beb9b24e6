// SPDX-License-Identifier: Apache-2.0
// The legacy table: units and directions of the built-in metrics, keyed by name. Only the
// fallback for results files written before `_metrics` existed (and for metrics a file does
// not describe); a file's own descriptions always win (metric_info.cpp).
#include <neurobench/reporters/metric_info.hpp>

#include <array>

#include "reporters/text.hpp"

namespace neurobench {

namespace {

struct LegacyMetric {
  std::string_view name;
  std::string_view unit;
  Better better;
};

// Single-valued metrics (spec: static and workload metrics; notes/results_format.md units).
constexpr std::array<LegacyMetric, 10> kLegacyScalarMetrics = {{
    {"Footprint", "bytes", Better::Lower},
    {"ModelFileSize", "bytes", Better::Lower},
    {"ParameterCount", "parameters", Better::Lower},
    {"ConnectionSparsity", "fraction", Better::Higher},
    {"ClassificationAccuracy", "fraction", Better::Higher},
    {"MSE", "", Better::Lower},
    {"SMAPE", "%", Better::Lower},
    {"R2", "", Better::Higher},
    {"ActivationSparsity", "fraction", Better::Higher},
    {"MembraneUpdates", "updates/sample", Better::Lower},
}};

// Multi-valued metrics whose every key shares a unit and a direction.
constexpr std::array<LegacyMetric, 3> kLegacyGroupMetrics = {{
    {"ActivationSparsityByLayer", "fraction", Better::Higher},
    {"SynapticOperations", "ops/sample", Better::Lower},
    {"NeuronOperations", "ops/sample", Better::Lower},
}};

// Timing and memory metrics: keys named by their unit suffix.
constexpr std::array<std::string_view, 5> kLegacyMeasuredMetrics = {
    "Latency", "InferenceTime", "Throughput", "StartupTime", "PeakMemory"};

MetricInfo measured_key(std::string_view sub) {
  using detail::ends_with;
  if (sub == "batch_size" || sub == "samples") return {"samples", Better::None};
  if (sub == "runs" || sub == "warmup_runs" || ends_with(sub, "_runs")) {
    return {"count", Better::None};
  }
  // A spread is not a speed: no direction, so noise in it never fails a comparison.
  if (ends_with(sub, "_std_ms")) return {"ms", Better::None};
  if (ends_with(sub, "_ms")) return {"ms", Better::Lower};
  if (ends_with(sub, "_per_s")) {
    return {detail::starts_with(sub, "samples") ? "samples/s" : "1/s", Better::Higher};
  }
  if (sub == "seconds" || ends_with(sub, "_s")) return {"s", Better::None};
  if (ends_with(sub, "_bytes")) return {"bytes", Better::Lower};
  return {};
}

}  // namespace

MetricInfo legacy_metric_info(std::string_view key) {
  const auto dot = key.find('.');
  const std::string_view top = key.substr(0, dot);
  if (dot == std::string_view::npos) {
    for (const auto& m : kLegacyScalarMetrics) {
      if (m.name == top) return {std::string(m.unit), m.better};
    }
    return {};
  }
  const std::string_view sub = key.substr(dot + 1);
  for (const auto& m : kLegacyGroupMetrics) {
    if (m.name == top) return {std::string(m.unit), m.better};
  }
  if (top == "DenseMACs") {
    if (sub == "MACs") return {"MACs/sample", Better::Lower};
    if (sub == "FLOPs") return {"FLOPs/sample", Better::Lower};
    return {"ops/sample", Better::Lower};
  }
  for (const auto& m : kLegacyMeasuredMetrics) {
    if (m == top) return measured_key(sub);
  }
  return {};
}

}  // namespace neurobench
