// SPDX-License-Identifier: Apache-2.0
// The state that spiking neurons of a TorchScript module keep between timesteps: finding the
// neurons and resetting their state before a batch.
#pragma once

#include <string>
#include <vector>

#include <torch/script.h>

namespace neurobench::detail {

/// The attributes snnTorch's neurons keep their state in, as its `utils.reset` clears them.
[[nodiscard]] const std::vector<std::string>& neuron_state_attributes();

/// A spiking neuron module of a TorchScript model.
struct Neuron {
  std::string path;                ///< Dotted module path ("" for the root).
  std::string type_name;           ///< Demangled class name.
  torch::jit::Module object;       ///< The module (a handle: aliases the model's).
  std::vector<std::string> state;  ///< Which of neuron_state_attributes() its class has.
};

/// Every spiking neuron of `root` once, in `named_modules()` order: modules whose class is one
/// of snnTorch's neuron classes, or that have an attribute `mem` of type Tensor (or
/// Optional[Tensor]).
[[nodiscard]] std::vector<Neuron> find_neurons(const torch::jit::Module& root);

/// Sets every state attribute of `neurons` that holds a tensor to zeros of its shape.
void reset_neuron_state(std::vector<Neuron>& neurons);

}  // namespace neurobench::detail
