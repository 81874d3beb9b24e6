// SPDX-License-Identifier: Apache-2.0
// TorchScriptModel: a TorchScript module run in eval mode under inference mode, whole or step
// by step, with hooks through an instrumented clone (instrumentation.hpp).
#include <neurobench/model/model.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "model/instrumentation.hpp"
#include "model/model_file.hpp"
#include "model/module_device.hpp"
#include "model/module_tensors.hpp"
#include "model/neuron_state.hpp"

#include "util/text.hpp"

namespace neurobench {

using detail::Instrumentation;
using detail::plan_key;
using detail::RegisteredHook;
using detail::shape_string;

namespace {

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
  return message.substr(start == std::string::npos ? 0 : start + 1,
                        end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// A failed call's cause: the last line of a c10::Error without its backtrace, or of the
// interpreter's plain runtime_error, whose TorchScript traceback ends with the cause.
std::string cause_of(const std::exception& e) {
  const auto* error = dynamic_cast<const c10::Error*>(&e);
  return last_line(error != nullptr ? error->what_without_backtrace() : e.what());
}

// A tensor result, or the first element of a tuple result when it is a tensor.
std::optional<torch::Tensor> first_tensor(const c10::IValue& out) {
  if (out.isTensor()) return out.toTensor();
  if (out.isTuple() && !out.toTupleRef().elements().empty() &&
      out.toTupleRef().elements()[0].isTensor()) {
    return out.toTupleRef().elements()[0].toTensor();
  }
  return std::nullopt;
}

// The root attribute where neurobench_export records the modules used at several places
// (Dict[str, str]: a later path -> the first path of the same module).
constexpr const char* kSharedModulesAttribute = "__neurobench_shared_modules__";

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
  std::optional<std::string> sha256;          // of the file's bytes loaded
  std::vector<RegisteredHook> hooks;
  std::uint64_t next_id = 1;
  std::unique_ptr<Instrumentation> instrumentation;  // null when there are no hooks
  bool dirty = false;
  c10::Device device = c10::kCPU;  // where the module's tensors are
  bool ran_instrumented = false;   // the last forward ran the instrumented clone
  c10::IValue last_output;         // what the last forward of a whole batch returned

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
        instrumentation = std::make_unique<Instrumentation>(module, module_infos(), aliases(),
                                                            hooks, inlined(), key);
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
      if (node->kind() == c10::prim::Constant &&
          node->output()->type()->isSubtypeOf(*c10::TensorType::get())) {
        return true;
      }
    }
    return false;
  }

  // The paths whose module is another path's in the network the model was exported from (one
  // module object used at several places, which TorchScript splits into one object per path),
  // each mapped to the first such path: the exporter records them in the root's attribute
  // kSharedModulesAttribute. Empty for a model without it.
  std::map<std::string, std::string> aliases() const {
    std::map<std::string, std::string> out;
    if (!module.hasattr(kSharedModulesAttribute)) return out;
    const c10::IValue value = module.attr(kSharedModulesAttribute);
    if (!value.isGenericDict()) return out;
    for (const auto& entry : value.toGenericDict()) {
      if (entry.key().isString() && entry.value().isString()) {
        out.emplace(entry.key().toStringRef(), entry.value().toStringRef());
      }
    }
    return out;
  }

  std::vector<ModuleInfo> module_infos() const {
    std::vector<ModuleInfo> out;
    std::unordered_set<const c10::ivalue::Object*> seen;
    const std::map<std::string, std::string> shared = aliases();
    for (const auto& item : module.named_modules()) {
      if (!seen.insert(item.value._ivalue().get()).second) continue;
      if (shared.count(item.name) != 0) continue;  // listed once, at its first path
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

  // Moves the module's tensors to `target` (TorchScriptModel::to()).
  void move_to(const c10::Device& target) {
    if (detail::graph_tensor_constants(module).empty()) {
      detail::move_module_tensors(module, target);
    } else if (file && sha256 && (target.is_cuda() || target.is_cpu())) {
      // Constants live in the graphs, which may have run already: load the file again there.
      detail::CheckedModule loaded = detail::load_checked_module(*file, target, options.nir);
      if (loaded.sha256 != *sha256) {
        throw InputError(fmt::format(
            "{}: the file changed since the model was loaded (SHA-256 {} then, {} now), so it "
            "cannot be loaded again onto {}",
            file->string(), *sha256, loaded.sha256, device_text(target)));
      }
      module = std::move(loaded.module);
      module.eval();
    } else {
      throw UsageError(fmt::format(
          "{}: its graphs hold tensor constants (a frozen or traced model), which cannot be "
          "moved to {}: load it onto the device with TorchScriptOptions::device",
          description, device_text(target)));
    }
    device = target;
    options.device = target;  // load_again() loads onto the same device
    // The instrumented clone holds the tensors as they were: made again on the next forward.
    instrumentation.reset();
    dirty = true;
    neurons_of.reset();
    neurons.clear();
  }

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
        throw InputError(
            fmt::format("{}: reset() failed: {}", description, e.what_without_backtrace()));
      } catch (const std::exception& e) {
        rethrow_hook_exception();
        throw InputError(fmt::format("{}: reset() failed: {}", description, e.what()));
      }
      return;
    }
    // As snnTorch's `utils.reset`: every state a neuron keeps, not only `mem`.
    detail::reset_neuron_state(neurons_in(m));
  }

  // `what` names the input in messages, made only for one: "timestep 3 (data[:, 3])".
  c10::IValue call(torch::jit::Module& m, const torch::Tensor& input,
                   const std::function<std::string()>& what) {
    return call_with(m, input,
                     [&] { return fmt::format("{} of shape {}", what(), shape_string(input)); });
  }

  // `what` names the input in messages, made only for one: "a batch of shape [8, 20]".
  c10::IValue call_with(torch::jit::Module& m, const c10::IValue& input,
                        const std::function<std::string()>& what) {
    try {
      return m.forward({input});
    } catch (const std::exception& e) {
      rethrow_hook_exception();
      throw InputError(
          fmt::format("{}: forward failed on {}: {}", description, what(), cause_of(e)));
    }
  }

  // A batch whose input is tuples or lists of tensors (Batch::input), called as it is.
  torch::Tensor forward_input(const c10::IValue& input) {
    if (input.isTensor()) return forward(input.toTensor());
    if (options.stepwise) {
      throw InputError(fmt::format(
          "{}: a step-wise model is called on data[:, t] of one tensor (batch, timesteps, ...); "
          "the batch's input is {}",
          description, input.type()->annotation_str()));
    }
    c10::InferenceMode guard;
    torch::jit::Module& m = active();
    ran_instrumented = instrumentation && &m == &instrumentation->module();
    return predictions(
        call_with(m, input, [&] { return "a batch of " + input.type()->annotation_str(); }));
  }

  // A sequential data set's recording starts (NeuroBenchModel::reset_slots).
  void reset_slots(const torch::Tensor& mask) {
    c10::InferenceMode guard;
    torch::jit::Module& m = active();
    const auto method = m.find_method("reset_slots");
    if (!method) return;
    try {
      (*method)({mask.to(device)});
    } catch (const std::exception& e) {
      rethrow_hook_exception();
      throw InputError(fmt::format("{}: reset_slots(mask) failed on a mask of shape {}: {}",
                                   description, shape_string(mask), cause_of(e)));
    }
  }

  torch::Tensor forward(const torch::Tensor& batch) {
    c10::InferenceMode guard;
    torch::jit::Module& m = active();
    ran_instrumented = instrumentation && &m == &instrumentation->module();
    return options.stepwise ? forward_stepwise(m, batch) : forward_whole(m, batch);
  }

  torch::Tensor forward_whole(torch::jit::Module& m, const torch::Tensor& batch) {
    return predictions(call(m, batch, [] { return std::string("a batch"); }));
  }

  // A model returning a tuple (spikes, membrane) gives its first element as predictions; the
  // whole output is kept (last_output()).
  torch::Tensor predictions(c10::IValue out) {
    last_output = std::move(out);
    if (std::optional<torch::Tensor> preds = first_tensor(last_output)) return *preds;
    throw InputError(
        fmt::format("{}: forward returned {}, expected a tensor or a tuple "
                    "whose first element is a tensor",
                    description, last_output.type()->str()));
  }

  torch::Tensor forward_stepwise(torch::jit::Module& m, const torch::Tensor& batch) {
    if (batch.dim() < 2) {
      throw InputError(
          fmt::format("{}: step-wise models need data shaped (batch, timesteps, "
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
      const c10::IValue out = call(m, batch.select(1, t),
                                   [t] { return fmt::format("timestep {} (data[:, {}])", t, t); });
      if (watch_state && t == 0) after_first.emplace(neurons);
      std::optional<torch::Tensor> step = first_tensor(out);
      if (!step) {
        throw InputError(
            fmt::format("{}: a step-wise model must return spikes or (spikes, "
                        "mem), but timestep {} returned {}",
                        description, t, out.type()->str()));
      }
      spikes.push_back(std::move(*step));
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
  (void)detail::check_regular_input(path, "model file");
  const c10::Device target = resolved_device(options.device);
  check_device(target);
  // torch::jit::load maps onto the CPU and CUDA; the lazy device is reached by moving.
  const c10::Device load_onto = target.is_cuda() ? target : c10::Device(c10::kCPU);
  detail::CheckedModule loaded = detail::load_checked_module(path, load_onto, options.nir);
  impl_->module = std::move(loaded.module);
  impl_->sha256 = std::move(loaded.sha256);
  impl_->module.eval();
  if (loaded.from_nir) options.stepwise = true;  // a NIR graph's forward is one timestep
  impl_->options = options;
  impl_->options.device = load_onto;
  impl_->device = load_onto;
  impl_->description = path.string();
  impl_->file = path;
  to(target);
}

TorchScriptModel::TorchScriptModel(torch::jit::Module module, TorchScriptOptions options,
                                   std::string description)
    : impl_(std::make_unique<Impl>()) {
  impl_->module = std::move(module);
  impl_->module.eval();
  impl_->options = options;
  impl_->description = std::move(description);
  // Where the module is as given: where its first parameter (or buffer) is.
  impl_->device = c10::kCPU;
  for (const at::Tensor& t : impl_->module.parameters()) {
    impl_->device = t.device();
    break;
  }
  if (impl_->module.parameters().size() == 0) {
    for (const at::Tensor& t : impl_->module.buffers()) {
      impl_->device = t.device();
      break;
    }
  }
  impl_->options.device = impl_->device;
  if (!options.device.is_cpu()) to(options.device);
}

TorchScriptModel::~TorchScriptModel() = default;
TorchScriptModel::TorchScriptModel(TorchScriptModel&&) noexcept = default;
TorchScriptModel& TorchScriptModel::operator=(TorchScriptModel&&) noexcept = default;

torch::Tensor TorchScriptModel::forward(const torch::Tensor& batch) {
  return impl_->forward(batch);
}

torch::Tensor TorchScriptModel::forward_input(const c10::IValue& input) {
  return impl_->forward_input(input);
}

std::vector<ModuleInfo> TorchScriptModel::modules() const { return impl_->module_infos(); }

std::string TorchScriptModel::describe() const { return impl_->description; }

void TorchScriptModel::begin_batch() {}

void TorchScriptModel::reset_slots(const torch::Tensor& mask) { impl_->reset_slots(mask); }

std::optional<std::filesystem::path> TorchScriptModel::source_file() const { return impl_->file; }

std::optional<std::string> TorchScriptModel::source_sha256() const { return impl_->sha256; }

std::vector<std::string> TorchScriptModel::warnings() const { return impl_->state_warnings(); }

std::unique_ptr<NeuroBenchModel> TorchScriptModel::load_again() const {
  if (!impl_->file) return nullptr;
  return std::make_unique<TorchScriptModel>(*impl_->file, impl_->options);
}

bool TorchScriptModel::stepwise() const { return impl_->options.stepwise; }

std::optional<std::string> TorchScriptModel::nir_record() const {
  if (!impl_->module.hasattr("__neurobench_nir__")) return std::nullopt;
  const c10::IValue v = impl_->module.attr("__neurobench_nir__");
  if (!v.isString()) return std::nullopt;
  return v.toStringRef();
}

void TorchScriptModel::to(const c10::Device& device) {
  const c10::Device target = resolved_device(device);
  if (target == impl_->device) return;
  check_device(target);  // UsageError when it is not there; starts the lazy device's backend
  impl_->move_to(target);
}

c10::Device TorchScriptModel::device() const { return impl_->device; }

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
          "register_operator_hook: '{}' is not a qualified operator name like 'aten::linear'", op));
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

const c10::IValue& TorchScriptModel::last_output() const { return impl_->last_output; }

std::vector<NamedTensor> TorchScriptModel::live_buffers() const {
  const torch::jit::Module& m = impl_->ran_instrumented && impl_->instrumentation
                                    ? impl_->instrumentation->module()
                                    : impl_->module;
  std::vector<NamedTensor> out;
  for (const auto& item : m.named_buffers(/*recurse=*/true)) out.push_back({item.name, item.value});
  return out;
}

namespace {

// Sets buffer `name` (dotted) of `root`; false when `root` has no buffer of that name (the
// message in `why`).
bool set_buffer(torch::jit::Module root, const std::string& name, const torch::Tensor& value,
                std::string& why) {
  const std::size_t dot = name.rfind('.');
  torch::jit::Module owner = root;
  if (dot != std::string::npos) {
    const std::string rest = name.substr(0, dot);
    for (std::size_t start = 0; start <= rest.size();) {
      const std::size_t end = std::min(rest.find('.', start), rest.size());
      const std::string part = rest.substr(start, end - start);
      if (!owner.hasattr(part) || !owner.attr(part).isModule()) {
        why = fmt::format("has no submodule '{}' for buffer '{}'", rest.substr(0, end), name);
        return false;
      }
      owner = owner.attr(part).toModule();
      start = end + 1;
    }
  }
  const std::string local = dot == std::string::npos ? name : name.substr(dot + 1);
  const c10::optional<std::size_t> slot = owner.type()->findAttributeSlot(local);
  if (!slot || !owner.type()->is_buffer(*slot)) {
    why = fmt::format("has no buffer '{}'", name);
    return false;
  }
  owner.register_buffer(local, value);
  return true;
}

}  // namespace

void TorchScriptModel::set_buffers(const std::vector<NamedTensor>& buffers) {
  std::string why;
  for (const NamedTensor& b : buffers) {
    const torch::Tensor value = b.value.to(impl_->device);
    if (!set_buffer(impl_->module, b.name, value, why)) {
      throw InputError(fmt::format("{}: {}", impl_->description, why));
    }
    // The instrumented clone has objects of its own: the same value there, so that it is kept.
    if (impl_->instrumentation) (void)set_buffer(impl_->instrumentation->module(), b.name, value, why);
  }
}

const TorchScriptOptions& TorchScriptModel::options() const { return impl_->options; }

std::size_t TorchScriptModel::hook_count() const { return impl_->hooks.size(); }

}  // namespace neurobench
