// SPDX-License-Identifier: Apache-2.0
#pragma once

// NaN and infinities in results files (docs/file-formats.md, "Numbers that are not finite"):
// JSON has no such numbers, and nlohmann writes them as null, which is a failed metric's
// value. They are written as the strings "NaN", "Infinity" and "-Infinity" instead. Private
// to the library (src/).

#include <optional>
#include <string>
#include <vector>

#include <neurobench/json.hpp>

namespace neurobench::detail {

/// The string a non-finite number is written as: "NaN", "Infinity" or "-Infinity" (a finite
/// number gives "").
[[nodiscard]] const char* non_finite_token(double value);

/// The number a JSON value stands for when it is one of the strings "NaN", "Infinity" and
/// "-Infinity" (exactly so spelled); nothing otherwise.
[[nodiscard]] std::optional<double> non_finite_from_token(const Json& value);

/// Replaces every NaN or infinite number in `value`, at any depth, by its string. Iterative:
/// any depth is safe.
void encode_non_finite(Json& value);

/// A NaN or infinite number among metric values, and where it is.
struct NonFiniteValue {
  std::string key;  ///< Flattened: `Metric`, `Metric.sub` in objects, `Metric[2]` in arrays.
  double value;     ///< NaN, +infinity or -infinity.
};

/// The NaN or infinite numbers in the value of metric `key`, in order (objects flattened with
/// dots as results files flatten them, arrays with `[i]`). Iterative: any depth is safe.
[[nodiscard]] std::vector<NonFiniteValue> non_finite_values(const Json& value,
                                                           const std::string& key);

/// The keys of non_finite_values() of every metric of an object of metric values, in order.
[[nodiscard]] std::vector<std::string> non_finite_keys(const Json& values);

}  // namespace neurobench::detail
