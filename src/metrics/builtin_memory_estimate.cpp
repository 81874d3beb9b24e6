// SPDX-License-Identifier: Apache-2.0
// MemoryEstimate: flash and RAM a microcontroller deployment would need, from the first batch's
// operator calls in execution order. See docs/deployment-metrics.md#memoryestimate.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/model/hooks.hpp>

#include "metrics/layer_probe.hpp"

namespace neurobench::metrics {

namespace {

constexpr double kMemoryBytesPerKB = 1024.0;

bool memory_is_spiking_type(std::string_view type) {
  const auto& types = spiking_neuron_types();
  return std::find(types.begin(), types.end(), type) != types.end();
}

// The last component of a dotted name (`fc1.bias` -> `bias`).
std::string_view memory_leaf_name(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// The tensors in an operator's argument or result: a tensor, or a list or tuple of them.
template <class F>
void memory_for_each_tensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) f(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) {
      if (t.defined()) f(t);
    }
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) memory_for_each_tensor(e, f);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) memory_for_each_tensor(e, f);
  }
}

}  // namespace

// The first batch, as a sequence of events (an operator call, or a spiking layer's call): each
// tensor storage is alive from the first event that makes or reads it to the last that reads
// it. The tensors are kept until update(), so that no storage is freed and its address reused
// for another tensor during the batch.
struct MemoryEstimate::Trace {
  bool active = false;
  int events = 0;
  std::vector<torch::Tensor> kept;
  std::unordered_map<const void*, std::size_t> ids;  // storage -> index below
  std::vector<const void*> storages;
  std::vector<int64_t> numel;  // the most elements seen in a tensor of this storage
  std::vector<int> first;
  std::vector<int> last;
  std::vector<std::size_t> pending;                // made, and not read by any event since
  std::unordered_map<std::string, int64_t> state;  // spiking layer -> membrane elements

  static const void* storage_of(const torch::Tensor& t) {
    return t.has_storage() ? static_cast<const void*>(t.storage().unsafeGetStorageImpl())
                           : static_cast<const void*>(t.unsafeGetTensorImpl());
  }

  // The index of `t`'s storage; `made` is set when it is new.
  std::size_t find(const torch::Tensor& t, bool& made) {
    const void* s = storage_of(t);
    auto it = ids.find(s);
    made = it == ids.end();
    if (made) {
      it = ids.emplace(s, storages.size()).first;
      storages.push_back(s);
      numel.push_back(0);
      first.push_back(events);
      last.push_back(events);
      kept.push_back(t);
    }
    numel[it->second] = std::max(numel[it->second], t.numel());
    last[it->second] = events;
    return it->second;
  }

  void read(const torch::Tensor& t) {
    bool made = false;
    const std::size_t id = find(t, made);
    pending.erase(std::remove(pending.begin(), pending.end(), id), pending.end());
  }

  // A result in a storage already known (a view, an in-place operator) makes nothing new.
  void make(const torch::Tensor& t) {
    bool made = false;
    const std::size_t id = find(t, made);
    if (made) pending.push_back(id);
  }

  // A spiking layer reads what the previous layers made and nobody has read yet (its input:
  // the operators inside the neuron are not followed).
  void read_pending() {
    for (const std::size_t id : pending) last[id] = events;
    pending.clear();
  }
};

MemoryEstimate::MemoryEstimate() : MemoryEstimate(Json::object()) {}

MemoryEstimate::MemoryEstimate(const Json& options) : trace_(std::make_unique<Trace>()) {
  const std::string precision = options.value("precision", std::string("float32"));
  if (precision == "int8") {
    int8_ = true;
  } else if (precision != "float32") {
    throw UsageError(fmt::format(
        "MemoryEstimate: option 'precision' must be float32 or int8, got '{}'", precision));
  }
}

MemoryEstimate::~MemoryEstimate() = default;

void MemoryEstimate::reset() {
  *trace_ = Trace{};
  value_ = Json();
}

std::vector<std::string> MemoryEstimate::observed_operators() const {
  std::vector<std::string> ops = detail::connection_operators();
  for (const char* op : {"aten::relu",
                         "aten::relu_",
                         "aten::sigmoid",
                         "aten::sigmoid_",
                         "aten::tanh",
                         "aten::tanh_",
                         "aten::leaky_relu",
                         "aten::leaky_relu_",
                         "aten::hardtanh",
                         "aten::hardtanh_",
                         "aten::gelu",
                         "aten::elu",
                         "aten::elu_",
                         "aten::silu",
                         "aten::silu_",
                         "aten::hardsigmoid",
                         "aten::softplus",
                         "aten::softmax",
                         "aten::log_softmax",
                         "aten::add",
                         "aten::add_",
                         "aten::sub",
                         "aten::sub_",
                         "aten::mul",
                         "aten::mul_",
                         "aten::div",
                         "aten::div_",
                         "aten::cat",
                         "aten::stack",
                         "aten::flatten",
                         "aten::view",
                         "aten::reshape",
                         "aten::squeeze",
                         "aten::unsqueeze",
                         "aten::permute",
                         "aten::transpose",
                         "aten::contiguous",
                         "aten::max_pool1d",
                         "aten::max_pool2d",
                         "aten::max_pool3d",
                         "aten::avg_pool1d",
                         "aten::avg_pool2d",
                         "aten::avg_pool3d",
                         "aten::adaptive_avg_pool1d",
                         "aten::adaptive_avg_pool2d",
                         "aten::adaptive_avg_pool3d",
                         "aten::adaptive_max_pool2d",
                         "aten::batch_norm",
                         "aten::layer_norm",
                         "aten::dropout",
                         "aten::matmul",
                         "aten::mm",
                         "aten::bmm",
                         "aten::addmm",
                         "aten::mean",
                         "aten::sum",
                         "aten::conv_transpose1d",
                         "aten::conv_transpose2d",
                         "aten::conv_transpose3d",
                         "aten::select",
                         "aten::slice"}) {
    ops.emplace_back(op);
  }
  return ops;
}

void MemoryEstimate::begin_batch() { trace_->active = value_.is_null(); }

// Each call comes twice: before it runs with its arguments (read), after with its result
// (made); both belong to the same step.
void MemoryEstimate::on_operator(const OperatorCall& call) {
  Trace& t = *trace_;
  if (!t.active) return;
  // Inside a spiking neuron, its own arithmetic: the layer's call stands for it.
  if (memory_is_spiking_type(call.module.type_name)) return;
  if (call.output == nullptr) {
    for (const c10::IValue& arg : call.args) {
      memory_for_each_tensor(arg, [&](const auto& x) { t.read(x); });
    }
    return;
  }
  memory_for_each_tensor(*call.output, [&](const auto& x) { t.make(x); });
  ++t.events;
}

void MemoryEstimate::on_activation(const ActivationCall& call) {
  Trace& t = *trace_;
  if (!t.active || !call.spiking) return;  // other activation layers are operators above
  t.read_pending();
  t.make(call.output);
  if (call.mem_after != nullptr && call.mem_after->defined()) {
    int64_t& n = t.state[std::string(call.layer)];
    n = std::max(n, call.mem_after->numel());
  }
  ++t.events;
}

// spec (ours): docs/deployment-metrics.md#memoryestimate
void MemoryEstimate::update(const WorkloadInput& input) {
  Trace& t = *trace_;
  if (!t.active) return;
  t.active = false;
  const int64_t activation_bytes = int8_ ? 1 : 4;
  const int64_t state_bytes = 4;  // float32, or the int32 of integer-only inference

  // Flash: parameters and buffers, each tensor once; neuron state is RAM, not flash.
  std::unordered_set<const void*> weights;
  std::unordered_set<const void*> seen;
  int64_t flash = 0;
  auto add_flash = [&](const NamedTensor& nt, bool parameter) {
    const torch::Tensor& v = nt.value;
    if (!v.defined()) return;
    weights.insert(Trace::storage_of(v));
    if (!seen.insert(v.unsafeGetTensorImpl()).second) return;
    const std::string_view leaf = memory_leaf_name(nt.name);
    if (!parameter && leaf == "mem") return;
    int64_t bytes = static_cast<int64_t>(v.element_size());
    if (v.is_floating_point()) {
      const bool bias = leaf.substr(0, 4) == "bias";
      bytes = int8_ ? (bias ? 4 : 1) : 4;
    }
    flash += v.numel() * bytes;
  };
  for (const auto& p : input.model.parameters()) add_flash(p, true);
  for (const auto& b : input.model.buffers()) add_flash(b, false);

  // RAM: the storages alive at each event, weights left out; a storage made and never read
  // stays alive to the end of the batch (the model's output, or a tensor read where no event
  // is seen).
  const int end = std::max(t.events - 1, 0);
  for (const std::size_t id : t.pending) t.last[id] = end;
  std::vector<int64_t> delta(static_cast<std::size_t>(t.events) + 1, 0);
  for (std::size_t id = 0; id < t.storages.size(); ++id) {
    if (weights.count(t.storages[id]) != 0) continue;
    delta[static_cast<std::size_t>(t.first[id])] += t.numel[id];
    delta[static_cast<std::size_t>(t.last[id]) + 1] -= t.numel[id];
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (const int64_t d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  int64_t state = 0;
  for (const auto& [layer, n] : t.state) state += n;

  const double samples = static_cast<double>(std::max<int64_t>(input.batch.size(), 1));
  const double activations_kb =
      static_cast<double>(peak * activation_bytes) / samples / kMemoryBytesPerKB;
  const double state_kb = static_cast<double>(state * state_bytes) / samples / kMemoryBytesPerKB;
  value_ = Json::object();
  value_[keys::kFlashKB] = static_cast<double>(flash) / kMemoryBytesPerKB;
  value_[keys::kRamKB] = activations_kb + state_kb;
  value_[keys::kRamActivationsKB] = activations_kb;
  value_[keys::kRamStateKB] = state_kb;
  *trace_ = Trace{};  // the tensors are let go
}

Json MemoryEstimate::compute() const {
  if (!value_.is_null()) return value_;
  Json out = Json::object();
  for (const char* k : {keys::kFlashKB, keys::kRamKB, keys::kRamActivationsKB, keys::kRamStateKB}) {
    out[k] = 0.0;
  }
  return out;
}

// Sharded runs: each shard estimates from its own first batch; the first shard's value stands.
Json MemoryEstimate::export_state() const { return Json{{"value", value_}}; }

void MemoryEstimate::merge_state(const Json& state) {
  if (!state.is_object() || !state.contains("value") ||
      !(state.at("value").is_null() || state.at("value").is_object())) {
    throw MetricError("MemoryEstimate: a shard's state has no 'value' object");
  }
  if (value_.is_null()) value_ = state.at("value");
}

MetricDescription MemoryEstimate::describe() {
  const char* kb = "KB";
  MetricDescription d(
      "flash and peak RAM a microcontroller deployment would need, estimated from the first "
      "batch's tensors (KB = 1024 bytes)");
  d.with_unit(kb).lower_is_better();
  d.with_key(keys::kFlashKB, kb, Better::Lower, "parameters and buffers at the precision");
  d.with_key(keys::kRamKB, kb, Better::Lower, "peak of live activations plus neuron state");
  d.with_key(keys::kRamActivationsKB, kb, Better::Lower,
             "the most tensor bytes alive at once along the execution order, per sample");
  d.with_key(keys::kRamStateKB, kb, Better::Lower,
             "spiking layers' membrane potentials, per sample");
  d.with_option("precision", "string", "float32",
                "float32 (4 bytes an element) or int8 (1 byte; biases and state 4)");
  return d;
}

}  // namespace neurobench::metrics
