// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <torch/script.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A tensor with its full dotted name (`block1.conv.weight`).
struct NamedTensor {
  std::string name;     ///< Dotted name from the root module.
  torch::Tensor value;  ///< The tensor itself (a handle: copies alias).
};

/// One submodule of a model.
struct ModuleInfo {
  std::string path;            ///< Dotted path from the root; empty for the root itself.
  std::string type_name;       ///< Class name, e.g. `Linear` (TorchScript mangling removed).
  std::string qualified_type;  ///< e.g. `torch.nn.modules.linear.Linear` (no `__torch__.`).
  std::vector<NamedTensor> parameters;  ///< Own parameters (not the children's), dotted names.
  std::vector<NamedTensor> buffers;     ///< Own buffers (not the children's), dotted names.
};

/// Chooses submodules by dotted path or by class name (either matching is enough).
struct ModuleSelector {
  std::vector<std::string> paths;       ///< Exact dotted paths (`block1.relu`).
  std::vector<std::string> type_names;  ///< Class names (`ReLU`), compared without mangling.

  /// Selects the modules at these paths.
  [[nodiscard]] static ModuleSelector by_path(std::vector<std::string> paths) {
    return {std::move(paths), {}};
  }
  /// Selects every module of these classes.
  [[nodiscard]] static ModuleSelector by_type(std::vector<std::string> type_names) {
    return {{}, std::move(type_names)};
  }
  /// True when `info` is selected.
  [[nodiscard]] bool matches(const ModuleInfo& info) const;
  /// True when nothing is selected.
  [[nodiscard]] bool empty() const { return paths.empty() && type_names.empty(); }
};

/// What a module hook sees of one call of a submodule's `forward`.
struct ModuleCall {
  const ModuleInfo& module;             ///< The module called.
  const torch::jit::Object& object;     ///< The live module object (read attributes, e.g. `mem`).
  c10::ArrayRef<c10::IValue> inputs;    ///< The arguments of `forward`, without `self`.
  const c10::IValue* output = nullptr;  ///< What `forward` returned; nullptr in pre-hooks.
};

/// What an operator hook sees of one call of a TorchScript operator (`aten::linear`).
struct OperatorCall {
  const ModuleInfo& module;    ///< The module whose code holds the operator call.
  std::string_view op;         ///< Qualified operator name, e.g. `aten::conv2d`.
  std::string_view site;       ///< Stable name of this call site in the model, e.g. `fc1`,
                               ///< or `aten::relu#2` in a frozen model.
  c10::ArrayRef<c10::IValue> args;      ///< The operator's arguments, in schema order.
  const c10::IValue* output = nullptr;  ///< First result; nullptr for hooks run before the call.
};

/// Receives a module call.
using ModuleHook = std::function<void(const ModuleCall&)>;
/// Receives an operator call.
using OperatorHook = std::function<void(const OperatorCall&)>;

/// Chooses operator call sites: operators by qualified name, inside chosen modules.
struct OperatorSelector {
  std::vector<std::string> ops;  ///< Qualified operator names, e.g. `aten::linear`.
  ModuleSelector within;         ///< Only in the code of these modules; empty: anywhere.
  bool after = false;            ///< Run after the operator (sees its output) instead of before.
  /// With `after` false: run just after the operator instead of just before it, still seeing
  /// its arguments. For an operator that leaves its arguments as they were (`aten::linear`,
  /// the convolutions), the same values, read while the CPU's caches still hold them: the
  /// connection hooks of NeuroBench's metrics use it.
  bool args_after = false;
};

/// Identifies a registered hook, for removal.
struct HookHandle {
  std::uint64_t id = 0;  ///< 0 is never a valid hook.
};

}  // namespace neurobench
NEUROBENCH_API_END
