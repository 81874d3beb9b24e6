// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers for the states metrics export for sharded runs (WorkloadMetric::export_state(),
// docs/distributed.md): tensors and counts as Json values that travel between processes exactly.

#include <cstdint>
#include <string_view>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A tensor as a state value: `{"dtype", "shape", "bytes"}` with its elements' bytes as a Json
/// binary value (CPU, contiguous copy), so that it comes back bit for bit.
[[nodiscard]] Json tensor_state(const at::Tensor& tensor);
/// The tensor tensor_state() made. Throws MetricError naming `what` when `state` is not one.
[[nodiscard]] at::Tensor tensor_from_state(const Json& state, std::string_view what);
/// The integer `key` of a state object. Throws MetricError naming `what` and the key when it
/// is missing or not an integer.
[[nodiscard]] int64_t state_integer(const Json& state, std::string_view key, std::string_view what);
/// The number `key` of a state object. Throws MetricError naming `what` and the key when it
/// is missing or not a number.
[[nodiscard]] double state_number(const Json& state, std::string_view key, std::string_view what);

}  // namespace neurobench
NEUROBENCH_API_END
