// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON text from a user's file (a config, a results file) made into a Json value, or refused
// with an InputError that names the file. Private to the library (src/).

#include <cstddef>
#include <string>
#include <string_view>

#include <neurobench/json.hpp>

namespace neurobench::detail {

/// The deepest nesting of arrays and objects read from a user's JSON (docs/file-formats.md):
/// every function that walks a parsed value recursively stays far from the end of the stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Where a byte of a text is: 1-based line and column (in bytes), and the 0-based offset.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
  std::size_t offset = 0;
};

/// The line and column of byte `offset` of `text` (an offset past the end gives the end).
[[nodiscard]] TextPosition position_of(std::string_view text, std::size_t offset);

/// The position of the first array or object opened deeper than `max_depth` in `text`, if
/// any: one pass over the text that skips strings (with their escapes) and, when
/// `comments` is set, `//` and `/* */` comments. Malformed text is left for the parser.
[[nodiscard]] bool find_too_deep(std::string_view text, std::size_t max_depth, bool comments,
                                 TextPosition& where);

/// Parses the JSON text of the user's file `source` (named in every message). Before the
/// parser runs, nesting deeper than kMaxJsonDepth is refused with its line and column; then
/// a syntax error or a number beyond the range of a double (`1e400`) is an InputError naming
/// `source`, the place and the fault; so is a key given twice in one object (named with the
/// object's path). Objects keep their keys in the file's order, read in time linear in the
/// size of the text. `comments` allows `//` and `/* */` comments
/// (configs).
[[nodiscard]] Json parse_user_json(std::string_view text, const std::string& source,
                                   bool comments = false);

}  // namespace neurobench::detail
