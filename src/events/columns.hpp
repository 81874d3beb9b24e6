// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checks every event transform makes on its input. Private to the library (src/).

#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/events/events.hpp>

namespace neurobench::events::detail {

/// Throws InputError when the columns of `events` differ in length; `what` names the caller.
inline void check_columns(const Events& events, std::string_view what) {
  const std::size_t n = events.t.size();
  if (events.x.size() != n || events.y.size() != n || events.p.size() != n) {
    throw InputError(fmt::format("{}: the event columns differ in length (x {}, y {}, p {}, t {})",
                                 what, events.x.size(), events.y.size(), events.p.size(), n));
  }
}

/// Throws UsageError unless `value` is positive and finite; `name` names the parameter.
inline void check_positive(double value, std::string_view what, std::string_view name) {
  if (!(std::isfinite(value) && value > 0)) {
    throw UsageError(fmt::format("{}: {} must be positive and finite, got {}", what, name, value));
  }
}

}  // namespace neurobench::events::detail
