// SPDX-License-Identifier: Apache-2.0
#include "util/text.hpp"

#include <ATen/core/Tensor.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace neurobench::detail {

std::string shape_string(c10::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

std::string shape_string(const at::Tensor& t) { return shape_string(t.sizes()); }

std::string numpy_shape_string(c10::IntArrayRef sizes) {
  if (sizes.size() == 1) return fmt::format("({},)", sizes[0]);
  return fmt::format("({})", fmt::join(sizes, ", "));
}

std::string printable(std::string_view text, std::size_t max_chars) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  std::string out;
  for (const char c : text.substr(0, max_chars)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (text.size() > max_chars) out += "...";
  return out;
}

std::string json_excerpt(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

}  // namespace neurobench::detail
