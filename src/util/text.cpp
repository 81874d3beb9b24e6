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

}  // namespace neurobench::detail
