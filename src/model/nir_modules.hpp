// SPDX-License-Identifier: Apache-2.0
#pragma once

// The submodule of one NIR node: its class (named as the metrics know it: Linear, Conv2d,
// Leaky, Synaptic...), its parameters and buffers, and its TorchScript code, under the time
// convention chosen (docs/nir.md has the equations). Private to the library (src/).

#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/model/nir_options.hpp>

#include "model/nir_plan.hpp"

namespace neurobench::detail {

/// A node's module and what it computes, for the record: the class and the rule (`snnTorch
/// Leaky (zero reset)`, `forward Euler, dt 0.0001 s`...).
struct NirModule {
  torch::jit::Module module;
  std::string rule;
  bool has_state = false;  ///< Has a method reset_state().
};

/// Makes the module of `unit` (role kModule) in `cu`.
[[nodiscard]] NirModule make_nir_module(const NirUnit& unit, const NirOptions& options,
                                        const std::shared_ptr<torch::jit::CompilationUnit>& cu);

/// The module of a neuron node (I, LI, LIF, CubaLI, CubaLIF, IF), in nir_neurons.cpp.
[[nodiscard]] NirModule make_nir_neuron(const NirUnit& unit, const NirOptions& options,
                                        const std::shared_ptr<torch::jit::CompilationUnit>& cu);

/// An empty module of its own class `__torch__.neurobench_nir.NAME` (mangled to be unique in
/// `cu`): every node's module starts as one, and a nested graph's container is one.
[[nodiscard]] torch::jit::Module make_nir_class_module(
    const std::string& name, const std::shared_ptr<torch::jit::CompilationUnit>& cu);

/// `values` as a float32 tensor of `shape` (the modules compute in float32).
[[nodiscard]] torch::Tensor nir_float_tensor(const std::vector<double>& values,
                                             const NirShape& shape);

}  // namespace neurobench::detail
