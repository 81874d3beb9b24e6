// SPDX-License-Identifier: Apache-2.0
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "metrics/counting.hpp"

namespace neurobench::metrics {

namespace {

std::string shape_string(const torch::Tensor& t) {
  return fmt::format("[{}]", fmt::join(t.sizes(), ", "));
}

const torch::Tensor& tensor_arg(const ConnectionCall& call, std::size_t i, const char* what) {
  if (i >= call.args.size() || !call.args[i].isTensor()) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}' ({}): argument {} ({}) is not "
                                  "a tensor",
                                  call.layer, call.op, i, what));
  }
  return call.args[i].toTensor();
}

torch::Tensor optional_tensor_arg(const ConnectionCall& call, std::size_t i) {
  if (i < call.args.size() && call.args[i].isTensor()) return call.args[i].toTensor();
  return {};
}

std::vector<int64_t> int_list_arg(const ConnectionCall& call, std::size_t i) {
  return call.args.at(i).toIntVector();
}

// The weight's "version" identifies its values: a cache entry is reused while the weight tensor
// and its version counter are unchanged.
struct WeightKey {
  const void* impl = nullptr;
  int64_t version = 0;
  bool operator==(const WeightKey& o) const { return impl == o.impl && version == o.version; }
};

WeightKey key_of(const torch::Tensor& w) {
  return {w.unsafeGetTensorImpl(), w.is_inference() ? int64_t{0} : static_cast<int64_t>(w._version())};
}

struct Counts {
  int64_t effective = 0;
  int64_t dense = 0;
  bool spiking = false;
};

}  // namespace

struct SynapticOperations::State {
  int64_t macs = 0;
  int64_t acs = 0;
  int64_t dense = 0;
  int64_t samples = 0;

  // Linear: per input feature, the number of non-zero weights that read it.
  struct LinearCache {
    WeightKey key;
    std::vector<int64_t> nonzero_per_input;
  };
  std::unordered_map<std::string, LinearCache> linear;

  // Conv: a one-output-channel kernel counting, per input channel and kernel position, the
  // non-zero weights that read it; and the dense count per input shape.
  struct ConvCache {
    WeightKey key;
    torch::Tensor count_kernel;  // (1, in_channels, k...)
    std::map<std::vector<int64_t>, int64_t> dense_by_shape;
  };
  std::unordered_map<std::string, ConvCache> conv;

  Counts linear_counts(const ConnectionCall& call);
  Counts conv_counts(const ConnectionCall& call);
  Counts cell_counts(const ConnectionCall& call);
};

namespace {

template <class T>
int64_t linear_effective(const T* x, int64_t rows, int64_t in, const int64_t* per_input) {
  int64_t total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * in;
    for (int64_t i = 0; i < in; ++i) total += (row[i] != T(0)) ? per_input[i] : 0;
  }
  return total;
}

}  // namespace

// spec: Synaptic operations, Linear: effective = number of (non-zero input, non-zero weight)
// pairs, computed as the binarised input times the per-input count of non-zero weights.
Counts SynapticOperations::State::linear_counts(const ConnectionCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  if (w.dim() != 2 || x.dim() == 0 || x.size(-1) != w.size(1)) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}': input of shape {} does not fit "
                                  "a weight of shape {}",
                                  call.layer, shape_string(x), shape_string(w)));
  }
  auto& cache = linear[std::string(call.layer)];
  const WeightKey key = key_of(w);
  if (!(cache.key == key) || cache.nonzero_per_input.empty()) {
    const torch::Tensor per_input = (w != 0).sum(0, false, torch::kLong).contiguous();
    cache.nonzero_per_input.assign(per_input.data_ptr<int64_t>(),
                                   per_input.data_ptr<int64_t>() + per_input.numel());
    cache.key = key;
  }
  const int64_t in = w.size(1);
  const int64_t out = w.size(0);
  const int64_t rows = in == 0 ? 0 : x.numel() / in;
  Counts c;
  c.spiking = detail::is_spiking(x);
  c.dense = rows * in * out;
  const torch::Tensor xc = x.contiguous();
  if (xc.scalar_type() == torch::kFloat) {
    c.effective = linear_effective(xc.data_ptr<float>(), rows, in, cache.nonzero_per_input.data());
  } else if (xc.scalar_type() == torch::kDouble) {
    c.effective = linear_effective(xc.data_ptr<double>(), rows, in, cache.nonzero_per_input.data());
  } else {
    const torch::Tensor xf = (xc != 0).to(torch::kDouble).contiguous();
    c.effective = linear_effective(xf.data_ptr<double>(), rows, in, cache.nonzero_per_input.data());
  }
  return c;
}

namespace {

// Runs `conv` of `input` with `kernel` (one output channel), honouring the layer's stride,
// padding (numbers or 'same'/'valid'), dilation; groups are folded into the kernel.
torch::Tensor counting_conv(const ConnectionCall& call, const torch::Tensor& input,
                            const torch::Tensor& kernel, int64_t spatial) {
  const bool full = call.op == "aten::_convolution";
  // aten::conv{N}d(input, weight, bias, stride, padding, dilation, groups)
  // aten::_convolution(input, weight, bias, stride, padding, dilation, transposed, ...)
  const auto stride = int_list_arg(call, 3);
  const auto dilation = int_list_arg(call, 5);
  const c10::IValue& padding = call.args.at(4);
  if (padding.isString()) {
    const std::string mode = padding.toStringRef();
    switch (spatial) {
      case 1: return torch::conv1d(input, kernel, {}, stride, mode, dilation, 1);
      case 2: return torch::conv2d(input, kernel, {}, stride, mode, dilation, 1);
      default: return torch::conv3d(input, kernel, {}, stride, mode, dilation, 1);
    }
  }
  const auto pad = padding.toIntVector();
  if (full) {
    return at::_convolution(input, kernel, {}, stride, pad, dilation, false,
                            std::vector<int64_t>(static_cast<std::size_t>(spatial), 0), 1, false,
                            false, true, true);
  }
  switch (spatial) {
    case 1: return torch::conv1d(input, kernel, {}, stride, pad, dilation, 1);
    case 2: return torch::conv2d(input, kernel, {}, stride, pad, dilation, 1);
    default: return torch::conv3d(input, kernel, {}, stride, pad, dilation, 1);
  }
}

}  // namespace

// spec: Synaptic operations, Conv: one single-channel convolution of the binarised input with
// the per-input-channel count of non-zero weights (stride, padding, dilation and groups kept);
// the dense count depends only on the input shape and is cached.
Counts SynapticOperations::State::conv_counts(const ConnectionCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  if (call.op == "aten::_convolution" && call.args.at(6).toBool()) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}': transposed convolutions are "
                                  "not supported",
                                  call.layer));
  }
  const int64_t groups =
      call.op == "aten::_convolution" ? call.args.at(8).toInt() : call.args.at(6).toInt();
  const int64_t spatial = w.dim() - 2;
  if (spatial < 1 || spatial > 3 || groups <= 0) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}': unexpected weight shape {}",
                                  call.layer, shape_string(w)));
  }
  const int64_t out_channels = w.size(0);
  const int64_t in_per_group = w.size(1);
  const int64_t in_channels = in_per_group * groups;
  const int64_t out_per_group = out_channels / groups;

  auto& cache = conv[std::string(call.layer)];
  const WeightKey key = key_of(w);
  if (!(cache.key == key) || !cache.count_kernel.defined()) {
    // count_kernel[0, g*in_per_group + j, k] = #{oc in group g : w[oc, j, k] != 0}
    const torch::Tensor nz = (w != 0).to(torch::kFloat);
    std::vector<int64_t> grouped_shape = {groups, out_per_group, in_per_group};
    for (int64_t d = 2; d < w.dim(); ++d) grouped_shape.push_back(w.size(d));
    torch::Tensor per_channel = nz.reshape(grouped_shape).sum(1);  // (groups, in_pg, k...)
    std::vector<int64_t> kernel_shape = {1, in_channels};
    for (int64_t d = 2; d < w.dim(); ++d) kernel_shape.push_back(w.size(d));
    cache.count_kernel = per_channel.reshape(kernel_shape).contiguous();
    cache.dense_by_shape.clear();
    cache.key = key;
  }

  Counts c;
  c.spiking = detail::is_spiking(x);
  const torch::Tensor binary = (x != 0).to(torch::kFloat);
  // Each output element is an exact integer in float32 (far below 2^24); sum in double.
  c.effective = static_cast<int64_t>(
      counting_conv(call, binary, cache.count_kernel, spatial).sum(torch::kDouble).item<double>());

  const std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  auto found = cache.dense_by_shape.find(shape);
  if (found == cache.dense_by_shape.end()) {
    const torch::Tensor ones_kernel = torch::full_like(cache.count_kernel, out_per_group);
    const auto dense = static_cast<int64_t>(
        counting_conv(call, torch::ones_like(binary), ones_kernel, spatial)
            .sum(torch::kDouble)
            .item<double>());
    found = cache.dense_by_shape.emplace(shape, dense).first;
  }
  c.dense = found->second;
  return c;
}

namespace {

torch::Tensor binarised(const torch::Tensor& t) { return (t != 0).to(torch::kDouble); }
torch::Tensor nonzero_flags(const torch::Tensor& t) { return (t != 0).to(torch::kDouble); }

// The reference's count for one call of a recurrent cell (gates binarised, element-wise products
// counted where their operands are non-zero), followed literally so the numbers agree:
// docs/metrics.md lists where it departs from a plain operation count.
int64_t cell_count(const std::string_view op, const torch::Tensor& x, const torch::Tensor& h,
                   const torch::Tensor& c, const torch::Tensor& w_ih, const torch::Tensor& w_hh,
                   const torch::Tensor& b_ih, const torch::Tensor& b_hh, bool total) {
  // Inputs: the input and (RNN, GRU) the hidden state become ones in the dense count; an LSTM's
  // (h, c) pair is only binarised (the reference's nested-tuple handling).
  const bool lstm = op == "aten::lstm_cell";
  const bool gru = op == "aten::gru_cell";
  const torch::Tensor xb = total ? torch::ones_like(x, torch::kDouble) : binarised(x);
  const torch::Tensor hb =
      (total && !lstm) ? torch::ones_like(h, torch::kDouble) : binarised(h);
  const torch::Tensor wih = total ? torch::ones_like(w_ih, torch::kDouble) : binarised(w_ih);
  const torch::Tensor whh = total ? torch::ones_like(w_hh, torch::kDouble) : binarised(w_hh);
  const bool has_bias = b_ih.defined() && b_hh.defined();
  const torch::Tensor x2 = xb.dim() == 1 ? xb.unsqueeze(0) : xb;
  const torch::Tensor h2 = hb.dim() == 1 ? hb.unsqueeze(0) : hb;

  const torch::Tensor out_ih = wih.matmul(x2.t());  // (G*h, B)
  const torch::Tensor out_hh = whh.matmul(h2.t());
  double count = 0;
  if (!lstm && !gru) return static_cast<int64_t>((out_ih + out_hh).sum().item<double>());

  torch::Tensor bias_ih, bias_hh;
  if (has_bias) {
    bias_ih = (total ? torch::ones_like(b_ih, torch::kDouble) : binarised(b_ih)).unsqueeze(1);
    bias_hh = (total ? torch::ones_like(b_hh, torch::kDouble) : binarised(b_hh)).unsqueeze(1);
  } else {
    bias_ih = torch::zeros({out_ih.size(0), 1}, torch::kDouble);
    bias_hh = torch::zeros({out_ih.size(0), 1}, torch::kDouble);
  }
  const int64_t hidden = w_hh.size(1);
  const int64_t batch = x2.size(0);

  if (lstm) {
    torch::Tensor out = out_ih + out_hh;
    count += out.sum().item<double>();  // gate products, no bias
    out = nonzero_flags(out + bias_ih + bias_hh).reshape({4, hidden, batch});
    const torch::Tensor i = out[0], f = out[1], g = out[2], o = out[3];
    const torch::Tensor cb = c.dim() == 1 ? binarised(c).unsqueeze(0) : binarised(c);
    torch::Tensor c1 = f * cb.t() + i * g;  // f*c and i*g
    count += c1.sum().item<double>();
    c1 = nonzero_flags(c1);
    count += nonzero_flags(o * c1).sum().item<double>();  // o * tanh(c)
    return static_cast<int64_t>(count);
  }

  // GRU, as the reference computes it.
  torch::Tensor rzn = out_ih + out_hh;
  count += rzn.sum().item<double>();
  rzn = (rzn + bias_ih + bias_hh).reshape({3, hidden, batch});
  const torch::Tensor hh = out_hh.reshape({3, hidden, batch});
  const torch::Tensor bhh = bias_hh.reshape({3, hidden, 1});
  const torch::Tensor r = nonzero_flags(rzn[0]);
  const torch::Tensor z_raw = rzn[1];
  const torch::Tensor nh = nonzero_flags(hh[2] + bhh[2]);
  const torch::Tensor t = nonzero_flags(r * nh);
  count += t.sum().item<double>();  // r * (W_hn h + b_hn)
  // The reference adds the single element bias_ih[2] (a row of the (3h, 1) column) here.
  const torch::Tensor n = nonzero_flags(hh[2] + bias_ih[2] + t);
  const torch::Tensor z_a = nonzero_flags(1 - z_raw);
  const torch::Tensor z = nonzero_flags(z_raw);
  const torch::Tensor t1 = nonzero_flags(z_a * n);
  const torch::Tensor t2 = nonzero_flags(z * h2.t());
  count += (t1 + t2).sum().item<double>();  // (1 - z) * n and z * h
  return static_cast<int64_t>(count);
}

}  // namespace

// spec: Synaptic operations, RNN/LSTM/GRU cells
Counts SynapticOperations::State::cell_counts(const ConnectionCall& call) {
  // aten::*_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?); the LSTM's hx is a list [h, c].
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  torch::Tensor h, c;
  const c10::IValue& hx = call.args.at(1);
  if (hx.isTensorList()) {
    const auto list = hx.toTensorVector();
    if (list.size() != 2) {
      throw MetricError(fmt::format("SynapticOperations: layer '{}': LSTM state must be (h, c)",
                                    call.layer));
    }
    h = list[0];
    c = list[1];
  } else {
    h = tensor_arg(call, 1, "hidden state");
  }
  const torch::Tensor& w_ih = tensor_arg(call, 2, "weight_ih");
  const torch::Tensor& w_hh = tensor_arg(call, 3, "weight_hh");
  const torch::Tensor b_ih = optional_tensor_arg(call, 4);
  const torch::Tensor b_hh = optional_tensor_arg(call, 5);
  Counts counts;
  counts.spiking = detail::is_spiking(x);  // spec: for a cell, its first input decides
  counts.effective = cell_count(call.op, x, h, c, w_ih, w_hh, b_ih, b_hh, false);
  counts.dense = cell_count(call.op, x, h, c, w_ih, w_hh, b_ih, b_hh, true);
  return counts;
}

SynapticOperations::SynapticOperations() : state_(std::make_unique<State>()) {}
SynapticOperations::~SynapticOperations() = default;

void SynapticOperations::reset() { *state_ = State{}; }

void SynapticOperations::on_connection(const ConnectionCall& call) {
  Counts c;
  const std::string_view op = call.op;
  if (op == "aten::linear") {
    c = state_->linear_counts(call);
  } else if (op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d" ||
             op == "aten::_convolution") {
    c = state_->conv_counts(call);
  } else if (op == "aten::rnn_tanh_cell" || op == "aten::rnn_relu_cell" ||
             op == "aten::lstm_cell" || op == "aten::gru_cell") {
    c = state_->cell_counts(call);
  } else {
    throw MetricError(fmt::format("SynapticOperations: layer '{}' ({}): operator {} is not "
                                  "counted yet",
                                  call.layer, call.type_name, op));
  }
  (c.spiking ? state_->acs : state_->macs) += c.effective;
  state_->dense += c.dense;
}

void SynapticOperations::update(const WorkloadInput& input) {
  state_->samples += input.batch.size();
}

Json SynapticOperations::compute() const {
  Json out = Json::object();
  const double n = static_cast<double>(state_->samples);
  const bool none = state_->samples == 0;
  out["Effective_MACs"] = none ? 0.0 : static_cast<double>(state_->macs) / n;
  out["Effective_ACs"] = none ? 0.0 : static_cast<double>(state_->acs) / n;
  out["Dense"] = none ? 0.0 : static_cast<double>(state_->dense) / n;
  return out;
}

}  // namespace neurobench::metrics
