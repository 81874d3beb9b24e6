// SPDX-License-Identifier: Apache-2.0
// The state that spiking neurons of a TorchScript module keep between timesteps: finding the
// neurons, resetting their state before a batch, and the two checks that tell a network that
// keeps no state at all (a `torch.jit.trace` of snnTorch) from one that does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <torch/script.h>

namespace neurobench::detail {

/// The attributes snnTorch's neurons keep their state in, as its `utils.reset` clears them.
[[nodiscard]] const std::vector<std::string>& neuron_state_attributes();

/// snnTorch's spiking neuron classes (Leaky, Synaptic, Lapicque, Alpha, RLeaky, RSynaptic):
/// metrics::spiking_neuron_types() gives the same list to the metrics.
[[nodiscard]] const std::vector<std::string>& snntorch_neuron_types();

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

/// The neurons' state at one moment: each state tensor (kept alive, so that its identity can be
/// compared) and a copy of its values (so that changes made in place show too).
class StateSnapshot {
 public:
  /// Takes the snapshot; only state attributes holding a tensor are kept.
  explicit StateSnapshot(const std::vector<Neuron>& neurons);
  /// True when any kept state attribute now holds another tensor or other values.
  [[nodiscard]] bool changed(const std::vector<Neuron>& neurons) const;
  /// True when no state tensor was kept (nothing to compare).
  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::size_t neuron;
    const std::string* name;
    torch::Tensor tensor;
    torch::Tensor values;
  };
  std::vector<Entry> entries_;
};

/// The neurons among `neurons` with a `mem` attribute whose class never assigns it: no
/// `prim::SetAttr` named "mem" on `self` in its `forward*` methods or in the methods those call
/// on `self`. Neurons without a `forward*` method (never called by a trace) are left out.
[[nodiscard]] std::vector<const Neuron*> neurons_never_storing_mem(
    const std::vector<Neuron>& neurons);

/// "lif1 (Leaky), lif2 (Synaptic)"; the root module is "the root module (Leaky)".
[[nodiscard]] std::string describe_neurons(const std::vector<const Neuron*>& neurons);

}  // namespace neurobench::detail
