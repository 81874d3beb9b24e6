// SPDX-License-Identifier: Apache-2.0
#pragma once

// NaN and Inf in what a benchmark is given: the data set's arrays and the model's parameters and
// buffers. They run to the end without an error and spoil every metric, so Benchmark::run looks
// for them before it starts. Private to the library (src/).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/json.hpp>

namespace neurobench {
class Dataset;
class NeuroBenchModel;
}  // namespace neurobench

namespace neurobench::detail {

/// The non-finite values of one tensor.
struct NonFiniteValues {
  std::string source;                     ///< The data set's file or the model's (describe()).
  std::string kind;                       ///< "array", "parameter" or "buffer".
  std::string tensor;                     ///< Its name: `data`, `fc1.weight`.
  std::int64_t count = 0;                 ///< Values that are NaN, +Inf or -Inf.
  std::int64_t nan = 0;                   ///< Of those, NaN.
  std::int64_t numel = 0;                 ///< Values in the tensor.
  std::vector<std::int64_t> first_index;  ///< Multi-index of the first, in row-major order.
  std::string first_value;                ///< `nan`, `inf` or `-inf`.
  /// An array of which this process holds rows [first, end) alone (a sharded run's rank):
  /// `count`, `nan` and `numel` are those rows', `first_index` is in the whole array.
  std::optional<std::pair<std::int64_t, std::int64_t>> rows;

  /// A warning: `x.npz: array 'data' holds 3 non-finite values (2 NaN, 1 infinite) of 120; the
  /// first is data[3, 0, 17] = nan`.
  [[nodiscard]] std::string message() const;
  /// The record in `_run.non_finite_inputs`: tensor, kind, source, count, nan, inf, first_index.
  [[nodiscard]] Json to_json() const;
};

/// The non-finite values of `tensor` (floating-point or complex; others have none), with
/// `count`, `nan`, `numel`, `first_index` and `first_value` filled in; nothing when every value
/// is finite. One pass over the data when they are all finite (their sum is finite); a closer
/// look only at a tensor that holds some.
[[nodiscard]] std::optional<NonFiniteValues> find_non_finite(const at::Tensor& tensor);

/// The non-finite values in the dataset's arrays (Dataset::arrays(); none when `dataset` is
/// null) and the model's parameters and buffers, in that order.
[[nodiscard]] std::vector<NonFiniteValues> find_non_finite_inputs(const NeuroBenchModel& model,
                                                                  const Dataset* dataset);

}  // namespace neurobench::detail
