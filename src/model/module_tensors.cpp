// SPDX-License-Identifier: Apache-2.0
#include "model/module_tensors.hpp"

#include <algorithm>
#include <cstddef>
#include <unordered_set>
#include <utility>

#include <c10/core/StorageImpl.h>
#include <fmt/format.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

#include "util/text.hpp"

namespace neurobench::detail {
namespace {

std::string member(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

std::string dict_key(const c10::IValue& key) {
  if (key.isString()) return printable(key.toStringRef(), 80);
  if (key.isInt()) return std::to_string(key.toInt());
  return "?";
}

std::string strides_string(const at::Tensor& tensor) { return shape_string(tensor.strides()); }

}  // namespace

std::vector<NamedTensor> graph_tensor_constants(const torch::jit::Module& module) {
  std::vector<NamedTensor> out;
  const auto unit = module._ivalue()->compilation_unit();
  if (!unit) return out;
  for (torch::jit::Function* function : unit->get_functions()) {
    auto* graph_function = torch::jit::tryToGraphFunction(*function);
    if (graph_function == nullptr) continue;
    const std::string name = demangled_qualified_name(function->qualname().qualifiedName());
    std::size_t count = 0;
    std::vector<const torch::jit::Block*> blocks{graph_function->graph()->block()};
    while (!blocks.empty()) {
      const torch::jit::Block* block = blocks.back();
      blocks.pop_back();
      for (const torch::jit::Node* node : block->nodes()) {
        for (const torch::jit::Block* inner : node->blocks()) blocks.push_back(inner);
        if (node->kind() != c10::prim::Constant || node->outputs().size() != 1) continue;
        const std::optional<c10::IValue> value = torch::jit::toIValue(node->output());
        if (!value || !value->isTensor()) continue;
        out.push_back({fmt::format("constant {} of {}", count++, name), value->toTensor()});
      }
    }
  }
  return out;
}

std::vector<NamedTensor> reachable_tensors(const torch::jit::Module& module) {
  struct Item {
    c10::IValue value;
    std::string name;
  };
  std::vector<NamedTensor> out;
  std::unordered_set<const void*> seen;
  // Iterative: an archive's nesting depth is not ours to trust with the call stack.
  std::vector<Item> stack{{module._ivalue(), ""}};
  std::vector<Item> children;
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const c10::IValue& value = item.value;
    if (value.isTensor()) {
      out.push_back({item.name, value.toTensor()});
      continue;
    }
    if (!value.isPtrType() || !seen.insert(value.internalToPointer()).second) continue;
    children.clear();
    if (value.isObject()) {
      const auto object = value.toObject();
      const auto type = object->type();
      const std::size_t count = std::min(object->slots().size(), type->numAttributes());
      for (std::size_t i = 0; i < count; ++i) {
        children.push_back({object->getSlot(i), member(item.name, type->getAttributeName(i))});
      }
    } else if (value.isList()) {
      const auto list = value.toListRef();
      for (std::size_t i = 0; i < list.size(); ++i) {
        children.push_back({list[i], fmt::format("{}[{}]", item.name, i)});
      }
    } else if (value.isTuple()) {
      const auto& elements = value.toTupleRef().elements();
      for (std::size_t i = 0; i < elements.size(); ++i) {
        children.push_back({elements[i], fmt::format("{}[{}]", item.name, i)});
      }
    } else if (value.isGenericDict()) {
      for (const auto& entry : value.toGenericDict()) {
        children.push_back(
            {entry.value(), fmt::format("{}[{}]", item.name, dict_key(entry.key()))});
      }
    }
    // Walked in declaration order: the first child is on top of the stack.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(std::move(*it));
  }
  const std::vector<NamedTensor> constants = graph_tensor_constants(module);
  out.insert(out.end(), constants.begin(), constants.end());
  return out;
}

void check_tensor_storage(const std::vector<NamedTensor>& tensors, const RecordLookup& records,
                          const std::string& where) {
  std::unordered_set<const c10::StorageImpl*> storages_checked;
  for (const auto& [name, tensor] : tensors) {
    if (!tensor.defined() || tensor.layout() != c10::kStrided || !tensor.has_storage()) continue;
    const c10::Storage& storage = tensor.storage();
    const auto storage_bytes = static_cast<std::uint64_t>(storage.nbytes());
    const std::string tensor_name = name.empty() ? "the module" : "tensor '" + name + "'";
    if (storage_bytes > 0 && storage.data() != nullptr &&
        storages_checked.insert(storage.unsafeGetStorageImpl()).second) {
      if (const std::optional<RecordRead> record = records(storage.data(), storage_bytes);
          record && record->bytes < storage_bytes) {
        throw InputError(fmt::format(
            "{}: corrupt model file: {} has a storage of {} bytes, but the record it is read "
            "from (at byte {} of the file) holds {} bytes: the record is truncated, or the "
            "archive's pickle states a wrong size",
            where, tensor_name, storage_bytes, record->offset, record->bytes));
      }
    }
    // The last element's byte, from the offset, sizes and strides the pickle gave.
    const auto itemsize = static_cast<std::uint64_t>(tensor.element_size());
    bool empty = false;
    bool negative = tensor.storage_offset() < 0;
    for (int64_t d = 0; d < tensor.dim(); ++d) {
      if (tensor.size(d) == 0) empty = true;
      if (tensor.size(d) < 0 || tensor.stride(d) < 0) negative = true;
    }
    if (negative) {
      throw InputError(fmt::format(
          "{}: corrupt model file: {} has a negative size, stride or offset (shape {}, strides "
          "{}, offset {})",
          where, tensor_name, shape_string(tensor), strides_string(tensor),
          tensor.storage_offset()));
    }
    if (empty) continue;
    std::uint64_t last = static_cast<std::uint64_t>(tensor.storage_offset());
    bool overflow = false;
    for (int64_t d = 0; d < tensor.dim(); ++d) {
      std::uint64_t step = 0;
      overflow |= __builtin_mul_overflow(static_cast<std::uint64_t>(tensor.size(d) - 1),
                                         static_cast<std::uint64_t>(tensor.stride(d)), &step);
      overflow |= __builtin_add_overflow(last, step, &last);
    }
    std::uint64_t needed = 0;
    overflow |= __builtin_add_overflow(last, std::uint64_t{1}, &needed);
    overflow |= __builtin_mul_overflow(needed, itemsize, &needed);
    if (overflow || needed > storage_bytes) {
      throw InputError(fmt::format(
          "{}: corrupt model file: {} (shape {}, strides {}, offset {}, {}) needs {} bytes of "
          "storage, but its storage holds {} bytes",
          where, tensor_name, shape_string(tensor), strides_string(tensor), tensor.storage_offset(),
          c10::toString(tensor.scalar_type()),
          overflow ? std::string("more than 2^64") : std::to_string(needed), storage_bytes));
    }
  }
}

}  // namespace neurobench::detail
