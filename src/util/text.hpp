// SPDX-License-Identifier: Apache-2.0
#pragma once

// Text helpers shared by the library's messages. Private to the library (src/).

#include <cstdint>
#include <string>
#include <vector>

#include <c10/util/ArrayRef.h>

namespace at {
class Tensor;
}  // namespace at

namespace neurobench::detail {

/// A shape as the library's messages show it: `[2, 3]` (`[]` for a 0-d tensor).
[[nodiscard]] std::string shape_string(c10::IntArrayRef sizes);
/// The shape of `t`: `[2, 3]`.
[[nodiscard]] std::string shape_string(const at::Tensor& t);
/// A shape as NumPy prints it, for messages about files written by NumPy: `(2, 3)`, `(5,)`.
[[nodiscard]] std::string numpy_shape_string(c10::IntArrayRef sizes);

}  // namespace neurobench::detail
