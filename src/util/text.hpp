// SPDX-License-Identifier: Apache-2.0
#pragma once

// Text helpers shared by the library's messages. Private to the library (src/).

#include <cstddef>
#include <cstdint>
#include <filesystem>
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
/// User text quoted in a message (a path, a line of a file, a value, an archive entry's name),
/// made safe to print: valid UTF-8 is kept as written; control characters (C0, DEL, C1, the
/// line separators and the bidirectional overrides) are escaped (`\n`, `\t`, `\0`, `\x1b`,
/// `\u202e`), as is each byte that is not UTF-8 (`\xff`); trailing spaces and newlines go; and
/// text longer than `max_chars` characters is cut and ends in `...`. Costs what it shows,
/// whatever the text's size.
[[nodiscard]] std::string printable(std::string_view text, std::size_t max_chars = 160);
/// The longest path path_text() shows whole, in characters.
inline constexpr std::size_t kMaxPathChars = 400;
/// A path quoted in a message: printable() of its text, up to kMaxPathChars characters.
[[nodiscard]] std::string path_text(const std::filesystem::path& path);
/// The longest message message_text() leaves whole, in characters.
inline constexpr std::size_t kMaxMessageChars = 4000;
/// A whole message made safe to print, the last guard before a terminal or a log: as
/// printable(), but line breaks and tabs kept and a cut saying how many bytes it left out.
[[nodiscard]] std::string message_text(std::string_view message);
/// True when `text` is valid UTF-8 (what a JSON results file can hold): no stray continuation
/// byte, no truncated, overlong or surrogate sequence, nothing past U+10FFFF.
[[nodiscard]] bool is_utf8(std::string_view text);
/// A JSON value for messages: its text, cut to 60 characters with `...`. Costs what the
/// excerpt shows, whatever the value's size and depth: containers deeper than 8 levels are
/// shown as `[...]` and `{...}`, and NaN and infinities as NaN, Infinity and -Infinity.
[[nodiscard]] std::string json_excerpt(const Json& value);

}  // namespace neurobench::detail
