// SPDX-License-Identifier: Apache-2.0
#include "data/rows.hpp"

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

Batch select_rows(const std::function<std::string()>& name, const char* item,
                  const at::Tensor& data, const at::Tensor& targets,
                  const std::map<std::string, at::Tensor>& extras,
                  const std::vector<int64_t>& indices) {
  const int64_t rows = data.size(0);
  for (const int64_t i : indices) {
    if (i < 0 || i >= rows) {
      throw UsageError(fmt::format("{}: {} index {} out of range [0, {})", name(), item, i, rows));
    }
  }
  const auto index = torch::tensor(indices, torch::kLong);
  Batch b;
  b.data = data.index_select(0, index);
  b.targets = targets.index_select(0, index);
  for (const auto& [key, value] : extras) b.extras.emplace(key, value.index_select(0, index));
  return b;
}

Batch slice_rows(const std::function<std::string()>& name, const at::Tensor& data,
                 const at::Tensor& targets, const std::map<std::string, at::Tensor>& extras,
                 int64_t begin, int64_t end) {
  const int64_t rows = data.size(0);
  if (begin < 0 || end > rows || begin > end) {
    throw UsageError(
        fmt::format("{}: slice [{}, {}) out of range [0, {})", name(), begin, end, rows));
  }
  Batch b;
  b.data = data.slice(0, begin, end);
  b.targets = targets.slice(0, begin, end);
  for (const auto& [key, value] : extras) b.extras.emplace(key, value.slice(0, begin, end));
  return b;
}

}  // namespace neurobench::detail
