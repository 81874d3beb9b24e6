// SPDX-License-Identifier: Apache-2.0
#include "metrics/counting.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

#include "util/widest_vectors.hpp"

namespace neurobench::detail {

namespace {
template <class T>
inline __attribute__((always_inline)) int64_t nonzeros_in(const T* p, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += (p[i] != T(0));
  return count;
}

template <class T>
inline __attribute__((always_inline)) int64_t changed_in(const T* a, const T* b, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += ((a[i] - b[i]) != T(0));
  return count;
}

// Branch-free within blocks of 256, so that it vectorises; a tensor that is not spikes (a
// membrane potential) usually says so in its first block.
template <class T>
inline __attribute__((always_inline)) bool all_spikes(const T* p, int64_t n) {
  constexpr int64_t kBlock = 256;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    int not_spike = 0;
    for (int64_t i = start; i < end; ++i) {
      const T v = p[i];
      not_spike |=
          static_cast<int>(v != T(0)) & static_cast<int>(v != T(1)) & static_cast<int>(v != T(-1));
    }
    if (not_spike != 0) return false;
  }
  return true;
}

// The loops above for the CPU's widest vectors, float and double.
NEUROBENCH_WIDEST_VECTORS int64_t nonzeros_of(const float* p, int64_t n) {
  return nonzeros_in(p, n);
}
NEUROBENCH_WIDEST_VECTORS int64_t nonzeros_of(const double* p, int64_t n) {
  return nonzeros_in(p, n);
}
NEUROBENCH_WIDEST_VECTORS int64_t changed_of(const float* a, const float* b, int64_t n) {
  return changed_in(a, b, n);
}
NEUROBENCH_WIDEST_VECTORS int64_t changed_of(const double* a, const double* b, int64_t n) {
  return changed_in(a, b, n);
}
NEUROBENCH_WIDEST_VECTORS bool spikes_only(const float* p, int64_t n) { return all_spikes(p, n); }
NEUROBENCH_WIDEST_VECTORS bool spikes_only(const double* p, int64_t n) { return all_spikes(p, n); }

// spec: an input counts as spikes when every value is -1, 0 or 1. For floating point: |value| is
// 1 or the value is 0 (NaN is neither), five operators on a device rather than six. Bitwise `|`
// of the comparisons: every device has it (the lazy device runs logical_or, and round, on the
// CPU behind its back).
torch::Tensor spike_values(const torch::Tensor& t) {
  if (t.is_floating_point()) return (t.abs() == 1) | (t == 0);
  return (t == 0) | (t == 1) | (t == -1);
}

torch::Tensor spike_flag(const torch::Tensor& t) { return spike_values(t).all(); }

// On a device, counts are sums of `!= 0` in int64: no host read, and no operator that LibTorch
// runs on the CPU behind the device's back (count_nonzero has none on the lazy device).
torch::Tensor device_nonzeros(const torch::Tensor& t) { return t.ne(0).sum(torch::kLong); }
}  // namespace

int64_t count_nonzero(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return nonzeros_of(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return nonzeros_of(t.data_ptr<double>(), t.numel());
  }
  return t.device().is_cpu() ? t.count_nonzero().item<int64_t>()
                             : device_nonzeros(t).item<int64_t>();
}

int64_t count_changed(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.sizes().equals(b.sizes())) {
    throw MetricError(fmt::format("membrane potential changed shape from [{}] to [{}] between calls",
                                  fmt::join(a.sizes(), ", "), fmt::join(b.sizes(), ", ")));
  }
  if (a.is_contiguous() && b.is_contiguous() && a.scalar_type() == b.scalar_type() &&
      a.device().is_cpu() && b.device().is_cpu()) {
    if (a.scalar_type() == torch::kFloat) {
      return changed_of(a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
    }
    if (a.scalar_type() == torch::kDouble) {
      return changed_of(a.data_ptr<double>(), b.data_ptr<double>(), a.numel());
    }
  }
  return (a.device().is_cpu() ? (a - b).count_nonzero() : device_nonzeros(a - b)).item<int64_t>();
}

bool is_spiking(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return spikes_only(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return spikes_only(t.data_ptr<double>(), t.numel());
  }
  return spike_flag(t).item<bool>();
}

Count Count::times(int64_t k) const {
  Count c;
  if (on_device()) {
    c.device = device * k;
  } else {
    c.host = host * k;
  }
  return c;
}

void add_count(CountSum& sum, const Count& c) {
  if (c.on_device()) {
    sum.add(c.device);
  } else {
    sum.add(c.host);
  }
}

void add_count_if(CountSum& sum, const Count& c, const Flag& f) {
  if (!f.device.defined()) {
    if (f.host) add_count(sum, c);
    return;
  }
  // On the device: the count times the flag (0 or 1), nothing read back.
  const torch::Tensor n =
      c.on_device() ? c.device : torch::full({}, c.host, f.device.options().dtype(torch::kLong));
  sum.add(n * f.device);
}

Count nonzeros(const torch::Tensor& t) {
  Count c;
  if (t.device().is_cpu()) {
    c.host = detail::count_nonzero(t);
  } else {
    c.device = device_nonzeros(t);
  }
  return c;
}

Count changed(const torch::Tensor& a, const torch::Tensor& b) {
  Count c;
  if (a.device().is_cpu() && b.device().is_cpu()) {
    c.host = detail::count_changed(a, b);
    return c;
  }
  if (!a.sizes().equals(b.sizes())) (void)count_changed(a, b);  // throws, naming the shapes
  c.device = device_nonzeros(a - b);
  return c;
}

torch::Tensor spike_flags(const torch::Tensor& t) { return spike_values(t).flatten(1).all(1); }

Flag spiking(const torch::Tensor& t) {
  Flag f;
  if (t.device().is_cpu()) {
    f.host = is_spiking(t);
  } else {
    f.device = spike_flag(t);
  }
  return f;
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
