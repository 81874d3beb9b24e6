// SPDX-License-Identifier: Apache-2.0
// The graph instrumentation pass behind TorchScriptModel's hooks: a clone of the module with
// observer calls (observer.hpp) inserted where the registered hooks look, and the dispatch of
// each observer call to the hooks that selected its module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <torch/script.h>

#include <neurobench/model/hooks.hpp>

#include "model/observer.hpp"

namespace neurobench::detail {

/// A hook registered with a TorchScriptModel.
struct RegisteredHook {
  std::uint64_t id = 0;
  enum class Kind { Pre, Post, Operator } kind = Kind::Pre;
  ModuleSelector modules;  ///< Pre and Post hooks: the modules hooked.
  OperatorSelector ops;    ///< Operator hooks: the operators hooked.
  ModuleHook module_hook;
  OperatorHook operator_hook;
};

/// What decides how a clone is instrumented: each hook's kind and selectors, in order. Two
/// sets of hooks with the same key can share one instrumented clone.
[[nodiscard]] std::string plan_key(const std::vector<RegisteredHook>& hooks);

/// Builds an instrumented clone of a module for a set of hooks, and dispatches observer calls.
class Instrumentation {
 public:
  /// Clones `original` and instruments the clone for `hooks`. `infos` describe the original's
  /// modules (TorchScriptModel::modules()); `aliases` maps the path of a module that is another
  /// path's module in the network it was exported from (one module object used at several
  /// places) to that first path, whose info it then shares; `inlined` names operator sites
  /// `aten::relu#2` (a frozen model); `plan` is plan_key(hooks).
  Instrumentation(const torch::jit::Module& original, const std::vector<ModuleInfo>& infos,
                  const std::map<std::string, std::string>& aliases,
                  const std::vector<RegisteredHook>& hooks, bool inlined, std::string plan);
  Instrumentation(const Instrumentation&) = delete;
  Instrumentation& operator=(const Instrumentation&) = delete;

  /// The instrumented clone.
  torch::jit::Module& module() { return clone_; }

  /// The plan this clone was instrumented for (see plan_key).
  const std::string& plan() const { return plan_; }
  /// New callbacks for the same plan: the sites and selections stay valid.
  void set_hooks(const std::vector<RegisteredHook>& hooks) { hooks_ = hooks; }

  /// Keeps the first exception a hook threw, so that forward() can rethrow it unchanged: the
  /// TorchScript interpreter turns whatever a kernel throws into a plain runtime_error.
  void keep_exception(std::exception_ptr e) {
    if (!pending_) pending_ = std::move(e);
  }
  /// The kept exception, if any, which is then forgotten.
  std::exception_ptr take_exception() { return std::exchange(pending_, nullptr); }

  /// Runs the hooks that apply to an observer call at `site` on module object `self`.
  void fire(const Site& site, const c10::IValue& self, const c10::IValue& payload);

 private:
  // What the hooks need in the methods of one class type.
  struct Needs {
    bool entry = false, exit = false;
    std::unordered_set<std::string> ops_before, ops_after, ops_args_after;
  };
  // Numbers operator call sites across the whole model.
  struct SiteCounter {
    std::size_t index = 0;
    std::map<std::string, std::size_t> per_op;
  };

  Site* new_site(SiteKind kind, std::string op = {});
  void instrument(const std::vector<torch::jit::Module>& objects);
  std::map<c10::ClassType*, Needs> needs_by_type(
      const std::vector<torch::jit::Module>& objects) const;
  void observe_operators(torch::jit::Graph& g, const Needs& n, SiteCounter& counter);
  void observe_entry_and_exit(torch::jit::Graph& g, const Needs& n);

  torch::jit::Module clone_;
  std::vector<ModuleInfo> infos_;
  std::vector<RegisteredHook> hooks_;
  std::string plan_;
  bool inlined_;
  std::vector<std::vector<bool>> selection_;  // per hook, per module: does it apply?
  std::unordered_map<const c10::ivalue::Object*, std::size_t> object_index_;
  std::deque<Site> sites_;  // stable addresses
  std::exception_ptr pending_;
};

}  // namespace neurobench::detail
