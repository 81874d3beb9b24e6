// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/format.hpp>

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "reporters/text.hpp"

namespace neurobench {

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";  // as results files write them
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  const double a = std::abs(value);
  if (value == std::floor(value) && a < 1e6) return fmt::format("{}", static_cast<int64_t>(value));
  if (a >= 1e6 || a < 1e-3) return detail::scientific(value);
  return fmt::format("{:.6g}", value);
}

}  // namespace neurobench
