// SPDX-License-Identifier: Apache-2.0
// SynapticOperations: Linear calls, the batch's kept inputs, the metric's value and state
// (convolutions: builtin_synaptic_operations_conv.cpp; recurrent cells and layers:
// builtin_synaptic_operations_recurrent.cpp).
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "metrics/builtin_synaptic_operations.hpp"
#include "metrics/counting.hpp"
#include "util/widest_vectors.hpp"

namespace neurobench::metrics {

namespace synaptic {

const torch::Tensor& tensor_arg(const ConnectionCall& call, std::size_t i, const char* what) {
  if (i >= call.args.size() || !call.args[i].isTensor()) {
    throw MetricError(
        fmt::format("SynapticOperations: layer '{}' ({}): argument {} ({}) is not "
                    "a tensor",
                    call.layer, call.op, i, what));
  }
  return call.args[i].toTensor();
}

torch::Tensor optional_tensor_arg(const ConnectionCall& call, std::size_t i) {
  if (i < call.args.size() && call.args[i].isTensor()) return call.args[i].toTensor();
  return {};
}

WeightKey key_of(const torch::Tensor& w) {
  return {w.unsafeGetTensorImpl(),
          w.is_inference() ? int64_t{0} : static_cast<int64_t>(w._version())};
}

// A count held in a 0-dim double tensor (a sum of whole numbers, exact below 2^53): read at
// once on the CPU, left on its device as an int64 tensor elsewhere.
detail::Count count_of(const torch::Tensor& sum) {
  detail::Count c;
  if (sum.device().is_cpu()) {
    c.host = static_cast<int64_t>(sum.item<double>());
  } else {
    c.device = sum.to(torch::kLong);
  }
  return c;
}

}  // namespace synaptic

using detail::shape_string;
using synaptic::count_of;
using synaptic::counting_conv;
using synaptic::Counts;
using synaptic::key_of;
using synaptic::tensor_arg;
using synaptic::WeightKey;

namespace {

// One pass over the input: the effective count and whether every value is -1, 0 or 1.
// Branch-free, so that the compiler can vectorise it: spikes make branches unpredictable.
// Row r starts at `x + r * row_stride`; its `in` values are contiguous.
template <class T>
inline __attribute__((always_inline)) int64_t linear_effective_body(const T* x, int64_t rows,
                                                                    int64_t row_stride, int64_t in,
                                                                    const int64_t* per_input,
                                                                    bool& spiking) {
  int64_t total = 0;
  int64_t not_binary = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * row_stride;
    for (int64_t i = 0; i < in; ++i) {
      const T v = row[i];
      const int64_t nonzero = v != T(0);
      total += per_input[i] & -nonzero;
      not_binary |= nonzero & static_cast<int64_t>(v != T(1)) & static_cast<int64_t>(v != T(-1));
    }
  }
  spiking = not_binary == 0;
  return total;
}

// The pass for the CPU's widest vectors, float and double.
NEUROBENCH_WIDEST_VECTORS
int64_t linear_effective(const float* x, int64_t rows, int64_t row_stride, int64_t in,
                         const int64_t* per_input, bool& spiking) {
  return linear_effective_body(x, rows, row_stride, in, per_input, spiking);
}

NEUROBENCH_WIDEST_VECTORS
int64_t linear_effective(const double* x, int64_t rows, int64_t row_stride, int64_t in,
                         const int64_t* per_input, bool& spiking) {
  return linear_effective_body(x, rows, row_stride, in, per_input, spiking);
}

}  // namespace

namespace synaptic {

// linear_effective() of `x` seen as (rows, features), `weights` int64 (features) on the CPU.
// A view where one is possible, not a copy: a step-wise network's input `data[:, t]` has rows
// far apart in memory, each contiguous.
int64_t weighted_nonzeros(const torch::Tensor& x, int64_t rows, const torch::Tensor& weights,
                          bool& spiking) {
  const int64_t features = x.numel() / rows;
  torch::Tensor xr = x.reshape({rows, features});
  if (xr.stride(1) != 1 && features > 1) xr = xr.contiguous();
  const int64_t* w = weights.data_ptr<int64_t>();
  if (xr.scalar_type() == torch::kFloat) {
    return linear_effective(xr.data_ptr<float>(), rows, xr.stride(0), features, w, spiking);
  }
  if (xr.scalar_type() == torch::kDouble) {
    return linear_effective(xr.data_ptr<double>(), rows, xr.stride(0), features, w, spiking);
  }
  const torch::Tensor xd = xr.to(torch::kDouble).contiguous();
  return linear_effective(xd.data_ptr<double>(), rows, features, features, w, spiking);
}

}  // namespace synaptic

// spec: Synaptic operations, Linear: effective = number of (non-zero input, non-zero weight)
// pairs, computed as the binarised input times the per-input count of non-zero weights.
Counts SynapticOperations::State::linear_counts(const ConnectionCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  if (w.dim() != 2 || x.dim() == 0 || x.size(-1) != w.size(1)) {
    throw MetricError(
        fmt::format("SynapticOperations: layer '{}': input of shape {} does not fit "
                    "a weight of shape {}",
                    call.layer, shape_string(x), shape_string(w)));
  }
  auto& cache = detail::find_or_add(linear, call.layer);
  const WeightKey key = key_of(w);
  if (!(cache.key == key)) {
    cache = LinearCache{};
    cache.key = key;
  }
  const int64_t in = w.size(1);
  const int64_t out = w.size(0);
  const int64_t rows = in == 0 ? 0 : x.numel() / in;
  Counts c;
  c.dense.host = rows * in * out;
  // Per input feature, the number of non-zero weights that read it (int64, on the CPU).
  const auto per_input = [&]() -> const torch::Tensor& {
    if (!cache.nonzero_per_input.defined()) {
      cache.nonzero_per_input = (w.to(torch::kCPU) != 0).sum(0, false, torch::kLong).contiguous();
    }
    return cache.nonzero_per_input;
  };
  if (!x.device().is_cpu() && x.numel() > 0) {
    if (detail::DeviceTally* tally = detail::current_tally()) {
      // Weighted per input feature by its non-zero weights, tiled over a sample's rows.
      const bool batched = x.dim() >= 2;
      const int64_t rows_per_sample = batched ? rows / x.size(0) : rows;
      torch::Tensor& weights = cache.per_sample[rows_per_sample];
      if (!weights.defined()) {
        weights = per_input().repeat({rows_per_sample}).contiguous();
      }
      if (auto handle = tally->add(x, batched, weights)) {
        tallied.push_back(std::move(*handle));
        return c;  // the dense count now, the effective one with the batch's tally
      }
    }
  }
  if (!x.device().is_cpu()) {
    // On the device: the binarised input times the per-input counts, at the end of the batch.
    if (!cache.nonzero_per_input_device.defined()) {
      cache.nonzero_per_input_device = (w != 0).sum(0, false, torch::kLong);
    }
    keep(call.layer, Kept{"aten::linear", cache.nonzero_per_input_device, {}, 0, {}},
         x.reshape({rows, in}));
    return c;  // the dense count now, the effective one kept
  }
  if (rows == 0) {
    c.spiking.host = true;  // no value that is not a spike
    return c;
  }
  c.effective.host = synaptic::weighted_nonzeros(x, rows, per_input(), c.spiking.host);
  return c;
}

// spec: Synaptic operations, Linear and Conv, as linear_counts() and conv_counts() count one
// call: here all the calls of a layer with inputs of one shape at once, stacked along a first
// dimension `calls`; each call still goes to ACs or MACs by its own input.
void SynapticOperations::State::count_kept() {
  std::vector<torch::Tensor> per_calls;  // every call's effective count, layer by layer
  std::vector<torch::Tensor> spikes;     // and whether its input was spikes
  for (auto& [layer, k] : kept) {
    std::map<std::vector<int64_t>, std::vector<torch::Tensor>> by_shape;
    for (const auto& x : k.inputs) by_shape[x.sizes().vec()].push_back(x);
    for (const auto& [shape, inputs] : by_shape) {
      const auto calls = static_cast<int64_t>(inputs.size());
      // (calls, ...): one call is a view of its input, more are joined (one copy).
      const torch::Tensor stacked =
          inputs.size() == 1 ? inputs.front().unsqueeze(0) : torch::stack(inputs);
      torch::Tensor per_call;  // (calls): effective counts
      if (k.spatial == 0) {
        per_call = (stacked.ne(0) * k.counts).sum({1, 2}, false, torch::kLong);
      } else {
        // Batched inputs go through one convolution as one batch, unbatched as a batch of them.
        const bool batched = stacked.dim() == k.spatial + 3;
        const torch::Tensor input = batched ? stacked.flatten(0, 1) : stacked;
        const torch::Tensor binary = input.ne(0).to(k.counts.scalar_type());
        per_call = counting_conv(k.op, k.conv, binary, k.counts, k.spatial)
                       .reshape({calls, -1})
                       .sum(1, false, torch::kDouble)
                       .to(torch::kLong);
      }
      per_calls.push_back(per_call);
      spikes.push_back(detail::spike_flags(stacked));
    }
  }
  kept.clear();
  kept_bytes = 0;
  if (per_calls.empty()) return;
  // Every layer's calls at once: the total, and the calls whose input was spikes.
  const torch::Tensor all = per_calls.size() == 1 ? per_calls.front() : torch::cat(per_calls);
  const torch::Tensor all_spikes = spikes.size() == 1 ? spikes.front() : torch::cat(spikes);
  effective.add(all.sum());
  acs.add((all * all_spikes).sum());
}

// spec: Synaptic operations, as count_kept(): each call's effective count goes to ACs when its
// input is spikes (every value -1, 0 or 1), to MACs otherwise.
void SynapticOperations::State::count_tallied() {
  for (const detail::TallyHandle& handle : tallied) {
    const detail::TallyCounts& c = handle.counts();
    effective.add(c.weighted);
    if (c.not_spikes == 0) acs.add(c.weighted);
  }
  tallied.clear();
}

SynapticOperations::SynapticOperations() : state_(std::make_unique<State>()) {}

SynapticOperations::SynapticOperations(const Json& options) : SynapticOperations() {
  const Json per_layer = options.value("per_layer", Json(false));
  if (!per_layer.is_boolean()) {
    throw UsageError(
        fmt::format("SynapticOperations: option 'per_layer' must be true or false, "
                    "got {}",
                    per_layer.dump()));
  }
  state_->per_layer = per_layer.get<bool>();
}

SynapticOperations::~SynapticOperations() = default;

void SynapticOperations::reset() {
  const bool per_layer = state_->per_layer;
  *state_ = State{};
  state_->per_layer = per_layer;
}

bool SynapticOperations::mergeable() const { return !state_->per_layer; }

void SynapticOperations::on_connection(const ConnectionCall& call) {
  if (state_->per_layer) {
    state_->count_layer_call(call);
    return;
  }
  const std::string_view op = call.op;
  if (op == "aten::linear") {
    state_->add(state_->linear_counts(call));
  } else if (op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d" ||
             op == "aten::_convolution") {
    state_->add(state_->conv_counts(call));
  } else if (op == "aten::rnn_tanh_cell" || op == "aten::rnn_relu_cell" ||
             op == "aten::lstm_cell" || op == "aten::gru_cell") {
    state_->add(state_->cell_counts(call));
  } else if (op == "aten::lstm" || op == "aten::gru" || op == "aten::rnn_tanh" ||
             op == "aten::rnn_relu") {
    state_->add_layer_counts(call);
  } else {
    throw MetricError(
        fmt::format("SynapticOperations: layer '{}' ({}): operator {} is not "
                    "counted",
                    call.layer, call.type_name, op));
  }
}

namespace {

// The call's arguments with every tensor on the CPU: per_layer counts each call at once.
std::vector<c10::IValue> on_cpu(c10::ArrayRef<c10::IValue> args) {
  std::vector<c10::IValue> out(args.begin(), args.end());
  for (c10::IValue& a : out) {
    if (a.isTensor() && !a.toTensor().device().is_cpu()) {
      a = a.toTensor().to(torch::kCPU);
    } else if (a.isTensorList()) {
      std::vector<torch::Tensor> list = a.toTensorVector();
      for (torch::Tensor& t : list) t = t.to(torch::kCPU);
      a = c10::List<torch::Tensor>(list);
    }
  }
  return out;
}

// NeuroBench's message for an exception: its text up to the first line break (a LibTorch
// error's context and backtrace follow).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

// spec: Synaptic operations, per layer as the reference counts and fails. Each call of a layer
// is counted at once, on the CPU; a layer's first call that NeuroBench cannot count records its
// message, and the layer's later calls in the batch are not counted (NeuroBench stops there).
void SynapticOperations::State::count_layer_call(const ConnectionCall& given) {
  auto [it, added] = batch_layers.try_emplace(std::string(given.layer));
  LayerCounts& layer = it->second;
  if (added) layer.first_call = calls_in_batch++;
  if (!layer.error.empty()) return;
  const std::vector<c10::IValue> args = on_cpu(given.args);
  const ConnectionCall call{given.layer, given.type_name, given.op, args, given.state_given};
  const std::string_view op = call.op;
  try {
    Counts c;
    if (op == "aten::linear") {
      c = linear_counts(call);
    } else if (op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d" ||
               op == "aten::_convolution") {
      c = conv_counts(call);
    } else if (op == "aten::rnn_tanh_cell" || op == "aten::rnn_relu_cell" ||
               op == "aten::lstm_cell" || op == "aten::gru_cell") {
      const synaptic::CellCall cell = synaptic::cell_call(call);
      c.spiking = detail::spiking(cell.x);
      c.effective = count_of(synaptic::reference_cell_count(op, cell, false, true));
      c.dense = count_of(synaptic::reference_cell_count(op, cell, true, true));
    } else {
      // An RNN, LSTM or GRU layer: NeuroBench 2.3's recurrent_layer_macs raises a string.
      throw synaptic::ReferenceFailure("exceptions must derive from BaseException");
    }
    (c.spiking.host ? layer.acs : layer.macs) += c.effective.host;
    layer.dense += c.dense.host;
  } catch (const synaptic::ReferenceFailure& e) {
    layer.error = e.what();
  } catch (const c10::Error& e) {
    layer.error = first_line(e.what_without_backtrace());
  }
}

void SynapticOperations::State::close_batch(const WorkloadInput& input) {
  if (module_order.empty()) {
    std::size_t i = 0;
    for (const ModuleInfo& m : input.model.modules()) module_order.emplace(m.path, i++);
  }
  // NeuroBench's hooks: the connection layers in module order (a layer outside the model's
  // modules, an inlined model's operator site, after them in the order first called).
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::string_view>> order;
  for (const auto& [path, counts] : batch_layers) {
    const auto found = module_order.find(path);
    const std::size_t place = found == module_order.end() ? module_order.size() : found->second;
    order.push_back({{place, counts.first_call}, path});
  }
  std::sort(order.begin(), order.end());
  Json layers = Json::array();
  for (const auto& [key, path] : order) {
    const LayerCounts& c = batch_layers.find(path)->second;
    layers.push_back(Json{{"layer", std::string(path)},
                          {"macs", c.macs},
                          {"acs", c.acs},
                          {"dense", c.dense},
                          {"error", c.error.empty() ? Json(nullptr) : Json(c.error)}});
  }
  batches.push_back(Json{{"samples", input.batch.size()}, {"layers", std::move(layers)}});
  batch_layers.clear();
  calls_in_batch = 0;
}

void SynapticOperations::update(const WorkloadInput& input) {
  if (state_->per_layer) {
    state_->close_batch(input);
    return;
  }
  state_->samples += input.batch.size();
  state_->count_tallied();
  state_->count_kept();
  // What a device counted in this batch, read once per batch.
  (void)state_->effective.value();
  (void)state_->acs.value();
  (void)state_->dense.value();
}

Json SynapticOperations::compute() const {
  if (state_->per_layer) return Json{{"batches", state_->batches}};
  Json out = Json::object();
  const double n = static_cast<double>(state_->samples);
  const bool none = state_->samples == 0;
  out[keys::kEffectiveMACs] = none ? 0.0 : static_cast<double>(state_->macs()) / n;
  out[keys::kEffectiveACs] = none ? 0.0 : static_cast<double>(state_->acs.value()) / n;
  out[keys::kDense] = none ? 0.0 : static_cast<double>(state_->dense.value()) / n;
  return out;
}

// Sharded runs: the counts (the weight caches are this process's own); merging adds them.
Json SynapticOperations::export_state() const {
  return Json{{"macs", state_->macs()},
              {"acs", state_->acs.value()},
              {"dense", state_->dense.value()},
              {"samples", state_->samples}};
}

void SynapticOperations::merge_state(const Json& state) {
  const int64_t macs = state_integer(state, "macs", "SynapticOperations");
  const int64_t acs = state_integer(state, "acs", "SynapticOperations");
  const int64_t dense = state_integer(state, "dense", "SynapticOperations");
  const int64_t samples = state_integer(state, "samples", "SynapticOperations");
  state_->effective.add(macs + acs);
  state_->acs.add(acs);
  state_->dense.add(dense);
  state_->samples += samples;
}

MetricDescription SynapticOperations::describe() {
  return MetricDescription("effective MACs, effective ACs and dense operations per sample")
      .with_unit("ops/sample")
      .lower_is_better()
      .with_key(keys::kEffectiveMACs, "ops/sample", Better::Lower,
                "multiply-accumulates with non-zero real-valued inputs")
      .with_key(keys::kEffectiveACs, "ops/sample", Better::Lower,
                "accumulates with non-zero spiking inputs")
      .with_key(keys::kDense, "ops/sample", Better::Lower, "every synapse at every step")
      .with_option("per_layer", "bool", false,
                   "true: instead of the totals, {\"batches\": [...]}: each batch's samples and, "
                   "per connection layer in module order, its MACs, ACs and dense count as "
                   "NeuroBench 2.3 counts them, with NeuroBench's error where its count "
                   "raises (a recurrent cell called without a state, an RNN/LSTM/GRU layer); "
                   "neurobench_cpp reads it to give NeuroBench's outcome (docs/python.md)");
}

}  // namespace neurobench::metrics
