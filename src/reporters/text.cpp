// SPDX-License-Identifier: Apache-2.0
#include "reporters/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

namespace neurobench {

namespace detail {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string md_esc(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string exact(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9007199254740992.0) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{}", v);
}

std::string px(double v) { return fmt::format("{:.1f}", v); }

std::string scientific(double value) {
  const std::string s = fmt::format("{:.2e}", value);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;  // inf, nan
  std::string mantissa = s.substr(0, e);
  mantissa.erase(mantissa.find_last_not_of('0') + 1);
  if (mantissa.back() == '.') mantissa.pop_back();
  std::string exponent = s.substr(e + 1);
  const bool negative = !exponent.empty() && exponent[0] == '-';
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

std::string signed_number(double v) {
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + format_number(std::abs(v));
}

std::string json_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return format_number(v.get<double>());
  return v.dump();
}

std::string shorten(const std::string& s, std::size_t max_chars) {
  if (s.size() <= max_chars || max_chars < 2) return s;
  return s.substr(0, max_chars - 1) + "\xE2\x80\xA6";  // U+2026 ellipsis
}

}  // namespace detail
}  // namespace neurobench
