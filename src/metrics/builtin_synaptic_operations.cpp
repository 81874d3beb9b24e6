// SPDX-License-Identifier: Apache-2.0
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "metrics/counting.hpp"

namespace neurobench::metrics {

namespace {

using detail::shape_string;

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

// The weight's "version" identifies its values: a cache entry is reused while the weight tensor
// and its version counter are unchanged.
struct WeightKey {
  const void* impl = nullptr;
  int64_t version = 0;
  bool operator==(const WeightKey& o) const { return impl == o.impl && version == o.version; }
};

WeightKey key_of(const torch::Tensor& w) {
  return {w.unsafeGetTensorImpl(),
          w.is_inference() ? int64_t{0} : static_cast<int64_t>(w._version())};
}

// One call's counts, where its input is: numbers for an input on the CPU; for an input on a
// device, tensors there (read once per batch by update(), not at each call).
struct Counts {
  detail::Count effective;
  detail::Count dense;
  detail::Flag spiking;  // spec: the input is spikes (every value -1, 0 or 1)
};

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

}  // namespace

struct SynapticOperations::State {
  CountSum effective;  // every call's; MACs are those of calls whose input is not spikes
  CountSum acs;
  CountSum dense;
  int64_t samples = 0;

  // A call's effective count goes to ACs when its input is spikes, to MACs otherwise: kept as
  // the total and the ACs (on a device, one masked count per call rather than two).
  void add(const Counts& c) {
    detail::add_count(effective, c.effective);
    detail::add_count_if(acs, c.effective, c.spiking);
    detail::add_count(dense, c.dense);
  }
  [[nodiscard]] int64_t macs() const { return effective.value() - acs.value(); }

  // On a device, a Linear or convolution call's effective count is made at the end of the
  // batch (count_kept()), with the layer's other calls: one set of operators per layer and input
  // shape rather than per call, for a network run step by step. Each call's input is kept until
  // then, as NeuroBench's hooks keep them; its dense count is made at once (from shapes).
  struct Kept {
    std::string op;        // the operator (a convolution's overload)
    torch::Tensor counts;  // Linear: per input feature (in); conv: the counting kernel
    detail::ConvolutionArgs conv;
    int64_t spatial = 0;                // conv: spatial dimensions; 0 for Linear
    std::vector<torch::Tensor> inputs;  // each call's: Linear (rows, in); conv as given
  };
  std::map<std::string, Kept, std::less<>> kept;  // by layer
  int64_t kept_bytes = 0;
  void keep(std::string_view layer, Kept what, const torch::Tensor& input);
  void count_kept();

  // Linear: per input feature, the number of non-zero weights that read it: as numbers for an
  // input on the CPU, as an int64 tensor on the weight's device for an input on a device.
  struct LinearCache {
    WeightKey key;
    std::vector<int64_t> nonzero_per_input;
    torch::Tensor nonzero_per_input_device;
  };
  std::map<std::string, LinearCache, std::less<>> linear;

  // Conv: a one-output-channel kernel counting, per input channel and kernel position, the
  // non-zero weights that read it; and the dense count per input shape.
  struct ConvCache {
    WeightKey key;
    torch::Tensor count_kernel;  // (1, in_channels, k...)
    std::map<std::vector<int64_t>, int64_t> dense_by_shape;
  };
  std::map<std::string, ConvCache, std::less<>> conv;

  Counts linear_counts(const ConnectionCall& call);
  Counts conv_counts(const ConnectionCall& call);
  Counts cell_counts(const ConnectionCall& call);
  void add_layer_counts(const ConnectionCall& call);
};

namespace {

// One pass over the input: the effective count and whether every value is -1, 0 or 1.
// Branch-free, so that the compiler can vectorise it: spikes make branches unpredictable.
template <class T>
int64_t linear_effective(const T* x, int64_t rows, int64_t in, const int64_t* per_input,
                         bool& spiking) {
  int64_t total = 0;
  int64_t not_binary = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * in;
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

}  // namespace

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
    cache.nonzero_per_input.clear();
    cache.nonzero_per_input_device = torch::Tensor();
    cache.key = key;
  }
  const int64_t in = w.size(1);
  const int64_t out = w.size(0);
  const int64_t rows = in == 0 ? 0 : x.numel() / in;
  Counts c;
  c.dense.host = rows * in * out;
  if (!x.device().is_cpu()) {
    // On the device: the binarised input times the per-input counts, at the end of the batch.
    if (!cache.nonzero_per_input_device.defined()) {
      cache.nonzero_per_input_device = (w != 0).sum(0, false, torch::kLong);
    }
    keep(call.layer, Kept{"aten::linear", cache.nonzero_per_input_device, {}, 0, {}},
         x.reshape({rows, in}));
    return c;  // the dense count now, the effective one kept
  }
  if (cache.nonzero_per_input.empty() && in > 0) {
    const torch::Tensor per_input =
        (w != 0).sum(0, false, torch::kLong).to(torch::kCPU).contiguous();
    cache.nonzero_per_input.assign(per_input.data_ptr<int64_t>(),
                                   per_input.data_ptr<int64_t>() + per_input.numel());
  }
  const torch::Tensor xc = x.contiguous();
  const int64_t* per_input = cache.nonzero_per_input.data();
  if (xc.scalar_type() == torch::kFloat) {
    c.effective.host = linear_effective(xc.data_ptr<float>(), rows, in, per_input, c.spiking.host);
  } else if (xc.scalar_type() == torch::kDouble) {
    c.effective.host = linear_effective(xc.data_ptr<double>(), rows, in, per_input, c.spiking.host);
  } else {
    const torch::Tensor xd = xc.to(torch::kDouble).contiguous();
    c.effective.host = linear_effective(xd.data_ptr<double>(), rows, in, per_input, c.spiking.host);
  }
  return c;
}

namespace {

// Runs `conv` of `input` with `kernel` (one output channel), honouring the layer's stride,
// padding (numbers or 'same'/'valid'), dilation; groups are folded into the kernel.
torch::Tensor counting_conv(std::string_view op, const detail::ConvolutionArgs& conv,
                            const torch::Tensor& input, const torch::Tensor& kernel,
                            int64_t spatial) {
  const bool full = op == "aten::_convolution";
  const auto& stride = conv.stride;
  const auto& dilation = conv.dilation;
  if (!conv.padding_mode.empty()) {
    const std::string& mode = conv.padding_mode;
    switch (spatial) {
      case 1:
        return torch::conv1d(input, kernel, {}, stride, mode, dilation, 1);
      case 2:
        return torch::conv2d(input, kernel, {}, stride, mode, dilation, 1);
      default:
        return torch::conv3d(input, kernel, {}, stride, mode, dilation, 1);
    }
  }
  const auto& pad = conv.padding;
  if (full) {
    return at::_convolution(input, kernel, {}, stride, pad, dilation, false,
                            std::vector<int64_t>(static_cast<std::size_t>(spatial), 0), 1, false,
                            false, true, true);
  }
  switch (spatial) {
    case 1:
      return torch::conv1d(input, kernel, {}, stride, pad, dilation, 1);
    case 2:
      return torch::conv2d(input, kernel, {}, stride, pad, dilation, 1);
    default:
      return torch::conv3d(input, kernel, {}, stride, pad, dilation, 1);
  }
}

}  // namespace

// spec: Synaptic operations, Conv: one single-channel convolution of the binarised input with
// the per-input-channel count of non-zero weights (stride, padding, dilation and groups kept);
// the dense count depends only on the input shape and is cached.
Counts SynapticOperations::State::conv_counts(const ConnectionCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  const detail::ConvolutionArgs conv_args = detail::convolution_args(call.op, call.args);
  if (conv_args.transposed) {
    throw MetricError(
        fmt::format("SynapticOperations: layer '{}': transposed convolutions are "
                    "not supported",
                    call.layer));
  }
  const int64_t groups = conv_args.groups;
  const int64_t spatial = w.dim() - 2;
  if (spatial < 1 || spatial > 3 || groups <= 0) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}': unexpected weight shape {}",
                                  call.layer, shape_string(w)));
  }
  const int64_t out_channels = w.size(0);
  const int64_t in_per_group = w.size(1);
  const int64_t in_channels = in_per_group * groups;
  const int64_t out_per_group = out_channels / groups;

  // Each output element of the counting convolutions is a whole number. On the CPU they are
  // computed in float32 (exact below 2^24); on a device in float64, which no TF32 mode rounds.
  const torch::ScalarType count_type = x.device().is_cpu() ? torch::kFloat : torch::kDouble;
  auto& cache = detail::find_or_add(conv, call.layer);
  const WeightKey key = key_of(w);
  if (!(cache.key == key) || !cache.count_kernel.defined() ||
      cache.count_kernel.scalar_type() != count_type) {
    // count_kernel[0, g*in_per_group + j, k] = #{oc in group g : w[oc, j, k] != 0}
    const torch::Tensor nz = (w != 0).to(count_type);
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
  if (x.device().is_cpu()) {
    c.spiking = detail::spiking(x);
    // Each output element is an exact integer (far below 2^24); sum in double.
    const torch::Tensor binary = (x != 0).to(count_type);
    c.effective = count_of(
        counting_conv(call.op, conv_args, binary, cache.count_kernel, spatial).sum(torch::kDouble));
  } else {  // at the end of the batch
    keep(call.layer, Kept{std::string(call.op), cache.count_kernel, conv_args, spatial, {}}, x);
  }

  // The dense count depends on the shape alone: computed (and on a device, read back) once
  // per shape.
  const std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  auto found = cache.dense_by_shape.find(shape);
  if (found == cache.dense_by_shape.end()) {
    const torch::Tensor ones_kernel = torch::full_like(cache.count_kernel, out_per_group);
    const auto dense = static_cast<int64_t>(
        counting_conv(call.op, conv_args, torch::ones_like(x, count_type), ones_kernel, spatial)
            .sum(torch::kDouble)
            .item<double>());
    found = cache.dense_by_shape.emplace(shape, dense).first;
  }
  c.dense.host = found->second;
  return c;
}

namespace {

torch::Tensor binarised(const torch::Tensor& t) { return (t != 0).to(torch::kDouble); }
torch::Tensor nonzero_flags(const torch::Tensor& t) { return (t != 0).to(torch::kDouble); }

// A recurrent cell's weights as the count sees them: binarised (effective count) or all ones
// (dense count), biases as (G*h, 1) columns, zeros when there are none. Built once per cell
// call, and once per layer and direction for a whole recurrent layer call.
struct CellOperands {
  torch::Tensor w_ih;     // (G*h, in)
  torch::Tensor w_hh;     // (G*h, h)
  torch::Tensor bias_ih;  // (G*h, 1)
  torch::Tensor bias_hh;  // (G*h, 1)
  int64_t hidden = 0;
};

CellOperands cell_operands(const torch::Tensor& w_ih, const torch::Tensor& w_hh,
                           const torch::Tensor& b_ih, const torch::Tensor& b_hh, bool total) {
  const auto as_counted = [total](const torch::Tensor& t) {
    return total ? torch::ones_like(t, torch::kDouble) : binarised(t);
  };
  CellOperands w;
  w.w_ih = as_counted(w_ih);
  w.w_hh = as_counted(w_hh);
  if (b_ih.defined() && b_hh.defined()) {
    w.bias_ih = as_counted(b_ih).reshape({-1, 1});
    w.bias_hh = as_counted(b_hh).reshape({-1, 1});
  } else {
    w.bias_ih = torch::zeros({w_ih.size(0), 1}, w_ih.options().dtype(torch::kDouble));
    w.bias_hh = torch::zeros({w_ih.size(0), 1}, w_ih.options().dtype(torch::kDouble));
  }
  w.hidden = w_hh.size(1);
  return w;
}

// The reference's count for one call of a recurrent cell (gates binarised, element-wise products
// counted where their operands are non-zero), followed literally so the numbers agree:
// docs/metrics.md lists where it departs from a plain operation count. `w` must be the operands
// for the same `total`. The count is a 0-dim double tensor where the input is (count_of()).
torch::Tensor cell_count(const std::string_view op, const torch::Tensor& x, const torch::Tensor& h,
                         const torch::Tensor& c, const CellOperands& w, bool total) {
  // Inputs: the input and (RNN, GRU) the hidden state become ones in the dense count; an LSTM's
  // (h, c) pair is only binarised (the reference's nested-tuple handling).
  const bool lstm = op == "aten::lstm_cell";
  const bool gru = op == "aten::gru_cell";
  const torch::Tensor xb = total ? torch::ones_like(x, torch::kDouble) : binarised(x);
  const torch::Tensor hb = (total && !lstm) ? torch::ones_like(h, torch::kDouble) : binarised(h);
  const torch::Tensor x2 = xb.dim() == 1 ? xb.unsqueeze(0) : xb;
  const torch::Tensor h2 = hb.dim() == 1 ? hb.unsqueeze(0) : hb;

  const torch::Tensor out_ih = w.w_ih.matmul(x2.t());  // (G*h, B)
  const torch::Tensor out_hh = w.w_hh.matmul(h2.t());
  if (!lstm && !gru) return (out_ih + out_hh).sum();

  const torch::Tensor& bias_ih = w.bias_ih;
  const torch::Tensor& bias_hh = w.bias_hh;
  const int64_t hidden = w.hidden;
  const int64_t batch = x2.size(0);

  if (lstm) {
    torch::Tensor out = out_ih + out_hh;
    torch::Tensor count = out.sum();  // gate products, no bias
    out = nonzero_flags(out + bias_ih + bias_hh).reshape({4, hidden, batch});
    const torch::Tensor i = out[0], f = out[1], g = out[2], o = out[3];
    const torch::Tensor cb = c.dim() == 1 ? binarised(c).unsqueeze(0) : binarised(c);
    torch::Tensor c1 = f * cb.t() + i * g;  // f*c and i*g
    count = count + c1.sum();
    c1 = nonzero_flags(c1);
    return count + nonzero_flags(o * c1).sum();  // o * tanh(c)
  }

  // GRU, as the reference computes it.
  torch::Tensor rzn = out_ih + out_hh;
  torch::Tensor count = rzn.sum();
  rzn = (rzn + bias_ih + bias_hh).reshape({3, hidden, batch});
  const torch::Tensor hh = out_hh.reshape({3, hidden, batch});
  const torch::Tensor bhh = bias_hh.reshape({3, hidden, 1});
  const torch::Tensor r = nonzero_flags(rzn[0]);
  const torch::Tensor z_raw = rzn[1];
  const torch::Tensor nh = nonzero_flags(hh[2] + bhh[2]);
  const torch::Tensor t = nonzero_flags(r * nh);
  count = count + t.sum();  // r * (W_hn h + b_hn)
  // The reference adds the single element bias_ih[2] (a row of the (3h, 1) column) here.
  const torch::Tensor n = nonzero_flags(hh[2] + bias_ih[2] + t);
  const torch::Tensor z_a = nonzero_flags(1 - z_raw);
  const torch::Tensor z = nonzero_flags(z_raw);
  const torch::Tensor t1 = nonzero_flags(z_a * n);
  const torch::Tensor t2 = nonzero_flags(z * h2.t());
  return count + (t1 + t2).sum();  // (1 - z) * n and z * h
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
      throw MetricError(
          fmt::format("SynapticOperations: layer '{}': LSTM state must be (h, c)", call.layer));
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
  counts.spiking = detail::spiking(x);  // spec: for a cell, its first input decides
  counts.effective =
      count_of(cell_count(call.op, x, h, c, cell_operands(w_ih, w_hh, b_ih, b_hh, false), false));
  counts.dense =
      count_of(cell_count(call.op, x, h, c, cell_operands(w_ih, w_hh, b_ih, b_hh, true), true));
  return counts;
}

namespace {

// The cell operator that performs one step of a recurrent layer operator.
std::string_view cell_op_of(std::string_view layer_op) {
  if (layer_op == "aten::lstm") return "aten::lstm_cell";
  if (layer_op == "aten::gru") return "aten::gru_cell";
  if (layer_op == "aten::rnn_tanh") return "aten::rnn_tanh_cell";
  return "aten::rnn_relu_cell";
}

// One layer and direction of a recurrent layer.
struct CellWeights {
  torch::Tensor w_ih, w_hh;
  c10::optional<torch::Tensor> b_ih, b_hh;  // unset without biases
};

// One step of the recurrence with the cell operators, in inference mode (dropout between layers
// is a training-time effect and is not applied). Returns the new (h, c); c stays undefined
// except for LSTM.
std::pair<torch::Tensor, torch::Tensor> cell_step(std::string_view cell_op, const torch::Tensor& x,
                                                  const torch::Tensor& h, const torch::Tensor& c,
                                                  const CellWeights& w) {
  if (cell_op == "aten::lstm_cell") {
    auto [h1, c1] = at::lstm_cell(x, {h, c}, w.w_ih, w.w_hh, w.b_ih, w.b_hh);
    return {h1, c1};
  }
  if (cell_op == "aten::gru_cell") return {at::gru_cell(x, h, w.w_ih, w.w_hh, w.b_ih, w.b_hh), {}};
  if (cell_op == "aten::rnn_tanh_cell") {
    return {at::rnn_tanh_cell(x, h, w.w_ih, w.w_hh, w.b_ih, w.b_hh), {}};
  }
  return {at::rnn_relu_cell(x, h, w.w_ih, w.w_hh, w.b_ih, w.b_hh), {}};
}

}  // namespace

// spec: Beyond the reference: RNN/LSTM/GRU layers are counted (docs/recurrent-layers.md). The
// layer is unrolled into the cell calls it is equivalent to; each step is counted as that cell
// call would be, with the state that really enters the step.
void SynapticOperations::State::add_layer_counts(const ConnectionCall& call) {
  const auto error = [&call](const std::string& what) {
    return MetricError(fmt::format("SynapticOperations: layer '{}' ({}, {}): {}", call.layer,
                                   call.type_name, call.op, what));
  };
  detail::RecurrentLayerArgs a = detail::recurrent_layer_args(call.op, call.args, error);
  if (a.projections) {
    throw error("LSTM layers with a projection (proj_size > 0, weight_hr) are not supported");
  }
  const bool lstm = a.lstm;
  const std::string_view cell_op = cell_op_of(call.op);
  const torch::Tensor& input = a.input;
  torch::Tensor& h0 = a.h0;
  torch::Tensor& c0 = a.c0;
  const std::vector<torch::Tensor>& params = a.params;
  const bool has_biases = a.has_biases;
  const int64_t num_layers = a.num_layers;
  const int64_t dirs = a.directions();
  const std::size_t cells = a.cells();
  const std::size_t per_cell = a.per_cell();

  // The sequence as rows: step t's batch rows follow step t-1's (the packed layout; an unpacked
  // sequence is the packed one whose batch sizes are all equal).
  torch::Tensor rows;
  std::vector<int64_t> batch_sizes;
  int64_t batch = 0;
  if (a.packed) {
    batch_sizes = a.batch_sizes;
    batch = batch_sizes.empty() ? 0 : batch_sizes.front();
    rows = input;
  } else {
    const bool unbatched = input.dim() == 2;
    const torch::Tensor time_major =
        unbatched ? input.unsqueeze(1) : (a.batch_first ? input.transpose(0, 1) : input);
    batch = time_major.size(1);
    batch_sizes.assign(static_cast<std::size_t>(time_major.size(0)), batch);
    rows = time_major.reshape({time_major.size(0) * batch, time_major.size(2)});
    if (unbatched && h0.defined() && h0.dim() == 2) h0 = h0.unsqueeze(1);
    if (unbatched && c0.defined() && c0.dim() == 2) c0 = c0.unsqueeze(1);
  }
  rows = rows.contiguous();

  if (params[1].dim() != 2) {
    throw error(fmt::format("weight_hh_l0 has shape {}, expected (gates x hidden, hidden)",
                            shape_string(params[1])));
  }
  const int64_t hidden = params[1].size(1);
  const std::vector<int64_t> state_shape = {static_cast<int64_t>(cells), batch, hidden};
  const auto check_state = [&](torch::Tensor& s, const char* name) {
    if (!s.defined() || s.numel() == 0) {
      s = torch::zeros(state_shape, rows.options());
    } else if (s.sizes() != c10::IntArrayRef(state_shape)) {
      throw error(fmt::format("{} has shape {}, expected [{}]", name, shape_string(s),
                              fmt::join(state_shape, ", ")));
    }
  };
  check_state(h0, "h0");
  if (lstm) check_state(c0, "c0");

  const std::size_t steps = batch_sizes.size();
  if (steps == 0 || batch == 0) return;
  std::vector<int64_t> offsets(steps, 0);
  for (std::size_t t = 1; t < steps; ++t) offsets[t] = offsets[t - 1] + batch_sizes[t - 1];

  c10::InferenceMode guard;
  torch::Tensor layer_in = rows;
  for (int64_t l = 0; l < num_layers; ++l) {
    std::vector<torch::Tensor> direction_out;
    for (int64_t d = 0; d < dirs; ++d) {
      const auto cell = static_cast<std::size_t>(l * dirs + d);
      const std::size_t base = cell * per_cell;
      CellWeights w{params[base], params[base + 1], c10::nullopt, c10::nullopt};
      if (has_biases) {
        w.b_ih = params[base + 2];
        w.b_hh = params[base + 3];
      }
      if (w.w_ih.dim() != 2 || w.w_ih.size(1) != layer_in.size(1) || w.w_hh.dim() != 2 ||
          w.w_hh.size(1) != hidden) {
        throw error(fmt::format(
            "layer {} direction {}: weights of shapes {} and {} do not fit an "
            "input of {} features and a hidden size of {}",
            l, d, shape_string(w.w_ih), shape_string(w.w_hh), layer_in.size(1), hidden));
      }
      const torch::Tensor no_bias;
      const torch::Tensor& b_ih = has_biases ? *w.b_ih : no_bias;
      const torch::Tensor& b_hh = has_biases ? *w.b_hh : no_bias;
      const CellOperands effective = cell_operands(w.w_ih, w.w_hh, b_ih, b_hh, false);
      const CellOperands dense = cell_operands(w.w_ih, w.w_hh, b_ih, b_hh, true);

      torch::Tensor h = h0[static_cast<int64_t>(cell)];
      torch::Tensor c = lstm ? c0[static_cast<int64_t>(cell)] : torch::Tensor();
      std::vector<torch::Tensor> out(steps);
      for (std::size_t k = 0; k < steps; ++k) {
        const std::size_t t = d == 0 ? k : steps - 1 - k;
        const int64_t active = batch_sizes[t];
        // A packed sequence's shorter sequences have ended (forward) or not yet begun (reverse):
        // only the first `active` rows take part in this step.
        const torch::Tensor x = layer_in.narrow(0, offsets[t], active);
        const torch::Tensor h_in = active == batch ? h : h.narrow(0, 0, active);
        const torch::Tensor c_in = !lstm || active == batch ? c : c.narrow(0, 0, active);
        Counts counts;
        counts.spiking = detail::spiking(x);  // spec: for a cell, its first input decides
        counts.effective = count_of(cell_count(cell_op, x, h_in, c_in, effective, false));
        counts.dense = count_of(cell_count(cell_op, x, h_in, c_in, dense, true));
        add(counts);

        auto [h_out, c_out] = cell_step(cell_op, x, h_in, c_in, w);
        out[t] = h_out;
        h = active == batch ? h_out : torch::cat({h_out, h.narrow(0, active, batch - active)});
        if (lstm) {
          c = active == batch ? c_out : torch::cat({c_out, c.narrow(0, active, batch - active)});
        }
      }
      if (l + 1 < num_layers) direction_out.push_back(torch::cat(out));
    }
    if (l + 1 < num_layers) {
      layer_in = dirs == 1 ? direction_out.front() : torch::cat(direction_out, 1);
    }
  }
}

void SynapticOperations::State::keep(std::string_view layer, Kept what,
                                     const torch::Tensor& input) {
  auto it = kept.find(layer);
  if (it == kept.end()) it = kept.emplace(std::string(layer), std::move(what)).first;
  it->second.inputs.push_back(input);
  kept_bytes += input.numel() * static_cast<int64_t>(input.element_size());
  if (kept_bytes > CountSum::kMaxKeptBytes) count_kept();  // memory stays bounded
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

SynapticOperations::SynapticOperations() : state_(std::make_unique<State>()) {}
SynapticOperations::~SynapticOperations() = default;

void SynapticOperations::reset() { *state_ = State{}; }

void SynapticOperations::on_connection(const ConnectionCall& call) {
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

void SynapticOperations::update(const WorkloadInput& input) {
  state_->samples += input.batch.size();
  state_->count_kept();
  // What a device counted in this batch, read once per batch.
  (void)state_->effective.value();
  (void)state_->acs.value();
  (void)state_->dense.value();
}

Json SynapticOperations::compute() const {
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
      .with_key(keys::kDense, "ops/sample", Better::Lower, "every synapse at every step");
}

}  // namespace neurobench::metrics
