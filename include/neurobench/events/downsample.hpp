// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <neurobench/events/events.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::events {

/// tonic's `Downsample(spatial_factor=(factor_x, factor_y))`: every `x` becomes
/// `x * factor_x` and every `y` becomes `y * factor_y`, computed in double precision and
/// truncated toward zero (NumPy's cast of the product back to the integer column); timestamps
/// and polarities are kept, no event is dropped (so several land on the same pixel).
/// Downsampling by 0.25 maps the DVS128's 128 x 128 pixels onto 32 x 32.
///
/// Throws UsageError when a factor is not positive and finite, InputError when a product does
/// not fit a 32-bit coordinate or the columns differ in length.
[[nodiscard]] Events downsample(const Events& events, double factor_x, double factor_y);

/// downsample() with the same factor for `x` and `y` (tonic's `spatial_factor=factor`).
[[nodiscard]] inline Events downsample(const Events& events, double factor) {
  return downsample(events, factor, factor);
}

/// The size of one axis of `size` pixels once downsampled by `factor`: one more than the
/// largest coordinate, `trunc((size - 1) * factor) + 1` (128 by 0.25 gives 32). Throws
/// UsageError when `size` is not positive or `factor` not positive and finite.
[[nodiscard]] std::int64_t downsampled_size(std::int64_t size, double factor);

}  // namespace neurobench::events
NEUROBENCH_API_END
