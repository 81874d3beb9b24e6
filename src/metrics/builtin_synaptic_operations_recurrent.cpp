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

// The reference's binary copy of a tensor: non-zero values become 1 (`t[t != 0] = 1`), or
// every value does (`all_ones`), in the tensor's own dtype.
torch::Tensor binary_copy(const torch::Tensor& t, bool all_ones) {
  return all_ones ? torch::ones_like(t) : t.ne(0).to(t.scalar_type());
}

// `t[t != 0] = 1`, in place, as the reference writes it.
void ones_where_nonzero(torch::Tensor& t) { t.masked_fill_(t.ne(0), 1); }

// The failure of the reference's GRU count on a cell without biases: its `bias_hh` is then the
// number 0, which it reshapes.
[[noreturn]] void no_gru_biases() {
  throw synaptic::ReferenceFailure("'int' object has no attribute 'reshape'");
}

}  // namespace

namespace synaptic {

// spec: Synaptic operations, RNN/LSTM/GRU cells. NeuroBench 2.3's recurrent_cell_macs
// (neurobench/metrics/utils/layers/macs.py), operation for operation and in the layer's dtype,
// so that its numbers, and its failures, are the reference's: the binary copies of the weights
// (or all ones for the dense count) times the binary inputs, where the inputs are as its
// binary_inputs() makes them of what the cell's forward was given:
// - with a state: the input and (RNN, GRU) the hidden state binarised, or all ones for the
//   dense count; an LSTM's (h, c) pair binarised in both counts (the nested tuple);
// - without one: the input alone, of which the count reads `inputs[0]`, its first row, and
//   (GRU) `inputs[1]`, its second.
torch::Tensor reference_cell_count(std::string_view op, const CellCall& call, bool total,
                                   bool literal) {
  const bool lstm = op == "aten::lstm_cell";
  const bool gru = op == "aten::gru_cell";
  const torch::Tensor w_ih = binary_copy(call.w_ih, total);
  const torch::Tensor w_hh = binary_copy(call.w_hh, total);
  const bool given_biases = call.b_ih.defined() && call.b_hh.defined();
  // Not literal: a cell without biases is counted as one with zero biases (the reference's GRU
  // count fails on it).
  const bool has_biases = given_biases || !literal;
  const torch::Tensor b_ih =
      given_biases ? call.b_ih : torch::zeros({call.w_ih.size(0)}, call.w_ih.options());
  const torch::Tensor b_hh =
      given_biases ? call.b_hh : torch::zeros({call.w_hh.size(0)}, call.w_hh.options());
  const torch::Tensor x = binary_copy(call.x, total);
  torch::Tensor h, c;
  if (call.state_given) {
    h = binary_copy(call.h, total && !lstm);
    if (lstm) c = binary_copy(call.c, false);
  }
  // inputs[0]: the input of (input, state), or the first row of the input alone.
  const torch::Tensor first = call.state_given ? x : x.select(0, 0);
  const torch::Tensor out_ih = at::matmul(w_ih, first.transpose(0, -1));
  torch::Tensor out_hh = torch::zeros_like(out_ih);
  torch::Tensor bias_ih, bias_hh, biases;  // undefined: the reference's number 0
  if (has_biases) {
    // A zero bias stays zero in the dense count too: it is not a weight (not literal only).
    bias_ih = (given_biases ? binary_copy(b_ih, total) : b_ih).unsqueeze(0).transpose(0, -1);
    bias_hh = (given_biases ? binary_copy(b_hh, total) : b_hh).unsqueeze(0).transpose(0, -1);
    biases = bias_ih + bias_hh;
  }
  if (call.state_given) out_hh = at::matmul(w_hh, h.transpose(0, -1));

  if (lstm) {
    torch::Tensor out = out_ih + out_hh;
    const torch::Tensor ifgo_macs = out.sum();
    if (has_biases) out.add_(biases);  // in place: the reference's `out += biases`
    ones_where_nonzero(out);
    const int64_t hidden = out.size(0) / 4;
    const torch::Tensor ifgo = out.reshape({4, hidden, -1});
    torch::Tensor c1 = call.state_given ? ifgo.select(0, 1) * c.transpose(0, -1) +
                                              ifgo.select(0, 0) * ifgo.select(0, 2)
                                        : ifgo.select(0, 0) * ifgo.select(0, 2);
    const torch::Tensor ifgoc_macs = ifgo_macs + c1.sum();
    ones_where_nonzero(c1);
    torch::Tensor output = ifgo.select(0, 3) * c1;
    ones_where_nonzero(output);
    return output.sum() + ifgoc_macs;
  }
  if (!gru) return (out_ih + out_hh).sum();  // RNN: no biases counted

  torch::Tensor rzn = out_ih + out_hh;
  torch::Tensor macs = rzn.sum();
  if (has_biases) rzn.add_(biases);  // in place: the reference's `rzn += biases`
  const int64_t hidden = rzn.size(0) / 3;
  rzn = rzn.reshape({3, hidden, -1});
  const torch::Tensor hh = out_hh.reshape({3, hidden, -1});
  if (!has_biases) no_gru_biases();
  const torch::Tensor bhh = bias_hh.reshape({3, hidden, -1});
  torch::Tensor hh_n = hh.select(0, 2) + bhh.select(0, 2);
  torch::Tensor r = rzn.select(0, 0);  // views of rzn, written in place as the reference does
  torch::Tensor z = rzn.select(0, 1);
  ones_where_nonzero(r);
  ones_where_nonzero(hh_n);
  torch::Tensor n_hh = r * hh_n;  // r * (W_hn h + b_hn)
  ones_where_nonzero(n_hh);
  macs = macs + n_hh.sum();
  // bias_ih[2, :]: row 2 of the (3h, 1) column, one element.
  torch::Tensor n = hh.select(0, 2) + bias_ih.select(0, 2) + n_hh;
  ones_where_nonzero(n);
  torch::Tensor z_a = 1 - z;
  ones_where_nonzero(z);
  ones_where_nonzero(z_a);
  torch::Tensor t1 = z_a * n;
  // inputs[1]: the hidden state of (input, state), or the second row of the input alone.
  torch::Tensor t2 = z * (call.state_given ? h : x.select(0, 1)).transpose(0, -1);
  ones_where_nonzero(t1);
  ones_where_nonzero(t2);
  return macs + (t1 + t2).sum();
}

}  // namespace synaptic

// spec: Synaptic operations, RNN/LSTM/GRU cells
synaptic::CellCall synaptic::cell_call(const ConnectionCall& call) {
  // aten::*_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?); the LSTM's hx is a list [h, c].
  CellCall cell;
  cell.x = tensor_arg(call, 0, "input");
  const c10::IValue& hx = call.args.at(1);
  if (hx.isTensorList()) {
    const auto list = hx.toTensorVector();
    if (list.size() != 2) {
      throw MetricError(
          fmt::format("SynapticOperations: layer '{}': LSTM state must be (h, c)", call.layer));
    }
    cell.h = list[0];
    cell.c = list[1];
  } else {
    cell.h = tensor_arg(call, 1, "hidden state");
  }
  cell.w_ih = tensor_arg(call, 2, "weight_ih");
  cell.w_hh = tensor_arg(call, 3, "weight_hh");
  cell.b_ih = optional_tensor_arg(call, 4);
  cell.b_hh = optional_tensor_arg(call, 5);
  cell.state_given = call.state_given;
  return cell;
}

// The harness's own count (not per_layer): a call without a state is counted with the zeros
// PyTorch starts from, as a call given that state (docs/recurrent-layers.md); NeuroBench's
// count of such a call reads only the input's first sample, or fails (per_layer follows it).
Counts SynapticOperations::State::cell_counts(const ConnectionCall& call) {
  synaptic::CellCall cell = synaptic::cell_call(call);
  cell.state_given = true;
  Counts counts;
  counts.spiking = detail::spiking(cell.x);  // spec: for a cell, its first input decides
  counts.effective = count_of(synaptic::reference_cell_count(call.op, cell, false, false));
  counts.dense = count_of(synaptic::reference_cell_count(call.op, cell, true, false));
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
        const synaptic::CellCall step{x, h_in, c_in, w.w_ih, w.w_hh, b_ih, b_hh, true};
        Counts counts;
        counts.spiking = detail::spiking(x);  // spec: for a cell, its first input decides
        counts.effective = count_of(synaptic::reference_cell_count(cell_op, step, false, false));
        counts.dense = count_of(synaptic::reference_cell_count(cell_op, step, true, false));
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
