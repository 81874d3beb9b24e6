// SPDX-License-Identifier: Apache-2.0
#pragma once

// Text helpers shared by the library's messages. Private to the library (src/).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <c10/util/ArrayRef.h>

#include <neurobench/json.hpp>

namespace at {
class Tensor;
}  // namespace at

namespace neurobench::detail {

/// Whether `text` ends with `suffix`.
[[nodiscard]] bool ends_with(std::string_view text, std::string_view suffix);

/// A shape as the library's messages show it: `[2, 3]` (`[]` for a 0-d tensor).
[[nodiscard]] std::string shape_string(c10::IntArrayRef sizes);
/// The shape of `t`: `[2, 3]`.
[[nodiscard]] std::string shape_string(const at::Tensor& t);
/// A shape as NumPy prints it, for messages about files written by NumPy: `(2, 3)`, `(5,)`.
[[nodiscard]] std::string numpy_shape_string(c10::IntArrayRef sizes);
/// Untrusted bytes (a file's header text, an archive entry's name) made fit for a message: bytes
/// outside printable ASCII become `?`, trailing spaces and newlines go, and text longer than
/// `max_chars` is cut and ends in `...`.
[[nodiscard]] std::string printable(std::string_view text, std::size_t max_chars = 160);
/// True when `text` is valid UTF-8 (what a JSON results file can hold): no stray continuation
/// byte, no truncated, overlong or surrogate sequence, nothing past U+10FFFF.
[[nodiscard]] bool is_utf8(std::string_view text);
/// A JSON value for messages: its text, cut to 60 characters with `...`. Costs what the
/// excerpt shows, whatever the value's size and depth: containers deeper than 8 levels are
/// shown as `[...]` and `{...}`, and NaN and infinities as NaN, Infinity and -Infinity.
[[nodiscard]] std::string json_excerpt(const Json& value);

}  // namespace neurobench::detail
