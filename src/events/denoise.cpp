// SPDX-License-Identifier: Apache-2.0
// tonic's Denoise (tonic/functional/denoise.py), event for event.
#include <neurobench/events/denoise.hpp>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "events/columns.hpp"

namespace neurobench::events {

Events denoise(const Events& events, double filter_time) {
  constexpr const char* kWhat = "denoise";
  detail::check_columns(events, kWhat);
  detail::check_positive(filter_time, kWhat, "filter_time");
  Events kept;
  if (events.empty()) return kept;
  std::int64_t width = 0;
  std::int64_t height = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.x[i] < 0 || events.y[i] < 0) {
      throw InputError(fmt::format("{}: event {} has a negative coordinate (x {}, y {})", kWhat, i,
                                   events.x[i], events.y[i]));
    }
    width = std::max<std::int64_t>(width, events.x[i] + std::int64_t{1});
    height = std::max<std::int64_t>(height, events.y[i] + std::int64_t{1});
  }
  // tonic's memory is float64 and starts at filter_time everywhere: a pixel that never fired
  // looks as if it fired at time 0.
  std::vector<double> memory(static_cast<std::size_t>(width * height), filter_time);
  const auto at = [&](std::int64_t x, std::int64_t y) -> double& {
    return memory[static_cast<std::size_t>(x * height + y)];
  };
  kept.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::int64_t x = events.x[i];
    const std::int64_t y = events.y[i];
    const auto t = static_cast<double>(events.t[i]);
    at(x, y) = t + filter_time;
    const bool neighbour = (x > 0 && at(x - 1, y) > t) || (x < width - 1 && at(x + 1, y) > t) ||
                           (y > 0 && at(x, y - 1) > t) || (y < height - 1 && at(x, y + 1) > t);
    if (neighbour) kept.push_back(events.x[i], events.y[i], events.p[i], events.t[i]);
  }
  return kept;
}

}  // namespace neurobench::events
