// SPDX-License-Identifier: Apache-2.0
#pragma once

// Moving a loaded TorchScript module to a device. torch::jit::Module::to moves parameters and
// buffers only; a TorchScript module also keeps plain tensor attributes (an snnTorch neuron's
// `mem`, exported as one), which must move too. Private to the library (src/).

#include <torch/script.h>

namespace neurobench::detail {

/// Moves every tensor attribute of every module reachable from `module` to `device`:
/// parameters, buffers, other tensor attributes and the tensors of tensor-list attributes. A
/// tensor held in two places is moved once and stays shared. Graph constants do not move
/// (graph_tensor_constants() in module_tensors.hpp finds them).
void move_module_tensors(const torch::jit::Module& module, const c10::Device& device);

}  // namespace neurobench::detail
