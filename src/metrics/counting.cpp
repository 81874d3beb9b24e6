// SPDX-License-Identifier: Apache-2.0
#include "metrics/counting.hpp"

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

namespace {
template <class T>
int64_t nonzeros(const T* p, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += (p[i] != T(0));
  return count;
}

template <class T>
int64_t changed(const T* a, const T* b, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += ((a[i] - b[i]) != T(0));
  return count;
}

template <class T>
bool spiking(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = p[i];
    if (v != T(0) && v != T(1) && v != T(-1)) return false;
  }
  return true;
}
}  // namespace

int64_t count_nonzero(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return nonzeros(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return nonzeros(t.data_ptr<double>(), t.numel());
  }
  return t.count_nonzero().item<int64_t>();
}

int64_t count_changed(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.sizes().equals(b.sizes())) {
    throw MetricError(fmt::format("membrane potential changed shape from [{}] to [{}] between calls",
                                  fmt::join(a.sizes(), ", "), fmt::join(b.sizes(), ", ")));
  }
  if (a.is_contiguous() && b.is_contiguous() && a.scalar_type() == b.scalar_type() &&
      a.device().is_cpu() && b.device().is_cpu()) {
    if (a.scalar_type() == torch::kFloat) {
      return changed(a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
    }
    if (a.scalar_type() == torch::kDouble) {
      return changed(a.data_ptr<double>(), b.data_ptr<double>(), a.numel());
    }
  }
  return (a - b).count_nonzero().item<int64_t>();
}

bool is_spiking(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return spiking(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return spiking(t.data_ptr<double>(), t.numel());
  }
  return torch::logical_or(t == 0, torch::logical_or(t == 1, t == -1)).all().item<bool>();
}

ConvolutionArgs convolution_args(std::string_view op, c10::ArrayRef<c10::IValue> args) {
  ConvolutionArgs c;
  c.stride = args.at(3).toIntVector();
  const c10::IValue& padding = args.at(4);
  if (padding.isString()) {
    c.padding_mode = padding.toStringRef();
  } else {
    c.padding = padding.toIntVector();
  }
  if (op == "aten::_convolution") {
    c.dilation = args.at(5).toIntVector();
    c.transposed = args.at(6).toBool();
    c.output_padding = args.at(7).toIntVector();
    c.groups = args.at(8).toInt();
  } else if (op.rfind("aten::conv_transpose", 0) == 0) {
    c.transposed = true;
    c.output_padding = args.at(5).toIntVector();
    c.groups = args.at(6).toInt();
    c.dilation = args.at(7).toIntVector();
  } else {
    c.dilation = args.at(5).toIntVector();
    c.groups = args.at(6).toInt();
  }
  return c;
}

RecurrentLayerArgs recurrent_layer_args(std::string_view op, c10::ArrayRef<c10::IValue> args,
                                        const CallError& error) {
  if (args.size() < 9) throw error(fmt::format("{} arguments, expected 9", args.size()));
  RecurrentLayerArgs a;
  a.lstm = op == "aten::lstm";
  // The input overload has hx (a list for LSTM) at 1 and the weights at 2; the packed one has
  // the batch sizes at 1, which is a tensor for every layer kind.
  a.packed = a.lstm ? args[1].isTensor() : args[2].isTensor();
  const std::size_t p = a.packed ? 1 : 0;
  const auto tensor = [&](std::size_t i, const char* what) {
    if (!args[i].isTensor()) {
      throw error(fmt::format("argument {} ({}) is not a tensor", i, what));
    }
    return args[i].toTensor();
  };

  a.input = tensor(0, "input");
  if (a.lstm) {
    const c10::IValue& hx = args[1 + p];
    if (!hx.isTensorList() || hx.toTensorVector().size() != 2) {
      throw error("the LSTM state is not a pair (h0, c0)");
    }
    const auto pair = hx.toTensorVector();
    a.h0 = pair[0];
    a.c0 = pair[1];
  } else {
    a.h0 = tensor(1 + p, "hx");
  }
  if (!args[2 + p].isTensorList()) throw error("the weights are not a list of tensors");
  a.params = args[2 + p].toTensorVector();
  a.has_biases = args[3 + p].toBool();
  a.num_layers = args[4 + p].toInt();
  a.bidirectional = args[7 + p].toBool();
  a.batch_first = !a.packed && args[8].toBool();
  if (a.num_layers < 1) {
    throw error(fmt::format("num_layers is {}, expected at least 1", a.num_layers));
  }

  const std::size_t cells = a.cells();
  const std::size_t per_cell = a.per_cell();
  if (a.params.size() != cells * per_cell) {
    if (a.lstm && a.params.size() == cells * (per_cell + 1)) {
      a.projections = true;  // proj_size > 0: w_hr after each cell's weights and biases
    } else {
      throw error(fmt::format("{} weight tensors for {} layer(s) x {} direction(s){}, expected {}",
                              a.params.size(), a.num_layers, a.directions(),
                              a.has_biases ? " with biases" : "", cells * per_cell));
    }
  }

  if (a.packed) {
    const torch::Tensor sizes = tensor(1, "batch_sizes");
    if (sizes.dim() != 1 || a.input.dim() != 2) {
      throw error(
          fmt::format("packed data of shape {} with batch_sizes of shape {}, expected "
                      "(rows, features) and (timesteps)",
                      shape_string(a.input), shape_string(sizes)));
    }
    const torch::Tensor s = sizes.to(torch::kCPU, torch::kLong).contiguous();
    a.batch_sizes.assign(s.data_ptr<int64_t>(), s.data_ptr<int64_t>() + s.numel());
    int64_t sum = 0;
    for (std::size_t t = 0; t < a.batch_sizes.size(); ++t) {
      if (a.batch_sizes[t] < 1 || (t > 0 && a.batch_sizes[t] > a.batch_sizes[t - 1])) {
        throw error(
            fmt::format("batch_sizes [{}] of the packed sequence are not positive and "
                        "non-increasing",
                        fmt::join(a.batch_sizes, ", ")));
      }
      sum += a.batch_sizes[t];
    }
    if (sum != a.input.size(0)) {
      throw error(fmt::format("batch_sizes add up to {} but the packed data has {} rows", sum,
                              a.input.size(0)));
    }
  } else if (a.input.dim() != 3 && a.input.dim() != 2) {
    throw error(
        fmt::format("input of shape {}, expected (timesteps, batch, features), (batch, "
                    "timesteps, features) with batch_first, or (timesteps, features)",
                    shape_string(a.input)));
  }
  return a;
}

}  // namespace neurobench::detail
