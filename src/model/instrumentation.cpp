// SPDX-License-Identifier: Apache-2.0
#include "model/instrumentation.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

namespace neurobench::detail {

std::string plan_key(const std::vector<RegisteredHook>& hooks) {
  std::string key;
  auto list = [&](const std::vector<std::string>& v) {
    for (const auto& item : v) key += item + ",";
    key += ";";
  };
  for (const auto& h : hooks) {
    key += std::to_string(static_cast<int>(h.kind)) +
           (h.ops.after ? "a" : (h.ops.args_after ? "c" : "b")) + "|";
    list(h.modules.paths);
    list(h.modules.type_names);
    list(h.ops.ops);
    list(h.ops.within.paths);
    list(h.ops.within.type_names);
    key += "\n";
  }
  return key;
}

namespace {

// Where a hook's observer stands: `after` wins over `args_after`.
SiteKind site_kind(const OperatorSelector& ops) {
  if (ops.after) return SiteKind::OperatorAfter;
  return ops.args_after ? SiteKind::OperatorArgsAfter : SiteKind::OperatorBefore;
}

void collect_nodes(torch::jit::Block* block, const std::unordered_set<std::string>& ops,
                   std::vector<torch::jit::Node*>& out) {
  for (torch::jit::Node* node : block->nodes()) {
    if (ops.count(node->kind().toQualString()) != 0) out.push_back(node);
    for (torch::jit::Block* sub : node->blocks()) collect_nodes(sub, ops, out);
  }
}

// Operators in TorchScript functions that a module's code calls belong to that module
// (scripted nn.ReLU calls torch.nn.functional.relu, which calls aten::relu): inline those
// calls into the clone's graph. Method calls stay, so submodules keep their boundaries.
void inline_function_calls(torch::jit::Graph& g) {
  for (;;) {
    std::vector<torch::jit::Node*> calls;
    collect_nodes(g.block(), {"prim::CallFunction"}, calls);
    bool inlined = false;
    for (torch::jit::Node* call : calls) {
      const auto type = call->input(0)->type()->cast<c10::FunctionType>();
      torch::jit::GraphFunction* callee =
          type ? torch::jit::tryToGraphFunction(*type->function()) : nullptr;
      if (callee == nullptr) continue;
      call->removeInput(0);  // the function itself; the rest are the callee's inputs
      torch::jit::inlineCallTo(call, callee, callee->graph().get());
      inlined = true;
    }
    if (!inlined) return;  // the callee may call further functions: until none are left
  }
}

}  // namespace

Instrumentation::Instrumentation(const torch::jit::Module& original,
                                 const std::vector<ModuleInfo>& infos,
                                 const std::map<std::string, std::string>& aliases,
                                 const std::vector<RegisteredHook>& hooks, bool inlined,
                                 std::string plan)
    : infos_(infos), hooks_(hooks), plan_(std::move(plan)), inlined_(inlined) {
  clone_ = original.clone(/*inplace=*/true);
  // Map each module object of the clone to the ModuleInfo of the same path. The same object
  // reached by two paths keeps the first (as eager `named_modules()` does), and so does an
  // alias: TorchScript gives each path an object of its own even where the network it was
  // exported from used one module at several places.
  std::unordered_map<std::string, std::size_t> by_path;
  for (std::size_t i = 0; i < infos_.size(); ++i) by_path.emplace(infos_[i].path, i);
  std::vector<torch::jit::Module> objects;
  for (const auto& item : clone_.named_modules()) {
    const auto alias = aliases.find(item.name);
    auto it = by_path.find(alias == aliases.end() ? item.name : alias->second);
    if (it == by_path.end()) continue;
    if (object_index_.emplace(item.value._ivalue().get(), it->second).second) {
      objects.push_back(item.value);
    }
  }
  // Per hook, which modules it applies to.
  for (const auto& hook : hooks_) {
    std::vector<bool> selected(infos_.size(), false);
    for (std::size_t i = 0; i < infos_.size(); ++i) {
      if (hook.kind == RegisteredHook::Kind::Operator) {
        selected[i] = hook.ops.within.empty() || hook.ops.within.matches(infos_[i]);
      } else {
        selected[i] = hook.modules.matches(infos_[i]);
      }
    }
    selection_.push_back(std::move(selected));
  }
  instrument(objects);
}

void Instrumentation::fire(const Site& site, const c10::IValue& self, const c10::IValue& payload) {
  if (!self.isObject()) return;
  const auto found = object_index_.find(self.toObject().get());
  if (found == object_index_.end()) return;
  const std::size_t index = found->second;
  const ModuleInfo& info = infos_[index];
  const auto& elements =
      payload.isTuple() ? payload.toTupleRef().elements() : c10::ArrayRef<c10::IValue>(&payload, 1);
  for (std::size_t h = 0; h < hooks_.size(); ++h) {
    const auto& hook = hooks_[h];
    if (!selection_[h][index]) continue;
    switch (site.kind) {
      case SiteKind::ModuleEntry:
        if (hook.kind == RegisteredHook::Kind::Pre) {
          torch::jit::Object object(self.toObject());
          hook.module_hook(ModuleCall{info, object, elements, nullptr});
        }
        break;
      case SiteKind::ModuleExit:
        if (hook.kind == RegisteredHook::Kind::Post) {
          // payload: (inputs..., output)
          torch::jit::Object object(self.toObject());
          hook.module_hook(
              ModuleCall{info, object, elements.slice(0, elements.size() - 1), &elements.back()});
        }
        break;
      case SiteKind::OperatorBefore:
      case SiteKind::OperatorAfter:
      case SiteKind::OperatorArgsAfter:
        if (hook.kind == RegisteredHook::Kind::Operator && site_kind(hook.ops) == site.kind &&
            std::find(hook.ops.ops.begin(), hook.ops.ops.end(), site.op) != hook.ops.ops.end()) {
          const std::string_view site_name =
              site.inline_name.empty() ? std::string_view(info.path) : site.inline_name;
          if (site.kind == SiteKind::OperatorAfter) {
            hook.operator_hook(OperatorCall{info, site.op, site_name, {}, &elements.front()});
          } else {
            hook.operator_hook(OperatorCall{info, site.op, site_name, elements, nullptr});
          }
        }
        break;
    }
  }
}

Site* Instrumentation::new_site(SiteKind kind, std::string op) {
  sites_.emplace_back();
  Site& s = sites_.back();
  s.owner = this;
  s.kind = kind;
  s.op = std::move(op);
  return &s;
}

// What each class type needs: entry/exit observers, operators to watch (before/after).
std::map<c10::ClassType*, Instrumentation::Needs> Instrumentation::needs_by_type(
    const std::vector<torch::jit::Module>& objects) const {
  std::map<c10::ClassType*, Needs> needs;
  for (const auto& object : objects) {
    const std::size_t index = object_index_.at(object._ivalue().get());
    c10::ClassType* type = object.type().get();
    for (std::size_t h = 0; h < hooks_.size(); ++h) {
      if (!selection_[h][index]) continue;
      const auto& hook = hooks_[h];
      Needs& n = needs[type];
      if (hook.kind == RegisteredHook::Kind::Pre) n.entry = true;
      if (hook.kind == RegisteredHook::Kind::Post) n.exit = true;
      if (hook.kind == RegisteredHook::Kind::Operator) {
        const SiteKind kind = site_kind(hook.ops);
        auto& set = kind == SiteKind::OperatorAfter       ? n.ops_after
                    : kind == SiteKind::OperatorArgsAfter ? n.ops_args_after
                                                          : n.ops_before;
        set.insert(hook.ops.ops.begin(), hook.ops.ops.end());
      }
    }
  }
  return needs;
}

void Instrumentation::instrument(const std::vector<torch::jit::Module>& objects) {
  SiteCounter counter;
  // Methods are instrumented once per class type: every object of the type shares them.
  for (auto& [type, n] : needs_by_type(objects)) {
    for (torch::jit::Function* fn : type->methods()) {
      auto* graph_fn = torch::jit::tryToGraphFunction(*fn);
      if (graph_fn == nullptr) continue;
      std::shared_ptr<torch::jit::Graph> g = graph_fn->graph();
      // Operators first, so entry/exit observers bracket them.
      observe_operators(*g, n, counter);
      const bool is_forward = fn->name().rfind("forward", 0) == 0;
      if (is_forward && (n.entry || n.exit)) observe_entry_and_exit(*g, n);
    }
  }
}

void Instrumentation::observe_operators(torch::jit::Graph& g, const Needs& n,
                                        SiteCounter& counter) {
  torch::jit::Value* self = g.inputs().at(0);
  std::unordered_set<std::string> all_ops = n.ops_before;
  all_ops.insert(n.ops_after.begin(), n.ops_after.end());
  all_ops.insert(n.ops_args_after.begin(), n.ops_args_after.end());
  std::vector<torch::jit::Node*> nodes;
  if (!all_ops.empty()) inline_function_calls(g);
  collect_nodes(g.block(), all_ops, nodes);
  for (torch::jit::Node* node : nodes) {
    const std::string op = node->kind().toQualString();
    const std::size_t k = counter.per_op[op]++;
    const std::string inline_name = inlined_ ? fmt::format("{}#{}", op, k) : std::string();
    // One observer of `kind` before `at`, with `values` (the node's inputs or outputs).
    const auto observe = [&](SiteKind kind, torch::jit::Node* at,
                             c10::ArrayRef<torch::jit::Value*> values) {
      Site* site = new_site(kind, op);
      site->index = counter.index;
      site->inline_name = inline_name;
      torch::jit::WithInsertPoint guard(at);
      insert_observe(g, self, g.insertNode(g.createTuple(values))->output(), site);
    };
    if (n.ops_before.count(op) != 0) observe(SiteKind::OperatorBefore, node, node->inputs());
    if (n.ops_args_after.count(op) != 0) {
      observe(SiteKind::OperatorArgsAfter, node->next(), node->inputs());
    }
    if (n.ops_after.count(op) != 0) observe(SiteKind::OperatorAfter, node->next(), node->outputs());
    ++counter.index;
  }
}

void Instrumentation::observe_entry_and_exit(torch::jit::Graph& g, const Needs& n) {
  torch::jit::Value* self = g.inputs().at(0);
  std::vector<torch::jit::Value*> inputs(g.inputs().begin() + 1, g.inputs().end());
  if (n.entry) {
    torch::jit::WithInsertPoint guard(g.block()->nodes().front());
    torch::jit::Value* payload = g.insertNode(g.createTuple(inputs))->output();
    insert_observe(g, self, payload, new_site(SiteKind::ModuleEntry));
  }
  if (n.exit) {
    torch::jit::WithInsertPoint guard(g.return_node());
    std::vector<torch::jit::Value*> values = inputs;
    values.push_back(g.outputs().at(0));
    torch::jit::Value* payload = g.insertNode(g.createTuple(values))->output();
    insert_observe(g, self, payload, new_site(SiteKind::ModuleExit));
  }
}

}  // namespace neurobench::detail
