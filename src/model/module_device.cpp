// SPDX-License-Identifier: Apache-2.0
#include "model/module_device.hpp"

#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace neurobench::detail {

void move_module_tensors(const torch::jit::Module& module, const c10::Device& device) {
  // The lazy device's views of tensors made outside inference mode fail inside it, where the
  // model runs: its tensors are made in inference mode.
  std::optional<c10::InferenceMode> inference;
  if (device.type() == c10::DeviceType::Lazy) inference.emplace();
  std::unordered_map<const c10::TensorImpl*, at::Tensor> moved;
  const auto move = [&](const at::Tensor& t) -> at::Tensor {
    if (!t.defined() || t.device() == device) return t;
    auto [it, fresh] = moved.try_emplace(t.unsafeGetTensorImpl());
    if (fresh) it->second = t.to(device);
    return it->second;
  };
  // A value with every tensor in it moved: lists are changed in place (they are handles that
  // other values may share), tuples made anew. Nesting is what TorchScript attributes hold (an
  // RNN's `_flat_weights: List[Optional[Tensor]]` beside its `weight_ih_l0`), not deep.
  std::function<c10::IValue(const c10::IValue&)> moved_value = [&](const c10::IValue& v) {
    if (v.isTensor()) return c10::IValue(move(v.toTensor()));
    if (v.isTensorList()) {
      c10::List<at::Tensor> list = v.toTensorList();
      for (std::size_t k = 0; k < list.size(); ++k) list.set(k, move(list.get(k)));
    } else if (v.isList()) {
      c10::List<c10::IValue> list = v.toList();
      for (std::size_t k = 0; k < list.size(); ++k) list.set(k, moved_value(list.get(k)));
    } else if (v.isTuple()) {
      std::vector<c10::IValue> elements;
      for (const c10::IValue& e : v.toTupleRef().elements()) elements.push_back(moved_value(e));
      return c10::IValue(c10::ivalue::Tuple::create(std::move(elements)));
    } else if (v.isGenericDict()) {
      c10::Dict<c10::IValue, c10::IValue> dict = v.toGenericDict();
      for (auto& entry : dict) entry.setValue(moved_value(entry.value()));
    }
    return v;
  };
  std::unordered_set<const c10::ivalue::Object*> seen;
  for (const auto& item : module.named_modules()) {
    const c10::intrusive_ptr<c10::ivalue::Object>& object = item.value._ivalue();
    if (!seen.insert(object.get()).second) continue;
    for (std::size_t i = 0; i < object->slots().size(); ++i) {
      object->setSlot(i, moved_value(object->getSlot(i)));
    }
  }
}

}  // namespace neurobench::detail
