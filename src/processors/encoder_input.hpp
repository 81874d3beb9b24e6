// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the spike encoders share: the checks and conversion of their input tensor, their
// options read from registry JSON, and the time-first to batch-first move. Private to the
// library (src/).

#include <cstdint>
#include <string_view>

#include <torch/script.h>

#include <neurobench/json.hpp>

namespace neurobench::detail {

/// The most timesteps an encoder makes (`num_steps`): a bound that stops a typing slip from
/// asking for terabytes.
inline constexpr int64_t kMaxEncoderSteps = 1'000'000;

/// Which values an encoder refuses besides NaN.
enum class Infinities { Allowed, Refused };

/// `data` as an encoder computes on it: float64 stays float64, other real types (float32,
/// float16, bfloat16, integers, bool) become float32; contiguous. Throws InputError starting
/// with `who` for an undefined tensor, fewer than `min_dim` dimensions (`layout` names the
/// layout expected), complex values, NaN values, and infinite ones when refused; the message
/// gives their count and the index of the first.
[[nodiscard]] torch::Tensor encoder_input(const torch::Tensor& data, std::string_view who,
                                          int64_t min_dim, std::string_view layout,
                                          Infinities infinities);

/// Throws InputError starting with `who` when `x` (float32 or float64) holds a NaN, or an
/// infinity when refused: their count, the first's value and multi-index, and the shape.
/// `what` names the tensor ("data").
void check_values(const torch::Tensor& x, std::string_view who, std::string_view what,
                  Infinities infinities);

/// The integer option `name` of complete registry options (type already checked): whole
/// numbers written as floats (`5.0`) are taken; ones beyond int64 are a UsageError.
[[nodiscard]] int64_t integer_option(const Json& options, std::string_view name,
                                     std::string_view who);
/// A seed as `torch.manual_seed` takes it: 0 to 2^64 - 1, or a negative int64 taken as its
/// two's complement. Throws UsageError beyond those.
[[nodiscard]] uint64_t seed_option(const Json& options, std::string_view name,
                                   std::string_view who);

/// Throws UsageError unless 1 <= num_steps <= kMaxEncoderSteps.
void check_num_steps(int64_t num_steps, std::string_view who);
/// Throws UsageError unless 0 <= first_spike_time <= num_steps - 1.
void check_first_spike_time(int64_t first_spike_time, int64_t num_steps, std::string_view who);

/// `(time, batch, rest...)` to `(batch, time, rest...)`, contiguous float32.
[[nodiscard]] torch::Tensor batch_first(const torch::Tensor& time_first);

}  // namespace neurobench::detail
