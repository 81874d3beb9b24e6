// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <torch/script.h>

namespace neurobench::detail {

/// Number of non-zero elements, in one pass over contiguous float/double data (any other
/// layout or dtype goes through torch::count_nonzero).
[[nodiscard]] int64_t count_nonzero(const torch::Tensor& t);

/// Number of positions where `(a - b) != 0` (the reference's count_nonzero(pre - post)); NaN
/// differences count. Shapes must be equal.
[[nodiscard]] int64_t count_changed(const torch::Tensor& a, const torch::Tensor& b);

/// True when every element is -1, 0 or 1 (the reference's test for spiking input).
[[nodiscard]] bool is_spiking(const torch::Tensor& t);

}  // namespace neurobench::detail
