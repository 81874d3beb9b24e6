// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A number as reports show it: integers as is below 1e6, 3 significant digits in scientific
/// notation from 1e6 or below 1e-3 (`1.9e6`), else up to 6 significant digits; NaN and the
/// infinities as results files write them, `NaN`, `Infinity` and `-Infinity`.
[[nodiscard]] std::string format_number(double value);

}  // namespace neurobench
NEUROBENCH_API_END
