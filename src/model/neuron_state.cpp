// SPDX-License-Identifier: Apache-2.0
#include "model/neuron_state.hpp"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <neurobench/model/model.hpp>

namespace neurobench::detail {

const std::vector<std::string>& neuron_state_attributes() {
  // snnTorch 0.9: Leaky/Lapicque `mem`; Synaptic `syn`, `mem`; Alpha `syn_exc`, `syn_inh`,
  // `mem`; RLeaky `spk`, `mem`; RSynaptic `spk`, `syn`, `mem` (their `reset_mem()`).
  static const std::vector<std::string> names = {"mem", "syn", "syn_exc", "syn_inh", "spk"};
  return names;
}

const std::vector<std::string>& snntorch_neuron_types() {
  static const std::vector<std::string> types = {"Leaky",  "Synaptic", "Lapicque",
                                                 "Alpha",  "RLeaky",   "RSynaptic"};
  return types;
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
  const auto& types = snntorch_neuron_types();
  std::vector<Neuron> out;
  std::unordered_set<const c10::ivalue::Object*> seen;
  for (const auto& item : root.named_modules()) {
    if (!seen.insert(item.value._ivalue().get()).second) continue;
    const std::string type_name = demangled_type_name(item.value.type()->name()->qualifiedName());
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

StateSnapshot::StateSnapshot(const std::vector<Neuron>& neurons) {
  for (std::size_t i = 0; i < neurons.size(); ++i) {
    for (const std::string& name : neurons[i].state) {
      const c10::IValue value = neurons[i].object.attr(name);
      if (!value.isTensor()) continue;
      const torch::Tensor& t = value.toTensor();
      entries_.push_back({i, &name, t, t.clone()});
    }
  }
}

bool StateSnapshot::changed(const std::vector<Neuron>& neurons) const {
  for (const Entry& e : entries_) {
    const c10::IValue now = neurons[e.neuron].object.attr(*e.name);
    if (!now.isTensor()) return true;
    const torch::Tensor& t = now.toTensor();
    // A stored membrane is a new tensor (snnTorch assigns `self.mem = ...`); one updated in
    // place keeps its identity but not its values. `tensor` is kept alive, so the addresses of
    // two different tensors cannot coincide.
    if (t.unsafeGetTensorImpl() != e.tensor.unsafeGetTensorImpl()) return true;
    if (!t.equal(e.values)) return true;
  }
  return false;
}

namespace {

// Whether a method, or a method it calls on `self`, assigns `self.mem`.
bool stores_mem(const c10::ClassType& type, torch::jit::Function& method,
                std::unordered_set<const torch::jit::Function*>& visited) {
  if (!visited.insert(&method).second) return false;
  auto* fn = torch::jit::tryToGraphFunction(method);
  if (fn == nullptr) return false;
  const std::shared_ptr<torch::jit::Graph> graph = fn->graph();
  const torch::jit::Value* self = graph->inputs().at(0);
  const c10::Symbol name_attr = c10::Symbol::attr("name");
  std::vector<const torch::jit::Block*> blocks = {graph->block()};
  while (!blocks.empty()) {
    const torch::jit::Block* block = blocks.back();
    blocks.pop_back();
    for (const torch::jit::Node* node : block->nodes()) {
      for (const torch::jit::Block* sub : node->blocks()) blocks.push_back(sub);
      if (node->inputs().empty() || node->input(0) != self) continue;
      if (node->kind() == c10::prim::SetAttr && node->s(name_attr) == "mem") return true;
      if (node->kind() == c10::prim::CallMethod) {
        torch::jit::Function* callee = type.findMethod(node->s(name_attr));
        if (callee != nullptr && stores_mem(type, *callee, visited)) return true;
      }
    }
  }
  return false;
}

}  // namespace

std::vector<const Neuron*> neurons_never_storing_mem(const std::vector<Neuron>& neurons) {
  std::vector<const Neuron*> out;
  for (const Neuron& n : neurons) {
    if (std::find(n.state.begin(), n.state.end(), "mem") == n.state.end()) continue;
    const c10::ClassTypePtr type = n.object.type();
    std::unordered_set<const torch::jit::Function*> visited;
    bool has_forward = false;
    bool stores = false;
    for (torch::jit::Function* method : type->methods()) {
      if (method->name().rfind("forward", 0) != 0) continue;
      has_forward = true;
      if (stores_mem(*type, *method, visited)) {
        stores = true;
        break;
      }
    }
    if (has_forward && !stores) out.push_back(&n);
  }
  return out;
}

std::string describe_neurons(const std::vector<const Neuron*>& neurons) {
  std::vector<std::string> parts;
  for (const Neuron* n : neurons) {
    parts.push_back(n->path.empty() ? fmt::format("the root module ({})", n->type_name)
                                    : fmt::format("{} ({})", n->path, n->type_name));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace neurobench::detail
