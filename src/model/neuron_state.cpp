// SPDX-License-Identifier: Apache-2.0
#include "model/neuron_state.hpp"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include <neurobench/metrics/builtin.hpp>
#include <neurobench/model/model.hpp>

namespace neurobench::detail {

const std::vector<std::string>& neuron_state_attributes() {
  // snnTorch 0.9: Leaky/Lapicque `mem`; Synaptic `syn`, `mem`; Alpha `syn_exc`, `syn_inh`,
  // `mem`; RLeaky `spk`, `mem`; RSynaptic `spk`, `syn`, `mem` (their `reset_mem()`).
  static const std::vector<std::string> names = {"mem", "syn", "syn_exc", "syn_inh", "spk"};
  return names;
}

namespace {

// An attribute that can hold a tensor: a Tensor, or an Optional[Tensor] that may be None
// before the first call (it is then reset from the batch after).
bool holds_tensor(const torch::jit::Module& object, const std::string& name) {
  const c10::TypePtr type = object.type()->findAttribute(name);
  return type != nullptr && c10::TensorType::get()->isSubtypeOf(*type);
}

}  // namespace

std::vector<Neuron> find_neurons(const torch::jit::Module& root) {
  const auto& types = metrics::spiking_neuron_types();
  std::vector<Neuron> out;
  std::unordered_set<const c10::ivalue::Object*> seen;
  for (const auto& item : root.named_modules()) {
    if (!seen.insert(item.value._ivalue().get()).second) continue;
    const std::string type_name =
        demangled_type_name(item.value.type()->name()->qualifiedName());
    const bool neuron = std::find(types.begin(), types.end(), type_name) != types.end() ||
                        holds_tensor(item.value, "mem");
    if (!neuron) continue;
    Neuron n{item.name, type_name, item.value, {}};
    for (const auto& name : neuron_state_attributes()) {
      if (item.value.hasattr(name)) n.state.push_back(name);
    }
    out.push_back(std::move(n));
  }
  return out;
}

void reset_neuron_state(std::vector<Neuron>& neurons) {
  for (Neuron& n : neurons) {
    for (const std::string& name : n.state) {
      const c10::IValue value = n.object.attr(name);
      if (value.isTensor()) n.object.setattr(name, torch::zeros_like(value.toTensor()));
    }
  }
}

}  // namespace neurobench::detail
