// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/count_sum.hpp>

#include "util/text.hpp"

namespace neurobench::detail {

/// Number of non-zero elements, in one pass over contiguous float/double data (any other
/// layout or dtype goes through torch::count_nonzero). Reads the count back from a device.
[[nodiscard]] int64_t count_nonzero(const torch::Tensor& t);

/// A count that stays where its tensor is: a number on the host for a tensor on the CPU, a
/// 0-dim int64 tensor on the device for a tensor on a device (not read back, so that counting
/// does not wait for the device; CountSum reads the sum of many at once).
struct Count {
  int64_t host = 0;
  torch::Tensor device;  ///< Defined when the count is on a device.

  /// The count on a device as an int64 tensor there; `host` on the CPU as a number.
  [[nodiscard]] bool on_device() const { return device.defined(); }
  /// The count times `k`, where the count is.
  [[nodiscard]] Count times(int64_t k) const;
};

/// Whether a condition holds: a host bool, or a 0-dim bool tensor on a device.
struct Flag {
  bool host = false;
  torch::Tensor device;  ///< Defined when the flag is on a device.
};

/// Adds a count to a sum, where the count is.
void add_count(CountSum& sum, const Count& c);
/// Adds `c` to `sum` when `f` holds, where they are: on a device, the count times the flag,
/// without reading the flag back.
void add_count_if(CountSum& sum, const Count& c, const Flag& f);

/// count_nonzero() where the tensor is: on the CPU at once, on a device a tensor there.
[[nodiscard]] Count nonzeros(const torch::Tensor& t);

/// count_changed() where the tensors are (a device count for tensors on a device).
[[nodiscard]] Count changed(const torch::Tensor& a, const torch::Tensor& b);

/// is_spiking() where the tensor is (a device flag for a tensor on a device).
[[nodiscard]] Flag spiking(const torch::Tensor& t);

/// is_spiking() of each `t[i]` of a tensor of at least 2 dimensions, where it is: `(t.size(0))`
/// booleans, without reading them back.
[[nodiscard]] torch::Tensor spike_flags(const torch::Tensor& t);

/// Number of positions where `(a - b) != 0` (the reference's count_nonzero(pre - post)); NaN
/// differences count. Shapes must be equal.
[[nodiscard]] int64_t count_changed(const torch::Tensor& a, const torch::Tensor& b);

/// True when every element is -1, 0 or 1 (the reference's test for spiking input).
[[nodiscard]] bool is_spiking(const torch::Tensor& t);

/// The arguments of a convolution operator that follow input, weight and bias, read by
/// position from its schema:
/// - `aten::conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups)`, padding as
///   numbers or as the string `'same'` or `'valid'`;
/// - `aten::_convolution(input, weight, bias, stride, padding, dilation, transposed,
///   output_padding, groups, ...)`;
/// - `aten::conv_transpose{1,2,3}d(input, weight, bias, stride, padding, output_padding,
///   groups, dilation)`.
struct ConvolutionArgs {
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;  ///< Empty when `padding_mode` is set.
  std::string padding_mode;      ///< `same` or `valid` when padding was given as a string.
  std::vector<int64_t> dilation;
  std::vector<int64_t> output_padding;  ///< Transposed convolutions only.
  int64_t groups = 1;
  bool transposed = false;
};

/// Reads the arguments of a call of `op`, one of the operators ConvolutionArgs lists. Throws
/// c10::Error when an argument is not of the schema's type.
[[nodiscard]] ConvolutionArgs convolution_args(std::string_view op,
                                               c10::ArrayRef<c10::IValue> args);

/// The arguments of a recurrent layer operator (`aten::lstm`, `aten::gru`, `aten::rnn_tanh`,
/// `aten::rnn_relu`), read by position from either overload of its schema:
/// - input: `(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
///   batch_first)`;
/// - packed sequences: `(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
///   bidirectional)`.
/// The LSTM's `hx` is a list `[h0, c0]`, the others' a tensor.
struct RecurrentLayerArgs {
  bool lstm = false;
  bool packed = false;  ///< The packed-sequence overload.
  /// `(timesteps, batch, features)`, `(batch, timesteps, features)` with batch_first,
  /// `(timesteps, features)` unbatched, or packed `(rows, features)`.
  torch::Tensor input;
  /// Packed only: the number of sequences still running at each timestep (positive,
  /// non-increasing, adding up to the rows of `input`).
  std::vector<int64_t> batch_sizes;
  torch::Tensor h0;  ///< As given: may be undefined or empty.
  torch::Tensor c0;  ///< LSTM only, as given.
  /// Per layer, then per direction (forward, reverse): `w_ih, w_hh[, b_ih, b_hh][, w_hr]`.
  std::vector<torch::Tensor> params;
  bool has_biases = false;
  int64_t num_layers = 0;
  bool bidirectional = false;
  bool batch_first = false;  ///< Always false for packed sequences.
  bool projections = false;  ///< An LSTM with proj_size > 0: each cell's list ends with w_hr.

  /// 2 when bidirectional, else 1.
  [[nodiscard]] int64_t directions() const { return bidirectional ? 2 : 1; }
  /// Layers times directions.
  [[nodiscard]] std::size_t cells() const {
    return static_cast<std::size_t>(num_layers * directions());
  }
  /// Tensors per layer and direction in `params`.
  [[nodiscard]] std::size_t per_cell() const {
    return (has_biases ? 4U : 2U) + (projections ? 1U : 0U);
  }
};

/// Makes the exception for a fault in a call, from a description of the fault.
using CallError = std::function<MetricError(const std::string& what)>;

/// Reads a call of the recurrent layer operator `op` and checks its form: the argument count
/// and types, the LSTM's `(h0, c0)` pair, the input's dimensions, a packed sequence's batch
/// sizes, and the number of weight tensors for the layers and directions. Throws
/// `error(description)`.
[[nodiscard]] RecurrentLayerArgs recurrent_layer_args(std::string_view op,
                                                      c10::ArrayRef<c10::IValue> args,
                                                      const CallError& error);

/// `map[key]`, added (value-initialised) when missing; no string is made for a key already
/// there. `Map` is a map from std::string with a transparent comparator or hash.
template <class Map>
typename Map::mapped_type& find_or_add(Map& map, std::string_view key) {
  auto it = map.find(key);
  if (it == map.end()) it = map.emplace(std::string(key), typename Map::mapped_type{}).first;
  return it->second;
}

}  // namespace neurobench::detail
