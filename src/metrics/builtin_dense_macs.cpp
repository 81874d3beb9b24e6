// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "metrics/counting.hpp"
#include "metrics/layer_probe.hpp"

namespace neurobench::metrics {

namespace {

using detail::shape_string;

// Where a call is, for messages: the path and class of the module whose code holds it, or its
// operator and position in a frozen model.
std::string location(const OperatorCall& call) {
  if (call.site.empty()) return fmt::format("the root module ({})", call.module.type_name);
  return fmt::format("'{}' ({})", call.site, call.module.type_name);
}

MetricError error(const OperatorCall& call, std::string_view what) {
  return MetricError(fmt::format("DenseMACs: {} in {}: {}", call.op, location(call), what));
}

const torch::Tensor& tensor_arg(const OperatorCall& call, std::size_t i, const char* what) {
  if (i >= call.args.size() || !call.args[i].isTensor()) {
    throw error(call, fmt::format("argument {} ({}) is not a tensor", i, what));
  }
  return call.args[i].toTensor();
}

// Counts are exact integers; a count beyond int64 is an error, never a wrapped number.
int64_t mul(const OperatorCall& call, int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw error(call, "the MAC count exceeds 2^63");
  return r;
}

// The weights one output element reads: every dimension but the first, multiplied.
int64_t per_output(const OperatorCall& call, const torch::Tensor& w) {
  int64_t n = 1;
  for (int64_t d = 1; d < w.dim(); ++d) n = mul(call, n, w.size(d));
  return n;
}

// aten::linear(input, weight, bias): rows x in x out, rows = numel(input) / in.
int64_t linear_macs(const OperatorCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  if (w.dim() != 2 || x.dim() == 0 || x.size(-1) != w.size(1)) {
    throw error(call, fmt::format("input of shape {} does not fit a weight of shape {}",
                                  shape_string(x), shape_string(w)));
  }
  const int64_t in = w.size(1);
  const int64_t rows = in == 0 ? 0 : x.numel() / in;
  return mul(call, mul(call, rows, in), w.size(0));
}

// A convolution parameter for spatial dimension `d`: one value stands for every dimension.
int64_t per_dim(const OperatorCall& call, const std::vector<int64_t>& values, int64_t d,
                int64_t spatial, const char* name) {
  if (values.size() == 1) return values[0];
  if (static_cast<int64_t>(values.size()) != spatial) {
    throw error(call, fmt::format("{} has {} values for {} spatial dimension(s)", name,
                                  values.size(), spatial));
  }
  return values[static_cast<std::size_t>(d)];
}

// Convolutions: every output element reads (C_in / groups) x prod(kernel) weights; a transposed
// convolution multiplies every input element by (C_out / groups) x prod(kernel) weights. The
// output size follows from the arguments (the hook runs before the operator): padded positions
// count as a dense implementation computes them.
int64_t conv_macs(const OperatorCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  const detail::ConvolutionArgs conv = detail::convolution_args(call.op, call.args);
  const int64_t spatial = w.dim() - 2;
  if (spatial < 1 || spatial > 3 || conv.groups < 1) {
    throw error(call, fmt::format("weight of shape {} with {} group(s), expected 1 to 3 "
                                  "spatial dimensions and at least 1 group",
                                  shape_string(w), conv.groups));
  }
  const bool batched = x.dim() == spatial + 2;
  if (!batched && x.dim() != spatial + 1) {
    throw error(call, fmt::format("input of shape {} for a weight of shape {}, expected {} or {} "
                                  "dimensions",
                                  shape_string(x), shape_string(w), spatial + 1, spatial + 2));
  }
  const int64_t channels = x.size(batched ? 1 : 0);
  if (conv.transposed) {  // weight (C_in, C_out / groups, kernel...)
    if (channels != w.size(0)) {
      throw error(call, fmt::format("input of shape {} has {} channels, a weight of shape {} "
                                    "reads {}",
                                    shape_string(x), channels, shape_string(w), w.size(0)));
    }
    return mul(call, x.numel(), per_output(call, w));
  }
  // weight (C_out, C_in / groups, kernel...)
  if (channels != mul(call, w.size(1), conv.groups)) {
    throw error(call, fmt::format("input of shape {} has {} channels, a weight of shape {} with {} "
                                  "group(s) reads {}",
                                  shape_string(x), channels, shape_string(w), conv.groups,
                                  w.size(1) * conv.groups));
  }
  int64_t outputs = mul(call, batched ? x.size(0) : 1, w.size(0));
  for (int64_t d = 0; d < spatial; ++d) {
    const int64_t in = x.size(x.dim() - spatial + d);
    int64_t out = in;  // padding 'same'
    if (conv.padding_mode != "same") {
      const int64_t pad =
          conv.padding_mode == "valid" ? 0 : per_dim(call, conv.padding, d, spatial, "padding");
      const int64_t stride = per_dim(call, conv.stride, d, spatial, "stride");
      const int64_t dilation = per_dim(call, conv.dilation, d, spatial, "dilation");
      const int64_t span = in + 2 * pad - dilation * (w.size(2 + d) - 1) - 1;
      if (span < 0 || stride < 1) {
        throw error(call, fmt::format("input of shape {} gives no output for a weight of shape "
                                      "{} (stride {}, padding {}, dilation {})",
                                      shape_string(x), shape_string(w), stride, pad, dilation));
      }
      out = span / stride + 1;
    }
    outputs = mul(call, outputs, out);
  }
  return mul(call, outputs, per_output(call, w));
}

int64_t gates_of(std::string_view op) {
  if (op == "aten::lstm_cell" || op == "aten::lstm") return 4;
  if (op == "aten::gru_cell" || op == "aten::gru") return 3;
  return 1;
}

// aten::*_cell(input, hx, w_ih, w_hh, b_ih, b_hh): rows x gates*H x (I + H).
int64_t cell_macs(const OperatorCall& call) {
  const int64_t gates = gates_of(call.op);
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w_ih = tensor_arg(call, 2, "w_ih");
  const torch::Tensor& w_hh = tensor_arg(call, 3, "w_hh");
  if (x.dim() < 1 || x.dim() > 2 || w_ih.dim() != 2 || w_hh.dim() != 2 ||
      w_hh.size(0) != gates * w_hh.size(1) || w_ih.size(0) != w_hh.size(0) ||
      x.size(-1) != w_ih.size(1)) {
    throw error(call,
                fmt::format("input of shape {} with weights of shapes {} and {}, expected "
                            "(batch, input) or (input), ({} x hidden, input) and ({} x "
                            "hidden, hidden)",
                            shape_string(x), shape_string(w_ih), shape_string(w_hh), gates, gates));
  }
  const int64_t rows = x.dim() == 1 ? 1 : x.size(0);
  return mul(call, rows, w_ih.numel() + w_hh.numel());
}

// aten::lstm, gru, rnn_tanh, rnn_relu: every row of the sequence (timesteps x batch, or the
// packed rows, which are the steps really computed) passes through every layer and direction,
// each costing gates*H x (I_l + H), plus H x P for an LSTM's projection.
int64_t layer_macs(const OperatorCall& call) {
  const int64_t gates = gates_of(call.op);
  const detail::RecurrentLayerArgs a = detail::recurrent_layer_args(
      call.op, call.args, [&call](const std::string& what) { return error(call, what); });
  const torch::Tensor& x = a.input;
  const int64_t rows = (!a.packed && x.dim() == 3) ? mul(call, x.size(0), x.size(1)) : x.size(0);
  int64_t features = x.size(-1);
  int64_t per_row = 0;
  for (int64_t l = 0; l < a.num_layers; ++l) {
    int64_t layer_out = 0;  // the next layer's input features: all directions concatenated
    for (int64_t d = 0; d < a.directions(); ++d) {
      const std::size_t base = static_cast<std::size_t>(l * a.directions() + d) * a.per_cell();
      const torch::Tensor& w_ih = a.params[base];
      const torch::Tensor& w_hh = a.params[base + 1];
      // With proj_size: w_hh is (gates*H, P) and w_hr (P, H), the last tensor of the cell.
      const torch::Tensor& w_hr = a.params[base + a.per_cell() - 1];
      const bool ok_dims =
          w_ih.dim() == 2 && w_hh.dim() == 2 && (!a.projections || w_hr.dim() == 2);
      const int64_t hidden = !ok_dims ? 0 : (a.projections ? w_hr.size(1) : w_hh.size(1));
      const int64_t out = !ok_dims ? 0 : (a.projections ? w_hr.size(0) : hidden);
      if (!ok_dims || w_ih.size(0) != gates * hidden || w_hh.size(0) != gates * hidden ||
          w_ih.size(1) != features || w_hh.size(1) != out) {
        throw error(call,
                    fmt::format("layer {} direction {}: weights of shapes {} and {}{} do not fit "
                                "an input of {} features and {} gate(s)",
                                l, d, shape_string(w_ih), shape_string(w_hh),
                                a.projections ? " and " + shape_string(w_hr) : std::string(),
                                features, gates));
      }
      per_row += w_ih.numel() + w_hh.numel() + (a.projections ? w_hr.numel() : 0);
      layer_out += out;
    }
    features = layer_out;
  }
  return mul(call, rows, per_row);
}

// Matrix products, biases (addmm's and baddbmm's `self`) not counted: batch x n x k x m.
int64_t product_macs(const OperatorCall& call, const torch::Tensor& a, const torch::Tensor& b,
                     int64_t dims) {
  if (a.dim() != dims || b.dim() != dims || a.size(-1) != b.size(-2) ||
      (dims == 3 && a.size(0) != b.size(0))) {
    throw error(call,
                fmt::format("operands of shapes {} and {} are not {} matrices that can be "
                            "multiplied",
                            shape_string(a), shape_string(b), dims == 3 ? "batches of" : "two"));
  }
  return mul(call, a.numel(), b.size(-1));  // numel(a) = batch x n x k
}

// torch.matmul: a 1-D first operand is a row (n = 1), a 1-D second one a column (m = 1); the
// dimensions before the last two broadcast.
int64_t matmul_macs(const OperatorCall& call) {
  const torch::Tensor& a = tensor_arg(call, 0, "self");
  const torch::Tensor& b = tensor_arg(call, 1, "other");
  const int64_t k = a.dim() == 0 ? 0 : a.size(-1);
  const int64_t k_b = b.dim() == 0 ? 0 : (b.dim() == 1 ? b.size(0) : b.size(-2));
  if (a.dim() == 0 || b.dim() == 0 || k != k_b) {
    throw error(call, fmt::format("operands of shapes {} and {} cannot be multiplied",
                                  shape_string(a), shape_string(b)));
  }
  const int64_t n = a.dim() == 1 ? 1 : a.size(-2);
  const int64_t m = b.dim() == 1 ? 1 : b.size(-1);
  const int64_t batch_a = std::max<int64_t>(a.dim() - 2, 0);
  const int64_t batch_b = std::max<int64_t>(b.dim() - 2, 0);
  const int64_t batch_dims = std::max(batch_a, batch_b);
  int64_t batch = 1;
  for (int64_t i = 0; i < batch_dims; ++i) {  // aligned at the right, as broadcasting does
    const int64_t ia = i - (batch_dims - batch_a);
    const int64_t ib = i - (batch_dims - batch_b);
    const int64_t da = ia < 0 ? 1 : a.size(ia);
    const int64_t db = ib < 0 ? 1 : b.size(ib);
    if (da != db && da != 1 && db != 1) {
      throw error(call, fmt::format("the batch dimensions of operands of shapes {} and {} do not "
                                    "broadcast",
                                    shape_string(a), shape_string(b)));
    }
    batch = mul(call, batch, da == 1 ? db : da);
  }
  return mul(call, mul(call, batch, n), mul(call, k, m));
}

const std::vector<std::string>& extra_operators() {
  static const std::vector<std::string> ops = {"aten::conv_transpose1d",
                                               "aten::conv_transpose2d",
                                               "aten::conv_transpose3d",
                                               "aten::matmul",
                                               "aten::mm",
                                               "aten::bmm",
                                               "aten::addmm",
                                               "aten::baddbmm"};
  return ops;
}

int64_t macs_of(const OperatorCall& call) {
  const std::string_view op = call.op;
  if (op == "aten::linear") return linear_macs(call);
  if (op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d" ||
      op == "aten::_convolution" || op.rfind("aten::conv_transpose", 0) == 0) {
    return conv_macs(call);
  }
  if (op == "aten::rnn_tanh_cell" || op == "aten::rnn_relu_cell" || op == "aten::lstm_cell" ||
      op == "aten::gru_cell") {
    return cell_macs(call);
  }
  if (op == "aten::lstm" || op == "aten::gru" || op == "aten::rnn_tanh" || op == "aten::rnn_relu") {
    return layer_macs(call);
  }
  if (op == "aten::matmul") return matmul_macs(call);
  // mm(self, mat2), bmm(self, mat2), addmm(self, mat1, mat2), baddbmm(self, batch1, batch2)
  if (op == "aten::mm" || op == "aten::bmm") {
    return product_macs(call, tensor_arg(call, 0, "self"), tensor_arg(call, 1, "mat2"),
                        op == "aten::mm" ? 2 : 3);
  }
  if (op == "aten::addmm") {
    return product_macs(call, tensor_arg(call, 1, "mat1"), tensor_arg(call, 2, "mat2"), 2);
  }
  if (op == "aten::baddbmm") {
    return product_macs(call, tensor_arg(call, 1, "batch1"), tensor_arg(call, 2, "batch2"), 3);
  }
  throw error(call, "this operator is not counted");
}

}  // namespace

std::vector<std::string> DenseMACs::observed_operators() const {
  std::vector<std::string> ops = detail::connection_operators();
  ops.insert(ops.end(), extra_operators().begin(), extra_operators().end());
  return ops;
}

void DenseMACs::reset() {
  macs_ = 0;
  samples_ = 0;
}

// Every call site of an observed operator is one hook site, wherever it is: a call counts once,
// whichever modules are connection layers (a matmul inside a custom connection class too).
void DenseMACs::on_operator(const OperatorCall& call) {
  if (__builtin_add_overflow(macs_, macs_of(call), &macs_)) {
    throw error(call, "the total MAC count exceeds 2^63");
  }
}

void DenseMACs::update(const WorkloadInput& input) { samples_ += input.batch.size(); }

Json DenseMACs::compute() const {
  Json out = Json::object();
  const double n = static_cast<double>(samples_);
  const double macs = samples_ == 0 ? 0.0 : static_cast<double>(macs_) / n;
  out[keys::kMACs] = macs;
  out[keys::kFLOPs] = 2.0 * macs;  // one multiply and one add per MAC
  return out;
}

// Sharded runs: the counts; merging adds them.
Json DenseMACs::export_state() const { return Json{{"macs", macs_}, {"samples", samples_}}; }

void DenseMACs::merge_state(const Json& state) {
  const int64_t macs = state_integer(state, "macs", "DenseMACs");
  const int64_t samples = state_integer(state, "samples", "DenseMACs");
  int64_t total = 0;
  if (__builtin_add_overflow(macs_, macs, &total)) {
    throw MetricError("DenseMACs: the total MAC count of the shards exceeds 2^63");
  }
  macs_ = total;
  samples_ += samples;
}

MetricDescription DenseMACs::describe() {
  return MetricDescription("multiply-accumulates and FLOPs per sample of a dense implementation")
      .with_unit("ops/sample")
      .lower_is_better()
      .with_key(keys::kMACs, "MACs/sample", Better::Lower, "multiply-accumulates")
      .with_key(keys::kFLOPs, "FLOPs/sample", Better::Lower, "2 per multiply-accumulate");
}

}  // namespace neurobench::metrics
