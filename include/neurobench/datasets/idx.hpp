// SPDX-License-Identifier: Apache-2.0
#pragma once

// The IDX format lives in <neurobench/io/idx.hpp> (neurobench::load_idx) and the Fashion-MNIST
// data set in <neurobench/datasets/fashion_mnist.hpp>. This header, their former home, is kept so
// that code including it still compiles, with load_idx still reachable as
// neurobench::datasets::load_idx; new code includes those two.

#include <neurobench/datasets/fashion_mnist.hpp>
#include <neurobench/export.hpp>
#include <neurobench/io/idx.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

using neurobench::load_idx;

}  // namespace neurobench::datasets
NEUROBENCH_API_END
