// SPDX-License-Identifier: Apache-2.0
// `neurobench list`: every registered metric and processor, what it means and where it came
// from.
#include <algorithm>

#include <fmt/format.h>
#include <torch/cuda.h>

#include <neurobench/components.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/device.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/run_keys.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

namespace {

// "bytes, lower is better"; "" when the metric says neither.
std::string meaning(const MetricDescription& d) {
  std::string text = d.value.unit;
  if (d.value.better != Better::None) {
    text += fmt::format("{}{} is better", text.empty() ? "" : ", ", to_string(d.value.better));
  }
  return text;
}

std::string meaning(const PluginDescription& /*d*/) { return ""; }

// Where a plugin came from, when not built in.
std::string origin(const PluginDescription& d) {
  if (d.source == "built-in") return "";
  return fmt::format("    from {}\n", d.source.empty() ? "program" : d.source);
}

std::string options_text(const PluginDescription& d) {
  std::string text;
  for (const auto& o : d.options) {
    const std::string fallback =
        o.default_value.is_null() ? "required" : "default " + o.default_value.dump();
    text += fmt::format("    option {} ({}, {}): {}\n", o.name, o.type.empty() ? "any" : o.type,
                        fallback, o.description);
  }
  return text;
}

template <class Base, class Description>
void print(std::ostream& out, const char* title, const Registry<Base, Description>& registry) {
  out << title << ":\n";
  if (registry.entries().empty()) out << "  (none)\n";
  std::size_t name_width = 0;
  std::size_t meaning_width = 0;
  for (const auto& e : registry.entries()) {
    name_width = std::max(name_width, e.name.size());
    meaning_width = std::max(meaning_width, meaning(e).size());
  }
  for (const auto& e : registry.entries()) {
    if (meaning_width == 0) {
      out << fmt::format("  {:<{}}  {}\n", e.name, name_width, e.description);
    } else {
      out << fmt::format("  {:<{}}  {:<{}}  {}\n", e.name, name_width, meaning(e), meaning_width,
                         e.description);
    }
    out << origin(e) << options_text(e);
  }
}

void print_dataset_kinds(std::ostream& out) {
  out << "data set kinds (--dataset KIND:PATH, with --subset and --dataset-options):\n";
  const auto& kinds = dataset_kinds().entries();
  if (kinds.empty()) out << "  (none)\n";
  std::size_t name_width = 0;
  for (const auto& k : kinds) name_width = std::max(name_width, k.name.size());
  for (const auto& k : kinds) {
    out << fmt::format("  {:<{}}  {}\n", k.name, name_width, k.description);
    out << fmt::format("    PATH: {}\n", k.path_description);
    out << origin(k) << options_text(k);
  }
}

// What this build of neurobench has: LibTorch, the C++ standard, the optional components and
// the devices it can run on here.
void print_build(std::ostream& out) {
  const Environment e = capture_environment();
  out << fmt::format("this build: neurobench {}, LibTorch {} ({}), {}\n", e.neurobench, e.libtorch,
                     e.libtorch_build, e.cxx_standard);
  out << "components (docs/cmake.md):\n";
  std::size_t width = 0;
  for (const auto& c : components()) width = std::max(width, c.name.size());
  for (const auto& c : components()) {
    out << fmt::format("  {:<{}}  {:<7}  {}\n", c.name, width, c.built ? "built" : "missing",
                       c.gives);
    if (!c.built) out << fmt::format("    needs {}\n", c.needs);
  }
  std::string devices = "cpu, lazy";
  const auto gpus =
      e.libtorch_build == "CPU" ? int64_t{0} : static_cast<int64_t>(torch::cuda::device_count());
  for (int64_t i = 0; i < gpus && i < 128; ++i) {
    const c10::Device gpu(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(i));
    const std::optional<GpuInfo> info = gpu_info(gpu);
    devices += fmt::format(", {}{}", device_text(gpu),
                           info && !info->name.empty() ? " (" + info->name + ")" : "");
  }
  if (e.libtorch_build == "CPU") {
    devices += " (no cuda: this LibTorch is built without CUDA)";
  } else if (gpus == 0) {
    devices += " (no cuda: no GPU is visible)";
  }
  out << "devices here (--device): " << devices << "\n";
}

}  // namespace

int list_command(std::ostream& out, bool keys) {
  if (keys) {
    out << run_keys_markdown();
    return kExitOk;
  }
  print(out, "static metrics (--static or --metrics)", static_metrics());
  out << "\n";
  print(out, "workload metrics (--workload or --metrics)", workload_metrics());
  out << "\n";
  print(out, "timing metrics, measured by a timing pass (--workload or --metrics)",
        timing_metrics());
  out << "\n";
  print(out, "pre-processors (--pre)", pre_processors());
  out << "\n";
  print(out, "post-processors (--post)", post_processors());
  out << "\n";
  print_dataset_kinds(out);
  out << "\n";
  print_build(out);
  out << "\nNames are matched ignoring case and underscores (classification_accuracy works).\n"
         "Options: Name:key=value,... on the command line, {\"name\": ..., \"options\": {...}} "
         "in configs.\n";
  return kExitOk;
}

}  // namespace neurobench::cli
