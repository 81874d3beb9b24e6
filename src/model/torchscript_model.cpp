// SPDX-License-Identifier: Apache-2.0
#include <neurobench/model/model.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/library.h>

#include <neurobench/errors.hpp>

#include "model/neuron_state.hpp"

#include "util/text.hpp"

namespace neurobench {

using detail::shape_string;

// ---------------------------------------------------------------------------------------------
// Names

std::string demangled_qualified_name(const std::string& qualified) {
  std::string name = qualified;
  const std::string prefix = "__torch__.";
  if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
  // Drop every atom `___torch_mangle_N`, wherever it stands (also several in a row):
  // `a.___torch_mangle_3.Linear` -> `a.Linear`.
  static const std::regex mangle(R"(___torch_mangle_\d+)");
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    const std::string atom = name.substr(start, dot - start);
    if (!std::regex_match(atom, mangle)) out += (out.empty() ? "" : ".") + atom;
    start = dot + 1;
  }
  return out;
}

std::string demangled_type_name(const std::string& qualified) {
  const std::string name = demangled_qualified_name(qualified);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

bool ModuleSelector::matches(const ModuleInfo& info) const {
  return std::find(paths.begin(), paths.end(), info.path) != paths.end() ||
         std::find(type_names.begin(), type_names.end(), info.type_name) != type_names.end();
}

// ---------------------------------------------------------------------------------------------
// NeuroBenchModel defaults

std::vector<NamedTensor> NeuroBenchModel::parameters() const {
  std::vector<NamedTensor> out;
  for (auto& m : modules()) out.insert(out.end(), m.parameters.begin(), m.parameters.end());
  return out;
}

std::vector<NamedTensor> NeuroBenchModel::buffers() const {
  std::vector<NamedTensor> out;
  for (auto& m : modules()) out.insert(out.end(), m.buffers.begin(), m.buffers.end());
  return out;
}

namespace {
[[noreturn]] void no_hooks(const NeuroBenchModel& model) {
  throw UsageError(fmt::format("{}: this model does not support hooks", model.describe()));
}
}  // namespace

HookHandle NeuroBenchModel::register_forward_pre_hook(const ModuleSelector&, ModuleHook) {
  no_hooks(*this);
}
HookHandle NeuroBenchModel::register_forward_hook(const ModuleSelector&, ModuleHook) {
  no_hooks(*this);
}
HookHandle NeuroBenchModel::register_operator_hook(const OperatorSelector&, OperatorHook) {
  no_hooks(*this);
}
void NeuroBenchModel::remove_hook(HookHandle) {}

// ---------------------------------------------------------------------------------------------
// The observer operator
//
// `neurobench::observe(Any self, Any payload, int site) -> ()` is inserted into the graphs of a
// clone of the model. `site` is the address of a Site owned by the Instrumentation that
// inserted it; the clone never outlives it. CONSERVATIVE alias analysis keeps the op (it has
// no outputs, so it would otherwise be removed as dead code) and keeps it in program order.

namespace {

constexpr std::uint64_t kSiteMagic = 0x6e6575726f62656eULL;  // "neuroben"
constexpr const char* kObserveOp = "neurobench::observe";

enum class SiteKind { ModuleEntry, ModuleExit, OperatorBefore, OperatorAfter };

class Instrumentation;

struct Site {
  std::uint64_t magic = kSiteMagic;
  Instrumentation* owner = nullptr;
  SiteKind kind = SiteKind::ModuleEntry;
  std::string op;          // operator sites: qualified name
  std::size_t index = 0;   // operator sites: index of the call site within the model
  std::string inline_name;  // operator sites in inlined models: `aten::relu#2`
};

void observe_kernel(const c10::OperatorHandle& /*op*/, torch::jit::Stack* stack);

}  // namespace
}  // namespace neurobench

TORCH_LIBRARY(neurobench, m) {
  m.def(torch::schema("neurobench::observe(Any self, Any payload, int site) -> ()",
                      c10::AliasAnalysisKind::CONSERVATIVE),
        torch::CppFunction::makeFromBoxedFunction<&neurobench::observe_kernel>());
}

namespace neurobench {
namespace {

struct RegisteredHook {
  std::uint64_t id = 0;
  enum class Kind { Pre, Post, Operator } kind = Kind::Pre;
  ModuleSelector modules;
  OperatorSelector ops;
  ModuleHook module_hook;
  OperatorHook operator_hook;
};

// What decides how a clone is instrumented: each hook's kind and selectors, in order.
std::string plan_key(const std::vector<RegisteredHook>& hooks) {
  std::string key;
  auto list = [&](const std::vector<std::string>& v) {
    for (const auto& item : v) key += item + ",";
    key += ";";
  };
  for (const auto& h : hooks) {
    key += std::to_string(static_cast<int>(h.kind)) + (h.ops.after ? "a" : "b") + "|";
    list(h.modules.paths);
    list(h.modules.type_names);
    list(h.ops.ops);
    list(h.ops.within.paths);
    list(h.ops.within.type_names);
    key += "\n";
  }
  return key;
}

// Builds an instrumented clone of a module for a set of hooks, and dispatches observer calls.
class Instrumentation {
 public:
  Instrumentation(const torch::jit::Module& original, const std::vector<ModuleInfo>& infos,
                  const std::vector<RegisteredHook>& hooks, bool inlined, std::string plan)
      : infos_(infos), hooks_(hooks), plan_(std::move(plan)), inlined_(inlined) {
    clone_ = original.clone(/*inplace=*/true);
    // Map each module object of the clone to the ModuleInfo of the same path. The same object
    // reached by two paths keeps the first (as eager `named_modules()` does).
    std::unordered_map<std::string, std::size_t> by_path;
    for (std::size_t i = 0; i < infos_.size(); ++i) by_path.emplace(infos_[i].path, i);
    std::vector<torch::jit::Module> objects;
    for (const auto& item : clone_.named_modules()) {
      auto it = by_path.find(item.name);
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

  torch::jit::Module& module() { return clone_; }

  /// The plan this clone was instrumented for (see plan_key).
  const std::string& plan() const { return plan_; }
  /// New callbacks for the same plan: the sites and selections stay valid.
  void set_hooks(const std::vector<RegisteredHook>& hooks) { hooks_ = hooks; }

  // The first exception a hook threw, kept so that forward() can rethrow it unchanged: the
  // TorchScript interpreter turns whatever a kernel throws into a plain runtime_error.
  void keep_exception(std::exception_ptr e) {
    if (!pending_) pending_ = std::move(e);
  }
  std::exception_ptr take_exception() { return std::exchange(pending_, nullptr); }

  void fire(const Site& site, const c10::IValue& self, const c10::IValue& payload) {
    if (!self.isObject()) return;
    const auto found = object_index_.find(self.toObject().get());
    if (found == object_index_.end()) return;
    const std::size_t index = found->second;
    const ModuleInfo& info = infos_[index];
    const auto& elements = payload.isTuple() ? payload.toTupleRef().elements()
                                             : c10::ArrayRef<c10::IValue>(&payload, 1);
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
          if (hook.kind == RegisteredHook::Kind::Operator &&
              hook.ops.after == (site.kind == SiteKind::OperatorAfter) &&
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

 private:
  Site* new_site(SiteKind kind, std::string op = {}) {
    sites_.emplace_back();
    Site& s = sites_.back();
    s.owner = this;
    s.kind = kind;
    s.op = std::move(op);
    return &s;
  }

  static torch::jit::Value* site_constant(torch::jit::Graph& g, const Site* site) {
    return g.insertConstant(static_cast<int64_t>(reinterpret_cast<std::intptr_t>(site)));
  }

  static void insert_observe(torch::jit::Graph& g, torch::jit::Value* self,
                             torch::jit::Value* payload, const Site* site) {
    torch::jit::Value* site_value = site_constant(g, site);
    g.insertNode(g.create(c10::Symbol::fromQualString(kObserveOp), {self, payload, site_value},
                          /*num_outputs=*/0));
  }

  static void collect_nodes(torch::jit::Block* block, const std::unordered_set<std::string>& ops,
                            std::vector<torch::jit::Node*>& out) {
    for (torch::jit::Node* node : block->nodes()) {
      if (ops.count(node->kind().toQualString()) != 0) out.push_back(node);
      for (torch::jit::Block* sub : node->blocks()) collect_nodes(sub, ops, out);
    }
  }

  // Operators in TorchScript functions that a module's code calls belong to that module
  // (scripted nn.ReLU calls torch.nn.functional.relu, which calls aten::relu): inline those
  // calls into the clone's graph. Method calls stay, so submodules keep their boundaries.
  static void inline_function_calls(torch::jit::Graph& g) {
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

  void instrument(const std::vector<torch::jit::Module>& objects) {
    // What each class type needs: entry/exit observers, operators to watch (before/after).
    struct Needs {
      bool entry = false, exit = false;
      std::unordered_set<std::string> ops_before, ops_after;
    };
    std::map<c10::ClassType*, Needs> needs;
    std::map<c10::ClassType*, torch::jit::Module> type_object;
    for (const auto& object : objects) {
      const std::size_t index = object_index_.at(object._ivalue().get());
      c10::ClassType* type = object.type().get();
      type_object.emplace(type, object);
      for (std::size_t h = 0; h < hooks_.size(); ++h) {
        if (!selection_[h][index]) continue;
        const auto& hook = hooks_[h];
        Needs& n = needs[type];
        if (hook.kind == RegisteredHook::Kind::Pre) n.entry = true;
        if (hook.kind == RegisteredHook::Kind::Post) n.exit = true;
        if (hook.kind == RegisteredHook::Kind::Operator) {
          auto& set = hook.ops.after ? n.ops_after : n.ops_before;
          set.insert(hook.ops.ops.begin(), hook.ops.ops.end());
        }
      }
    }
    std::size_t op_index = 0;
    std::map<std::string, std::size_t> per_op_count;
    for (auto& [type, n] : needs) {
      for (torch::jit::Function* fn : type->methods()) {
        auto* graph_fn = torch::jit::tryToGraphFunction(*fn);
        if (graph_fn == nullptr) continue;
        std::shared_ptr<torch::jit::Graph> g = graph_fn->graph();
        torch::jit::Value* self = g->inputs().at(0);
        const bool is_forward = fn->name().rfind("forward", 0) == 0;
        // Operators first, so entry/exit observers bracket them.
        std::unordered_set<std::string> all_ops = n.ops_before;
        all_ops.insert(n.ops_after.begin(), n.ops_after.end());
        std::vector<torch::jit::Node*> nodes;
        if (!all_ops.empty()) inline_function_calls(*g);
        collect_nodes(g->block(), all_ops, nodes);
        for (torch::jit::Node* node : nodes) {
          const std::string op = node->kind().toQualString();
          const std::size_t k = per_op_count[op]++;
          const std::string inline_name = inlined_ ? fmt::format("{}#{}", op, k) : std::string();
          if (n.ops_before.count(op) != 0) {
            Site* site = new_site(SiteKind::OperatorBefore, op);
            site->index = op_index;
            site->inline_name = inline_name;
            torch::jit::WithInsertPoint guard(node);
            torch::jit::Value* args = g->insertNode(g->createTuple(node->inputs()))->output();
            insert_observe(*g, self, args, site);
          }
          if (n.ops_after.count(op) != 0) {
            Site* site = new_site(SiteKind::OperatorAfter, op);
            site->index = op_index;
            site->inline_name = inline_name;
            torch::jit::WithInsertPoint guard(node->next());
            torch::jit::Value* outs = g->insertNode(g->createTuple(node->outputs()))->output();
            insert_observe(*g, self, outs, site);
          }
          ++op_index;
        }
        if (!is_forward || (!n.entry && !n.exit)) continue;
        std::vector<torch::jit::Value*> inputs(g->inputs().begin() + 1, g->inputs().end());
        if (n.entry) {
          torch::jit::WithInsertPoint guard(g->block()->nodes().front());
          torch::jit::Value* payload = g->insertNode(g->createTuple(inputs))->output();
          insert_observe(*g, self, payload, new_site(SiteKind::ModuleEntry));
        }
        if (n.exit) {
          torch::jit::WithInsertPoint guard(g->return_node());
          std::vector<torch::jit::Value*> values = inputs;
          values.push_back(g->outputs().at(0));
          torch::jit::Value* payload = g->insertNode(g->createTuple(values))->output();
          insert_observe(*g, self, payload, new_site(SiteKind::ModuleExit));
        }
      }
    }
  }

  torch::jit::Module clone_;
  std::vector<ModuleInfo> infos_;
  std::vector<RegisteredHook> hooks_;
  std::string plan_;
  bool inlined_;
  std::vector<std::vector<bool>> selection_;
  std::unordered_map<const c10::ivalue::Object*, std::size_t> object_index_;
  std::deque<Site> sites_;  // stable addresses
  std::exception_ptr pending_;
};

void observe_kernel(const c10::OperatorHandle& /*op*/, torch::jit::Stack* stack) {
  const auto n = stack->size();
  const auto* site = reinterpret_cast<const Site*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<std::intptr_t>((*stack)[n - 1].toInt()));
  if (site != nullptr && site->magic == kSiteMagic && site->owner != nullptr) {
    try {
      site->owner->fire(*site, (*stack)[n - 3], (*stack)[n - 2]);
    } catch (...) {
      site->owner->keep_exception(std::current_exception());
      throw;
    }
  }
  torch::jit::drop(*stack, 3);
}

// A module's own parameters or buffers, named by their full dotted path.
template <class NamedList>
std::vector<NamedTensor> prefixed(const std::string& path, const NamedList& list) {
  std::vector<NamedTensor> out;
  for (const auto& item : list) {
    out.push_back({path.empty() ? item.name : path + "." + item.name, item.value});
  }
  return out;
}

// The last non-empty line of a message (TorchScript errors end with the cause).
std::string last_line(const std::string& message) {
  std::size_t end = message.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return message;
  const std::size_t start = message.rfind('\n', end);
  return message.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}


}  // namespace

// ---------------------------------------------------------------------------------------------
// TorchScriptModel

namespace {
constexpr const char* kStateLost =
    "The neuron state is lost between timesteps, so accuracy, activation sparsity, synaptic "
    "operations and membrane updates are wrong. Export the network with its state with "
    "python/neurobench_export.py (see docs/snntorch.md).";
}  // namespace

struct TorchScriptModel::Impl {
  torch::jit::Module module;
  TorchScriptOptions options;
  std::string description;
  std::optional<std::filesystem::path> file;  // set when loaded from a file
  std::vector<RegisteredHook> hooks;
  std::uint64_t next_id = 1;
  std::unique_ptr<Instrumentation> instrumentation;  // null when there are no hooks
  bool dirty = false;

  // The module to run: the original without hooks, else the instrumented clone. A clone is
  // kept while the hooks' plan (kinds and selectors) stays the same, so that removing hooks and
  // adding the same ones again (each Benchmark::run does) swaps only the callbacks: rebuilding
  // would pay for instrumentation and TorchScript's profiling runs again.
  torch::jit::Module& active() {
    if (hooks.empty()) return module;
    if (dirty || !instrumentation) {
      const std::string key = plan_key(hooks);
      if (instrumentation && instrumentation->plan() == key) {
        instrumentation->set_hooks(hooks);
      } else {
        instrumentation = std::make_unique<Instrumentation>(module, module_infos(), hooks,
                                                            inlined(), key);
      }
      dirty = false;
    }
    return instrumentation->module();
  }

  // A frozen model: no submodules, no parameters, and its weights folded into tensor constants
  // of the forward graph. (A bare ReLU or neuron as the root has no tensor constants.)
  bool inlined() const {
    if (module.children().size() != 0 || module.parameters().size() != 0) return false;
    const auto method = module.find_method("forward");
    if (!method) return false;
    auto* fn = torch::jit::tryToGraphFunction(method->function());
    if (fn == nullptr) return false;
    for (const torch::jit::Node* node : fn->graph()->nodes()) {
      if (node->kind() == c10::prim::Constant && node->output()->type()->isSubtypeOf(*c10::TensorType::get())) {
        return true;
      }
    }
    return false;
  }

  std::vector<ModuleInfo> module_infos() const {
    std::vector<ModuleInfo> out;
    std::unordered_set<const c10::ivalue::Object*> seen;
    for (const auto& item : module.named_modules()) {
      if (!seen.insert(item.value._ivalue().get()).second) continue;
      ModuleInfo info;
      info.path = item.name;
      const std::string qualified = item.value.type()->name()->qualifiedName();
      info.qualified_type = demangled_qualified_name(qualified);
      info.type_name = demangled_type_name(qualified);
      info.parameters = prefixed(item.name, item.value.named_parameters(/*recurse=*/false));
      info.buffers = prefixed(item.name, item.value.named_buffers(/*recurse=*/false));
      out.push_back(std::move(info));
    }
    return out;
  }

  HookHandle add(RegisteredHook hook) {
    hook.id = next_id++;
    hooks.push_back(std::move(hook));
    dirty = true;
    return HookHandle{hooks.back().id};
  }

  // A hook's own exception leaves forward() as it was thrown, not as an InputError.
  void rethrow_hook_exception() {
    if (!instrumentation) return;
    if (std::exception_ptr e = instrumentation->take_exception()) std::rethrow_exception(e);
  }

  // The spiking neurons of the module being run (the original or the instrumented clone),
  // found once per module. `neurons_of` holds the module, so its address is not reused.
  std::optional<torch::jit::Module> neurons_of;
  std::vector<detail::Neuron> neurons;
  // Evidence for the stateless-network warning: batches of 2 or more timesteps watched, and
  // whether any neuron's state changed between the first and the last timestep of one.
  std::size_t state_batches_watched = 0;
  bool state_changed = false;
  std::optional<std::vector<std::string>> static_state_warnings;  // computed once

  std::vector<detail::Neuron>& neurons_in(const torch::jit::Module& m) {
    if (!neurons_of || neurons_of->_ivalue().get() != m._ivalue().get()) {
      neurons = detail::find_neurons(m);
      neurons_of = m;
    }
    return neurons;
  }

  // spec: step-wise convention; reset the network's state before each batch.
  void reset_state(torch::jit::Module& m) {
    if (m.find_method("reset")) {
      try {
        m.run_method("reset");
      } catch (const c10::Error& e) {
        rethrow_hook_exception();
        throw InputError(fmt::format("{}: reset() failed: {}", description,
                                     e.what_without_backtrace()));
      } catch (const std::exception& e) {
        rethrow_hook_exception();
        throw InputError(fmt::format("{}: reset() failed: {}", description, e.what()));
      }
      return;
    }
    // As snnTorch's `utils.reset`: every state a neuron keeps, not only `mem`.
    detail::reset_neuron_state(neurons_in(m));
  }

  c10::IValue call(torch::jit::Module& m, const torch::Tensor& input, const std::string& what) {
    try {
      return m.forward({input});
    } catch (const c10::Error& e) {
      rethrow_hook_exception();
      throw InputError(fmt::format("{}: forward failed on {} of shape {}: {}", description, what,
                                   shape_string(input), last_line(e.what_without_backtrace())));
    } catch (const std::exception& e) {
      // The interpreter rethrows as a plain runtime_error with a TorchScript traceback; its last
      // line holds the cause.
      rethrow_hook_exception();
      throw InputError(fmt::format("{}: forward failed on {} of shape {}: {}", description, what,
                                   shape_string(input), last_line(e.what())));
    }
  }

  torch::Tensor forward(const torch::Tensor& batch) {
    c10::InferenceMode guard;
    torch::jit::Module& m = active();
    if (!options.stepwise) {
      const c10::IValue out = call(m, batch, "a batch");
      if (out.isTensor()) return out.toTensor();
      // A model returning a tuple (spikes, membrane) gives its first element as predictions.
      if (out.isTuple() && !out.toTupleRef().elements().empty() &&
          out.toTupleRef().elements()[0].isTensor()) {
        return out.toTupleRef().elements()[0].toTensor();
      }
      throw InputError(fmt::format("{}: forward returned {}, expected a tensor or a tuple "
                                   "whose first element is a tensor",
                                   description, out.type()->str()));
    }
    if (batch.dim() < 2) {
      throw InputError(fmt::format("{}: step-wise models need data shaped (batch, timesteps, "
                                   "features...), got shape {}",
                                   description, shape_string(batch)));
    }
    reset_state(m);
    const int64_t steps = batch.size(1);
    // Until a neuron's state is seen to change, compare it after the first and the last
    // timestep: two looks per batch, none once the network has shown that it keeps state.
    const bool watch_state = !state_changed && steps >= 2 && !neurons_in(m).empty();
    std::optional<detail::StateSnapshot> after_first;
    std::vector<torch::Tensor> spikes;
    spikes.reserve(static_cast<std::size_t>(steps));
    for (int64_t t = 0; t < steps; ++t) {
      const c10::IValue out = call(m, batch.select(1, t), fmt::format("timestep {} (data[:, {}])", t, t));
      if (watch_state && t == 0) after_first.emplace(neurons);
      if (out.isTensor()) {
        spikes.push_back(out.toTensor());
      } else if (out.isTuple() && !out.toTupleRef().elements().empty() &&
                 out.toTupleRef().elements()[0].isTensor()) {
        spikes.push_back(out.toTupleRef().elements()[0].toTensor());
      } else {
        throw InputError(fmt::format("{}: a step-wise model must return spikes or (spikes, "
                                     "mem), but timestep {} returned {}",
                                     description, t, out.type()->str()));
      }
    }
    if (spikes.empty()) {
      throw InputError(fmt::format("{}: step-wise data has no timesteps (shape {})", description,
                                   shape_string(batch)));
    }
    if (after_first && !after_first->empty()) {
      ++state_batches_watched;
      if (after_first->changed(neurons)) state_changed = true;
    }
    return torch::stack(spikes, 1);
  }

  std::vector<std::string> state_warnings() {
    std::vector<std::string> out;
    if (!options.stepwise) return out;
    if (!static_state_warnings) {
      static_state_warnings.emplace();
      const std::vector<detail::Neuron> original = detail::find_neurons(module);
      const std::vector<const detail::Neuron*> never = detail::neurons_never_storing_mem(original);
      if (!never.empty()) {
        const bool one = never.size() == 1;
        static_state_warnings->push_back(fmt::format(
            "{}: no forward method stores the membrane 'mem' of {}: {}. {} 'mem' is a constant "
            "of the graph (no prim::SetAttr \"mem\"), as in a torch.jit.trace of an snnTorch "
            "network. {}",
            description, one ? "this spiking neuron" : "these spiking neurons",
            detail::describe_neurons(never), one ? "Its" : "Their", kStateLost));
      }
    }
    out = *static_state_warnings;
    if (state_batches_watched > 0 && !state_changed) {
      std::vector<const detail::Neuron*> watched;
      for (const auto& n : neurons) {
        if (!n.state.empty()) watched.push_back(&n);
      }
      out.push_back(fmt::format(
          "{}: step-wise run, but no spiking neuron kept its state from one timestep to the "
          "next: in every batch, the state attributes ({}) of {} held the same tensors after "
          "the last timestep as after the first. This is what torch.jit.trace makes of an "
          "snnTorch network: every timestep starts again from a zero membrane. {}",
          description, fmt::join(detail::neuron_state_attributes(), ", "),
          detail::describe_neurons(watched), kStateLost));
    }
    return out;
  }
};

TorchScriptModel::TorchScriptModel(const std::filesystem::path& path, TorchScriptOptions options)
    : impl_(std::make_unique<Impl>()) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(fmt::format("{}: no such model file", path.string()));
  }
  try {
    impl_->module = torch::jit::load(path.string(), c10::Device(c10::kCPU));
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: not a TorchScript model ({})", path.string(),
                                 e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not a TorchScript model ({})", path.string(), e.what()));
  }
  impl_->module.eval();
  impl_->options = options;
  impl_->description = path.string();
  impl_->file = path;
}

TorchScriptModel::TorchScriptModel(torch::jit::Module module, TorchScriptOptions options,
                                   std::string description)
    : impl_(std::make_unique<Impl>()) {
  impl_->module = std::move(module);
  impl_->module.eval();
  impl_->options = options;
  impl_->description = std::move(description);
}

TorchScriptModel::~TorchScriptModel() = default;
TorchScriptModel::TorchScriptModel(TorchScriptModel&&) noexcept = default;
TorchScriptModel& TorchScriptModel::operator=(TorchScriptModel&&) noexcept = default;

torch::Tensor TorchScriptModel::forward(const torch::Tensor& batch) {
  return impl_->forward(batch);
}

std::vector<ModuleInfo> TorchScriptModel::modules() const { return impl_->module_infos(); }

std::string TorchScriptModel::describe() const { return impl_->description; }

void TorchScriptModel::begin_batch() {}

std::optional<std::filesystem::path> TorchScriptModel::source_file() const {
  return impl_->file;
}

std::vector<std::string> TorchScriptModel::warnings() const { return impl_->state_warnings(); }

std::unique_ptr<NeuroBenchModel> TorchScriptModel::load_again() const {
  if (!impl_->file) return nullptr;
  return std::make_unique<TorchScriptModel>(*impl_->file, impl_->options);
}

HookHandle TorchScriptModel::register_forward_pre_hook(const ModuleSelector& where,
                                                       ModuleHook hook) {
  if (!hook) throw UsageError("register_forward_pre_hook: empty hook");
  RegisteredHook h;
  h.kind = RegisteredHook::Kind::Pre;
  h.modules = where;
  h.module_hook = std::move(hook);
  return impl_->add(std::move(h));
}

HookHandle TorchScriptModel::register_forward_hook(const ModuleSelector& where, ModuleHook hook) {
  if (!hook) throw UsageError("register_forward_hook: empty hook");
  RegisteredHook h;
  h.kind = RegisteredHook::Kind::Post;
  h.modules = where;
  h.module_hook = std::move(hook);
  return impl_->add(std::move(h));
}

HookHandle TorchScriptModel::register_operator_hook(const OperatorSelector& where,
                                                    OperatorHook hook) {
  if (!hook) throw UsageError("register_operator_hook: empty hook");
  if (where.ops.empty()) throw UsageError("register_operator_hook: no operators named");
  for (const auto& op : where.ops) {
    if (op.find("::") == std::string::npos) {
      throw UsageError(fmt::format(
          "register_operator_hook: '{}' is not a qualified operator name like 'aten::linear'",
          op));
    }
  }
  RegisteredHook h;
  h.kind = RegisteredHook::Kind::Operator;
  h.ops = where;
  h.operator_hook = std::move(hook);
  return impl_->add(std::move(h));
}

void TorchScriptModel::remove_hook(HookHandle handle) {
  auto& hooks = impl_->hooks;
  const auto it = std::remove_if(hooks.begin(), hooks.end(),
                                 [&](const RegisteredHook& h) { return h.id == handle.id; });
  if (it == hooks.end()) return;
  hooks.erase(it, hooks.end());
  impl_->dirty = true;
}

bool TorchScriptModel::is_inlined() const { return impl_->inlined(); }

const torch::jit::Module& TorchScriptModel::module() const { return impl_->module; }

const TorchScriptOptions& TorchScriptModel::options() const { return impl_->options; }

std::size_t TorchScriptModel::hook_count() const { return impl_->hooks.size(); }

}  // namespace neurobench
