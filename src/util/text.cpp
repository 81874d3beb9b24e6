// SPDX-License-Identifier: Apache-2.0
#include "util/text.hpp"

#include <cmath>
#include <cstdint>

#include <ATen/core/Tensor.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace neurobench::detail {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string shape_string(c10::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

std::string shape_string(const at::Tensor& t) { return shape_string(t.sizes()); }

std::string numpy_shape_string(c10::IntArrayRef sizes) {
  if (sizes.size() == 1) return fmt::format("({},)", sizes[0]);
  return fmt::format("({})", fmt::join(sizes, ", "));
}

namespace {

// The length of the valid UTF-8 sequence at `text[i]` (1 to 4; `code` its code point), or 0
// when there is none: a continuation byte first, an overlong, surrogate or truncated sequence,
// anything past U+10FFFF.
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& code) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t extra = 0;
  if (c < 0x80) {
    code = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    extra = 1;
    code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    extra = 2;
    code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    extra = 3;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (extra >= text.size() - i) return 0;
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    code = (code << 6) | (d & 0x3F);
  }
  if ((extra == 2 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) ||
      (extra == 3 && (code < 0x10000 || code > 0x10FFFF))) {
    return 0;
  }
  return extra + 1;
}

// Code points a terminal acts on rather than shows: C0 and C1 controls, DEL, the line and
// paragraph separators, and the bidirectional overrides and isolates that reorder the text
// around them.
bool is_control(std::uint32_t code) {
  return code < 0x20 || (code >= 0x7F && code <= 0x9F) || code == 0x2028 || code == 0x2029 ||
         (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

// printable(), and message_text() when `lines` keeps line breaks and tabs.
std::string escaped(std::string_view text, std::size_t max_chars, bool lines) {
  std::string out;
  std::size_t chars = 0;
  std::size_t i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    std::uint32_t code = 0;
    const std::size_t n = utf8_sequence(text, i, code);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (!is_control(code) || (lines && (code == '\n' || code == '\t'))) {
      out.append(text.substr(i, n));
    } else if (code == '\n') {
      out += "\\n";
    } else if (code == '\r') {
      out += "\\r";
    } else if (code == '\t') {
      out += "\\t";
    } else if (code == 0) {
      out += "\\0";
    } else if (code < 0x80) {
      out += fmt::format("\\x{:02x}", code);
    } else {
      out += fmt::format("\\u{:04x}", code);
    }
    i += n;
  }
  if (i < text.size()) {
    out += lines ? fmt::format("... ({} more bytes)", text.size() - i) : std::string("...");
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_chars) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  return escaped(text, max_chars, false);
}

std::string path_text(const std::filesystem::path& path) {
  return printable(path.native(), kMaxPathChars);
}

std::string message_text(std::string_view message) {
  return escaped(message, kMaxMessageChars, true);
}

namespace {

constexpr std::size_t kExcerptChars = 60;
constexpr std::size_t kExcerptDepth = 8;

// A string as JSON text, cut first so that a long string costs no more than its excerpt.
std::string quoted(const std::string& s) {
  return Json(s.size() > kExcerptChars ? s.substr(0, kExcerptChars) : s)
      .dump(-1, ' ', false, Json::error_handler_t::replace);  // a cut may split a UTF-8 sequence
}

// Appends `value` as JSON text until `out` holds more than kExcerptChars: never deeper than
// kExcerptDepth (deeper containers are `[...]` and `{...}`), never more elements than fit.
void append_excerpt(const Json& value, std::string& out, std::size_t depth) {
  if (value.is_array() || value.is_object()) {
    const bool array = value.is_array();
    if (depth >= kExcerptDepth && !value.empty()) {
      out += array ? "[...]" : "{...}";
      return;
    }
    out += array ? '[' : '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end() && out.size() <= kExcerptChars; ++it) {
      if (!first) out += ',';
      first = false;
      if (!array) out += quoted(it.key()) + ':';
      append_excerpt(it.value(), out, depth + 1);
    }
    out += array ? ']' : '}';
  } else if (value.is_string()) {
    out += quoted(value.get_ref<const std::string&>());
  } else if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    const double d = value.get<double>();
    out += std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
  } else {
    out += value.dump();
  }
}

}  // namespace

std::string json_excerpt(const Json& value) {
  std::string text;
  append_excerpt(value, text, 0);
  if (text.size() > kExcerptChars) text = text.substr(0, kExcerptChars - 3) + "...";
  return text;
}

bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code = 0;
    const std::size_t n = utf8_sequence(text, i, code);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace neurobench::detail
