// SPDX-License-Identifier: Apache-2.0
// tonic's Downsample(spatial_factor) (tonic/transforms.py): coordinates scaled and truncated.
#include <neurobench/events/downsample.hpp>

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "events/columns.hpp"

namespace neurobench::events {
namespace {

constexpr const char* kDownsample = "downsample";

// NumPy assigns the float64 product to the integer column by truncation toward zero.
std::int32_t scaled(std::int32_t value, double factor, std::size_t index, const char* axis) {
  const double product = std::trunc(static_cast<double>(value) * factor);
  if (!(product >= std::numeric_limits<std::int32_t>::min() &&
        product <= std::numeric_limits<std::int32_t>::max())) {
    throw InputError(fmt::format("{}: event {}: {} {} times {} does not fit a 32-bit coordinate",
                                 kDownsample, index, axis, value, factor));
  }
  return static_cast<std::int32_t>(product);
}

}  // namespace

Events downsample(const Events& events, double factor_x, double factor_y) {
  detail::check_columns(events, kDownsample);
  detail::check_positive(factor_x, kDownsample, "the x factor");
  detail::check_positive(factor_y, kDownsample, "the y factor");
  Events out = events;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out.x[i] = scaled(events.x[i], factor_x, i, "x");
    out.y[i] = scaled(events.y[i], factor_y, i, "y");
  }
  return out;
}

std::int64_t downsampled_size(std::int64_t size, double factor) {
  if (size <= 0) {
    throw UsageError(fmt::format("{}: a sensor size must be positive, got {}", kDownsample, size));
  }
  detail::check_positive(factor, kDownsample, "the spatial factor");
  const double largest = std::trunc(static_cast<double>(size - 1) * factor);
  if (largest >= static_cast<double>(std::numeric_limits<std::int32_t>::max())) {
    throw UsageError(fmt::format("{}: {} pixels times {} is too large", kDownsample, size, factor));
  }
  return static_cast<std::int64_t>(largest) + 1;
}

}  // namespace neurobench::events
