// SPDX-License-Identifier: Apache-2.0
#include "io/npy_literal.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::detail {
namespace {

/// Parses the subset of Python literal syntax NumPy writes (and older writers wrote: `3L`, u'').
class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  Literal parse_document() {
    Literal result = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dictionary");
    return result;
  }

 private:
  static constexpr int kMaxDepth = 16;

  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(fmt::format("{}: malformed .npy header: {} at offset {} in \"{}\"", where_,
                                 what, pos_, printable(text_)));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::strchr(" \t\n\r\f\v", text_[pos_]) != nullptr &&
           text_[pos_] != '\0') {
      ++pos_;
    }
  }

  [[nodiscard]] bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_name_char(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  Literal value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of header");
    const std::size_t start = pos_;
    Literal result;
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      result.kind = Literal::Kind::Dict;
      dict_items(result.items, depth);
    } else if (c == '(' || c == '[') {
      ++pos_;
      bool saw_comma = false;
      sequence_items(c == '(' ? ')' : ']', result.items, saw_comma, depth);
      if (c == '(' && result.items.size() == 1 && !saw_comma) {
        // `(3)` is a parenthesised 3 in Python, not a tuple.
        Literal inner = std::move(result.items.front());
        inner.source = text_.substr(start, pos_ - start);
        return inner;
      }
      result.kind = c == '(' ? Literal::Kind::Tuple : Literal::Kind::List;
    } else if (c == '\'' || c == '"') {
      result.kind = Literal::Kind::String;
      result.text = string_body();
    } else if (is_digit(c) || c == '-' || c == '+') {
      result.kind = Literal::Kind::Integer;
      result.integer = integer_body();
    } else if (is_name_char(c)) {
      std::size_t end = pos_;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      const std::string_view name = text_.substr(pos_, end - pos_);
      const bool prefixed_string = end < text_.size() &&
                                   (text_[end] == '\'' || text_[end] == '"') &&
                                   (name == "u" || name == "U" || name == "b" || name == "B");
      pos_ = end;
      if (prefixed_string) {
        result.kind = Literal::Kind::String;
        result.text = string_body();
      } else if (name == "True" || name == "False") {
        result.kind = Literal::Kind::Boolean;
        result.boolean = name == "True";
      } else if (name == "None") {
        result.kind = Literal::Kind::None;
      } else {
        pos_ = start;
        fail(fmt::format("unexpected name '{}'", printable(name, 40)));
      }
    } else {
      fail(fmt::format("unexpected character '{}'", printable(std::string_view(&c, 1))));
    }
    result.source = text_.substr(start, pos_ - start);
    return result;
  }

  void dict_items(std::vector<Literal>& items, int depth) {
    for (;;) {
      skip_space();
      if (at('}')) {
        ++pos_;
        return;
      }
      items.push_back(value(depth + 1));
      skip_space();
      if (!at(':')) fail("expected ':' after a dictionary key");
      ++pos_;
      items.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        ++pos_;
      } else if (!at('}')) {
        fail("expected ',' or '}' in the dictionary");
      }
    }
  }

  void sequence_items(char close, std::vector<Literal>& items, bool& saw_comma, int depth) {
    for (;;) {
      skip_space();
      if (at(close)) {
        ++pos_;
        return;
      }
      items.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        ++pos_;
        saw_comma = true;
      } else if (!at(close)) {
        fail(fmt::format("expected ',' or '{}'", close));
      }
    }
  }

  std::string string_body() {
    const char quote = text_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated string");
      const char escaped = text_[pos_++];
      switch (escaped) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '\\':
        case '\'':
        case '"':
          out += escaped;
          break;
        default:  // Python keeps unknown escapes verbatim.
          out += '\\';
          out += escaped;
          break;
      }
    }
  }

  std::int64_t integer_body() {
    bool negative = false;
    if (at('-') || at('+')) negative = text_[pos_++] == '-';
    skip_space();
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) fail("expected digits");
    constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
    std::uint64_t magnitude = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (magnitude > (kMaxMagnitude - digit) / 10) fail("integer out of range");
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    // Python 2 wrote long integers as `3L`; NumPy still reads such headers.
    if (at('L') || at('l')) ++pos_;
    if (pos_ < text_.size() && (is_name_char(text_[pos_]) || text_[pos_] == '.')) {
      fail("expected an integer");
    }
    if (!negative && magnitude == kMaxMagnitude) fail("integer out of range");
    if (negative)
      return magnitude == kMaxMagnitude ? std::numeric_limits<std::int64_t>::min()
                                        : -static_cast<std::int64_t>(magnitude);
    return static_cast<std::int64_t>(magnitude);
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

}  // namespace

Literal parse_npy_literal(std::string_view text, const std::string& where) {
  return LiteralParser(text, where).parse_document();
}

}  // namespace neurobench::detail
