// SPDX-License-Identifier: Apache-2.0
// The built-in metrics that watch activation layers: ActivationSparsity,
// ActivationSparsityByLayer, MembraneUpdates, NeuronOperations.
#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "metrics/counting.hpp"

namespace neurobench {

namespace detail {
namespace {

// A call's non-zero outputs into a sum: on the CPU the number, counted once for every metric
// that asks; on a device the output, counted with the others of the batch when the sum is read.
void add_output_nonzeros(CountSum& sum, const ActivationCall& call) {
  if (call.output.device().is_cpu()) {
    sum.add(call.nonzeros());
  } else {
    sum.add_nonzeros(call.output);
  }
}

// The elements of `mem` a call changed, times `times`, into a sum, as add_output_nonzeros().
void add_mem_changes(CountSum& sum, const ActivationCall& call, int64_t times) {
  if (call.mem_before == nullptr || call.mem_after == nullptr) {
    throw MetricError(
        fmt::format("layer '{}' ({}): no membrane potential before and after the "
                    "call to compare",
                    call.layer, call.type_name));
  }
  const torch::Tensor& before = *call.mem_before;
  const torch::Tensor& after = *call.mem_after;
  if (before.device().is_cpu() && after.device().is_cpu()) {
    if (call.mem_changed_cache < 0) call.mem_changed_cache = count_changed(before, after);
    sum.add(call.mem_changed_cache * times);
  } else {
    sum.add_changes(before, after, times);
  }
}

}  // namespace
}  // namespace detail

}  // namespace neurobench

namespace neurobench::metrics {

namespace {
void require_layer(const char* metric, const ActivationCall& call) {
  if (!call.layer_error.empty()) throw MetricError(fmt::format("{}: {}", metric, call.layer_error));
}
}  // namespace

// spec: Workload metrics, ActivationSparsity (all activation layers and calls of the batch)
void ActivationSparsity::begin_batch() {
  elements_ = 0;
  nonzeros_.reset();
}

void ActivationSparsity::on_activation(const ActivationCall& call) {
  elements_ += call.output.numel();
  detail::add_output_nonzeros(nonzeros_, call);
}

Json ActivationSparsity::operator()(const WorkloadInput& /*input*/) {
  if (elements_ == 0) return 0.0;
  const int64_t nonzeros = nonzeros_.value();  // once per batch
  return static_cast<double>(elements_ - nonzeros) / static_cast<double>(elements_);
}

// spec: Workload metrics, ActivationSparsityByLayer
ActivationSparsityByLayer::ActivationSparsityByLayer(const Json& options) {
  const Json keys = options.value("keys", Json("path"));
  if (keys == "name") {
    by_name_ = true;
  } else if (keys != "path") {
    throw UsageError(fmt::format(
        "ActivationSparsityByLayer: option 'keys' must be path or name, got {}", keys.dump()));
  }
}

void ActivationSparsityByLayer::reset() {
  order_.clear();
  layers_.clear();
}

void ActivationSparsityByLayer::on_activation(const ActivationCall& call) {
  auto it = layers_.find(call.layer);
  if (it == layers_.end()) {
    order_.emplace_back(call.layer);
    it = layers_.emplace(std::string(call.layer), Counts{}).first;
  }
  it->second.elements += call.output.numel();
  detail::add_output_nonzeros(it->second.nonzeros, call);
}

// What a device counted in the batch is read once per batch and layer, not at each call.
void ActivationSparsityByLayer::update(const WorkloadInput& /*input*/) {
  for (const auto& entry : layers_) (void)entry.second.nonzeros.value();
}

// The counts stay per path (so shards merge whatever the keys); keyed by name, the layers that
// share their last path component (NeuroBench's hook name: `features.1` and `classifier.1`
// are both `1`) have their elements and non-zeros summed before the ratio, as NeuroBench does.
Json ActivationSparsityByLayer::compute() const {
  std::vector<std::string> keys;
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> totals;  // elements, nonzeros
  for (const auto& path : order_) {
    const Counts& c = layers_.find(path)->second;
    std::string key = path;
    const std::size_t dot = path.rfind('.');
    if (by_name_ && dot != std::string::npos) key = path.substr(dot + 1);
    auto [it, added] = totals.try_emplace(key, 0, 0);
    if (added) keys.push_back(key);
    it->second.first += c.elements;
    it->second.second += c.nonzeros.value();
  }
  Json out = Json::object();
  for (const auto& key : keys) {
    const auto [elements, nonzeros] = totals.find(key)->second;
    out[key] = elements == 0
                   ? 0.0
                   : static_cast<double>(elements - nonzeros) / static_cast<double>(elements);
  }
  return out;
}

// Sharded runs: the counts per layer, layers in the order first seen; merging adds them.
Json ActivationSparsityByLayer::export_state() const {
  Json layers = Json::array();
  for (const auto& name : order_) {
    const Counts& c = layers_.find(name)->second;
    layers.push_back(Json::array({name, c.elements, c.nonzeros.value()}));
  }
  return Json{{"layers", std::move(layers)}};
}

void ActivationSparsityByLayer::merge_state(const Json& state) {
  if (!state.is_object() || !state.contains("layers") || !state["layers"].is_array()) {
    throw MetricError("ActivationSparsityByLayer: a shard's state has no 'layers' array");
  }
  // Checked whole before anything is added: a state refused leaves the counts as they were.
  for (const Json& layer : state["layers"]) {
    if (!layer.is_array() || layer.size() != 3 || !layer[0].is_string() ||
        !layer[1].is_number_integer() || !layer[2].is_number_integer()) {
      throw MetricError("ActivationSparsityByLayer: a shard's state holds a malformed layer");
    }
  }
  for (const Json& layer : state["layers"]) {
    const std::string name = layer[0].get<std::string>();
    auto it = layers_.find(name);
    if (it == layers_.end()) {
      order_.push_back(name);
      it = layers_.emplace(name, Counts{}).first;
    }
    it->second.elements += layer[1].get<int64_t>();
    it->second.nonzeros.add(layer[2].get<int64_t>());
  }
}

// spec: Membrane updates: the first call of a layer in a batch counts every element of its
// `mem` after the call; later calls count the elements that changed.
void MembraneUpdates::reset() {
  calls_in_batch_.clear();
  updates_.reset();
  samples_ = 0;
}

void MembraneUpdates::begin_batch() { calls_in_batch_.clear(); }

void MembraneUpdates::on_activation(const ActivationCall& call) {
  if (!call.spiking) return;
  require_layer("MembraneUpdates", call);
  int64_t& calls = detail::find_or_add(calls_in_batch_, call.layer);
  if (calls == 0 || call.mem_before == nullptr) {
    updates_.add(call.mem_after->numel());
  } else {
    detail::add_mem_changes(updates_, call, 1);
  }
  ++calls;
}

void MembraneUpdates::update(const WorkloadInput& input) {
  samples_ += input.batch.size();
  (void)updates_.value();  // what a device counted in this batch, read once per batch
}

Json MembraneUpdates::compute() const {
  if (samples_ == 0) return 0.0;
  return static_cast<double>(updates_.value()) / static_cast<double>(samples_);
}

// Sharded runs: the counts; merging adds them.
Json MembraneUpdates::export_state() const {
  return Json{{"updates", updates_.value()}, {"samples", samples_}};
}

void MembraneUpdates::merge_state(const Json& state) {
  const int64_t updates = state_integer(state, "updates", "MembraneUpdates");
  const int64_t samples = state_integer(state, "samples", "MembraneUpdates");
  updates_.add(updates);
  samples_ += samples;
}

// spec: Membrane updates and neuron operations, cost per update
int neuron_update_cost(std::string_view type_name, std::string_view reset) {
  struct Cost {
    const char* type;
    int subtract;
    int zero;
  };
  static constexpr Cost kCosts[] = {
      {"Leaky", 4, 4}, {"Synaptic", 6, 8}, {"Lapicque", 11, 11}, {"Alpha", 18, 24}};
  for (const auto& c : kCosts) {
    if (type_name != c.type) continue;
    if (reset == "subtract") return c.subtract;
    if (reset == "zero") return c.zero;
    throw MetricError(fmt::format(
        "NeuronOperations: no cost known for {} neurons with reset mechanism '{}' (known: "
        "subtract, zero)",
        type_name, reset.empty() ? "(unknown)" : std::string(reset)));
  }
  throw MetricError(fmt::format(
      "NeuronOperations: no cost known for spiking neurons of class {} (known: Leaky, Synaptic, "
      "Lapicque, Alpha)",
      type_name));
}

void NeuronOperations::reset() {
  layers_in_batch_.clear();
  effective_.reset();
  dense_ = 0;
  samples_ = 0;
}

void NeuronOperations::begin_batch() { layers_in_batch_.clear(); }

void NeuronOperations::on_activation(const ActivationCall& call) {
  if (!call.spiking) return;  // the reference fails on non-spiking layers; they cost nothing here
  require_layer("NeuronOperations", call);
  const int cost = neuron_update_cost(call.type_name, call.reset_mechanism);
  LayerBatch& layer = detail::find_or_add(layers_in_batch_, call.layer);
  if (layer.calls++ == 0) {
    layer.first_numel = call.mem_after->numel();
    effective_.add(layer.first_numel * cost);
  } else if (call.mem_before == nullptr) {
    effective_.add(call.mem_after->numel() * cost);
  } else {
    detail::add_mem_changes(effective_, call, cost);
  }
  // dense: numel(post_0) * calls * cost, added call by call
  dense_ += static_cast<double>(layer.first_numel * cost);
}

void NeuronOperations::update(const WorkloadInput& input) {
  samples_ += input.batch.size();
  (void)effective_.value();  // what a device counted in this batch, read once per batch
}

Json NeuronOperations::compute() const {
  Json out = Json::object();
  const double n = static_cast<double>(samples_);
  // A whole number of operations, exact in a double up to 2^53.
  const auto effective = static_cast<double>(effective_.value());
  out[keys::kEffectiveNeuronOps] = samples_ == 0 ? 0.0 : effective / n;
  out[keys::kNeuronDenseOps] = samples_ == 0 ? 0.0 : dense_ / n;
  return out;
}

// Sharded runs: the sums (whole numbers of operations; the dense one exact in a double up to
// 2^53) and the samples; merging adds them.
Json NeuronOperations::export_state() const {
  return Json{{"effective", effective_.value()}, {"dense", dense_}, {"samples", samples_}};
}

void NeuronOperations::merge_state(const Json& state) {
  const int64_t effective = state_integer(state, "effective", "NeuronOperations");
  const double dense = state_number(state, "dense", "NeuronOperations");
  const int64_t samples = state_integer(state, "samples", "NeuronOperations");
  effective_.add(effective);
  dense_ += dense;
  samples_ += samples;
}

MetricDescription ActivationSparsity::describe() {
  return MetricDescription("fraction of zero outputs over all activation layers")
      .with_unit("fraction")
      .higher_is_better();
}

MetricDescription ActivationSparsityByLayer::describe() {
  // One key per activation layer (its dotted path, or its name), all alike.
  return MetricDescription("fraction of zero outputs per activation layer")
      .with_unit("fraction")
      .higher_is_better()
      .with_option("keys", "string", "path",
                   "path: each layer by its dotted path; name: by its attribute name, the "
                   "counts of layers sharing a name summed (NeuroBench's keys)");
}

MetricDescription MembraneUpdates::describe() {
  return MetricDescription("membrane potential updates of spiking layers per sample")
      .with_unit("updates/sample")
      .lower_is_better();
}

MetricDescription NeuronOperations::describe() {
  return MetricDescription("spiking neuron update operations per sample, effective and dense")
      .with_unit("ops/sample")
      .lower_is_better()
      .with_key(keys::kEffectiveNeuronOps, "ops/sample", Better::Lower,
                "membrane updates weighed by the neuron model's cost per update")
      .with_key(keys::kNeuronDenseOps, "ops/sample", Better::Lower,
                "the same for every neuron at every step");
}

}  // namespace neurobench::metrics
