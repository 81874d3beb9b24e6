// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>

/// Batches of a data set that holds its samples as rows of whole tensors (TensorDataset and the
/// data set kinds read into memory): the rows `indices`, or `[begin, end)`, of `data`, `targets`
/// and each extra. An index or a range out of `[0, rows)` is a UsageError that starts with
/// `name()` (called only then) and calls a sample `item` ("sample", "window", "trial").
namespace neurobench::detail {

[[nodiscard]] Batch select_rows(const std::function<std::string()>& name, const char* item,
                                const at::Tensor& data, const at::Tensor& targets,
                                const std::map<std::string, at::Tensor>& extras,
                                const std::vector<int64_t>& indices);

[[nodiscard]] Batch slice_rows(const std::function<std::string()>& name, const at::Tensor& data,
                               const at::Tensor& targets,
                               const std::map<std::string, at::Tensor>& extras, int64_t begin,
                               int64_t end);

}  // namespace neurobench::detail
