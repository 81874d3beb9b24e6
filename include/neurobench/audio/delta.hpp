// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <torch/script.h>

namespace neurobench::audio {

/// Delta modulation along dimension `dim` (Speech2Spikes' encoding, Stewart et al., NICE 2023):
/// each series along `dim` gets a level that starts at `round(x[0])` (half to even, as
/// `torch.round`) and follows the signal in steps of `threshold`. At every step t, including
/// the first, `d = x[t] - level`; the event is +1 when `d > threshold`, -1 when
/// `d < -threshold`, else 0; then `level += event * threshold`. The level moves by at most one
/// step per sample, however far the signal jumps.
///
/// Returns the events, same shape and dtype as `x`, values in {-1, 0, 1}. The arithmetic is in
/// float64 for a float64 `x`, else in float32. `dim` may be negative. NaN never makes an event.
/// Throws UsageError for a negative or non-finite threshold, InputError for a non-floating or
/// 0-d `x` or a `dim` out of range.
[[nodiscard]] torch::Tensor delta_modulate(const torch::Tensor& x, double threshold = 1.0,
                                           int64_t dim = -1);

}  // namespace neurobench::audio
