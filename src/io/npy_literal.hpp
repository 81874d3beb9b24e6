// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Python literal of a .npy header (a dict of strings, tuples, lists, integers, booleans),
// parsed as NumPy's reader would. Private to the library (src/io).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neurobench::detail {

/// A parsed Python literal; only the kinds a .npy header can contain.
struct Literal {
  enum class Kind { Dict, Tuple, List, String, Integer, Boolean, None };
  Kind kind = Kind::None;
  std::string text;            ///< String: the decoded characters.
  std::int64_t integer = 0;    ///< Integer.
  bool boolean = false;        ///< Boolean.
  std::vector<Literal> items;  ///< Tuple, List; Dict as key, value, key, value, ...
  std::string_view source;     ///< The literal as written, for messages.
};

/// Parses `text`, the dict literal of a .npy header, in the subset of Python literal syntax
/// NumPy writes (and older writers wrote: `3L`, u''). Throws InputError naming `where`, the
/// offset and the text when it is malformed or nested too deep.
[[nodiscard]] Literal parse_npy_literal(std::string_view text, const std::string& where);

}  // namespace neurobench::detail
