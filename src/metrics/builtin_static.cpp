// SPDX-License-Identifier: Apache-2.0
// Static metrics: Footprint, ParameterCount, ConnectionSparsity, ModelFileSize; the default
// layer classes.
#include <algorithm>
#include <filesystem>
#include <string>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "model/neuron_state.hpp"

namespace neurobench::metrics {

const std::vector<std::string>& spiking_neuron_types() {
  return neurobench::detail::snntorch_neuron_types();
}

const std::vector<std::string>& default_activation_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t = {"ReLU", "Sigmoid"};
    t.insert(t.end(), spiking_neuron_types().begin(), spiking_neuron_types().end());
    return t;
  }();
  return types;
}

const std::vector<std::string>& default_connection_types() {
  static const std::vector<std::string> types = {
      "Linear", "Conv1d", "Conv2d", "Conv3d", "RNNCell", "LSTMCell",
      "GRUCell", "RNN",   "LSTM",   "GRU"};
  return types;
}

namespace {

// Each tensor once, as eager PyTorch's parameters() and buffers() de-duplicate shared tensors.
template <class F>
void for_each_unique(const std::vector<NamedTensor>& tensors, F&& f) {
  std::unordered_set<const void*> seen;
  for (const auto& t : tensors) {
    if (!t.value.defined()) continue;
    if (!seen.insert(t.value.unsafeGetTensorImpl()).second) continue;
    f(t);
  }
}

bool is_recurrent(std::string_view type) {
  return type == "RNNCell" || type == "LSTMCell" || type == "GRUCell" || type == "RNN" ||
         type == "LSTM" || type == "GRU";
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

constexpr const char* kOrig = "_orig";

// The mask torch.nn.utils.prune keeps for parameter `name` of `module` (`fc.weight_orig` has the
// buffer `fc.weight_mask`), or an undefined tensor when the parameter is not pruned.
torch::Tensor pruning_mask(const ModuleInfo& module, const std::string& name) {
  const std::string_view orig(kOrig);
  if (name.size() <= orig.size() ||
      name.compare(name.size() - orig.size(), orig.size(), orig) != 0) {
    return {};
  }
  const std::string mask = name.substr(0, name.size() - orig.size()) + "_mask";
  for (const auto& b : module.buffers) {
    if (b.name == mask) return b.value;
  }
  return {};
}

// Python's round(x, 4): correctly rounded decimal, then back to the nearest double.
double round4(double x) { return std::stod(fmt::format("{:.4f}", x)); }

}  // namespace

// spec: Static metrics, Footprint
Json Footprint::compute(const NeuroBenchModel& model, const LayerSetup& /*layers*/) const {
  int64_t bytes = 0;
  auto add = [&](const NamedTensor& t) {
    bytes += t.value.numel() * static_cast<int64_t>(t.value.element_size());
  };
  for_each_unique(model.parameters(), add);
  for_each_unique(model.buffers(), add);
  return bytes;
}

// spec: Static metrics, ParameterCount
Json ParameterCount::compute(const NeuroBenchModel& model, const LayerSetup& /*layers*/) const {
  int64_t count = 0;
  for_each_unique(model.parameters(), [&](const NamedTensor& t) { count += t.value.numel(); });
  return count;
}

// spec: Static metrics, ConnectionSparsity
Json ConnectionSparsity::compute(const NeuroBenchModel& model, const LayerSetup& layers) const {
  int64_t zeros = 0;
  int64_t elements = 0;
  for (const auto& module : model.modules()) {
    const auto& types = layers.connection_types;
    if (std::find(types.begin(), types.end(), module.type_name) == types.end()) continue;
    const std::string prefix = module.path.empty() ? "" : module.path + ".";
    for (const auto& p : module.parameters) {
      std::string local = p.name.substr(prefix.size());
      torch::Tensor value = p.value;
      // A tensor pruned with torch.nn.utils.prune, its mask in place: `weight_orig` times the
      // buffer `weight_mask` is the layer's weight (what NeuroBench reads as `module.weight`).
      if (const torch::Tensor mask = pruning_mask(module, p.name); mask.defined()) {
        local = local.substr(0, local.size() - std::string_view(kOrig).size());
        value = value * mask;
      }
      const bool counted = is_recurrent(module.type_name)
                               ? (starts_with(local, "weight") || starts_with(local, "bias"))
                               : local == "weight";
      if (!counted) continue;
      zeros += value.numel() - value.count_nonzero().item<int64_t>();
      elements += value.numel();
    }
  }
  if (elements == 0) {
    // NeuroBench divides 0 by 0 and reports the metric failed: no fraction of no weights.
    throw MetricError(fmt::format(
        "ConnectionSparsity: {} has no weights in connection layers (modules of class {}), so "
        "the fraction of zero weights is undefined",
        model.describe(), fmt::join(layers.connection_types, ", ")));
  }
  // NeuroBench's `(count_zeros / count_weights).item()` divides an integer tensor by an int:
  // float32, PyTorch's default dtype. Rounded from that float, 561 of 5280 is 0.1063, where
  // the double 0.10625 rounds to 0.1062.
  const float fraction = static_cast<float>(zeros) / static_cast<float>(elements);
  return round4(static_cast<double>(fraction));
}

// ModelFileSize: bytes on disk of the model file.
Json ModelFileSize::compute(const NeuroBenchModel& model, const LayerSetup& /*layers*/) const {
  const auto file = model.source_file();
  if (!file) {
    throw MetricError(fmt::format("{}: {} was not loaded from a file", name(), model.describe()));
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(*file, ec);
  if (ec) {
    throw MetricError(
        fmt::format("{}: cannot read the size of {}: {}", name(), file->string(), ec.message()));
  }
  return static_cast<int64_t>(size);
}

MetricDescription Footprint::describe() {
  return MetricDescription("bytes of all parameters and buffers (numel x element size)")
      .with_unit("bytes")
      .lower_is_better();
}

MetricDescription ParameterCount::describe() {
  return MetricDescription("number of parameter elements")
      .with_unit("parameters")
      .lower_is_better();
}

MetricDescription ConnectionSparsity::describe() {
  return MetricDescription("fraction of zero weights in connection layers, 4 decimals")
      .with_unit("fraction")
      .higher_is_better();
}

MetricDescription ModelFileSize::describe() {
  return MetricDescription("bytes of the model file on disk").with_unit("bytes").lower_is_better();
}

}  // namespace neurobench::metrics
