// SPDX-License-Identifier: Apache-2.0
// SynapticOperations on recurrent cells and layers: each cell call counted as the reference
// counts it, and RNN/LSTM/GRU layers unrolled into the cell calls they are equivalent to.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

#include "metrics/builtin_synaptic_operations.hpp"

namespace neurobench::metrics {

using detail::shape_string;
using synaptic::count_of;
using synaptic::Counts;
using synaptic::optional_tensor_arg;
using synaptic::tensor_arg;

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

}  // namespace neurobench::metrics
