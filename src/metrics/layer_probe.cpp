// SPDX-License-Identifier: Apache-2.0
#include "metrics/layer_probe.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

namespace neurobench::detail {

const std::vector<std::string>& connection_operators() {
  static const std::vector<std::string> ops = {
      "aten::linear",        "aten::conv1d",       "aten::conv2d",   "aten::conv3d",
      "aten::_convolution",  "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
      "aten::lstm_cell",     "aten::gru_cell",     "aten::lstm",     "aten::gru",
      "aten::rnn_tanh",      "aten::rnn_relu"};
  return ops;
}

namespace {

// Operators that stand for activation classes once a model's modules are inlined (frozen).
const std::map<std::string, std::vector<std::string>>& activation_operators() {
  static const std::map<std::string, std::vector<std::string>> ops = {
      {"ReLU", {"aten::relu", "aten::relu_"}},
      {"Sigmoid", {"aten::sigmoid", "aten::sigmoid_"}},
      {"Tanh", {"aten::tanh", "aten::tanh_"}},
      {"LeakyReLU", {"aten::leaky_relu", "aten::leaky_relu_"}},
      {"ReLU6", {"aten::hardtanh", "aten::hardtanh_"}},
      {"GELU", {"aten::gelu"}},
      {"ELU", {"aten::elu", "aten::elu_"}},
      {"SiLU", {"aten::silu", "aten::silu_"}},
      {"Hardsigmoid", {"aten::hardsigmoid", "aten::hardsigmoid_"}},
      {"Softplus", {"aten::softplus"}},
  };
  return ops;
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

// The first tensor of a module output: the tensor itself, or element 0 of a tuple (spikes of
// `(spk, mem)`). Undefined when there is none.
torch::Tensor first_tensor(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor();
  if (v.isTuple()) {
    const auto& elements = v.toTupleRef().elements();
    if (!elements.empty() && elements[0].isTensor()) return elements[0].toTensor();
  }
  return {};
}

std::string reset_mechanism_of(const torch::jit::Object& object) {
  if (object.hasattr("_reset_mechanism")) {
    const c10::IValue v = object.attr("_reset_mechanism");
    if (v.isString()) return v.toStringRef();
  }
  if (object.hasattr("reset_mechanism_val")) {
    const c10::IValue v = object.attr("reset_mechanism_val");
    if (v.isTensor() && v.toTensor().numel() == 1) {
      switch (v.toTensor().item<int64_t>()) {
        case 0: return "subtract";
        case 1: return "zero";
        case 2: return "none";
        default: break;
      }
    }
  }
  return {};
}

torch::Tensor mem_of(const torch::jit::Object& object) {
  if (!object.hasattr("mem")) return {};
  const c10::IValue v = object.attr("mem");
  return v.isTensor() ? v.toTensor() : torch::Tensor();
}

}  // namespace

std::vector<std::string> activation_operators_of(const std::vector<std::string>& types) {
  std::vector<std::string> ops;
  for (const auto& type : types) {
    const auto it = activation_operators().find(type);
    if (it == activation_operators().end()) continue;
    ops.insert(ops.end(), it->second.begin(), it->second.end());
  }
  return ops;
}

LayerProbe::LayerProbe(NeuroBenchModel& model, const LayerSetup& setup,
                       std::vector<WorkloadMetric*> metrics, FailureSink on_failure)
    : model_(model), on_failure_(std::move(on_failure)) {
  std::vector<std::string> operators;  // asked for by any metric, each once
  std::vector<std::string> output_operators;  // the same, hooked after they run
  for (WorkloadMetric* m : metrics) {
    if (has(m->observes(), LayerEvents::kActivations)) activation_metrics_.push_back(m);
    if (has(m->observes(), LayerEvents::kConnections)) connection_metrics_.push_back(m);
    if (has(m->observes(), LayerEvents::kOperators)) {
      std::vector<std::string> ops = m->observed_operators();
      const auto bad = std::find_if(ops.begin(), ops.end(), [](const std::string& op) {
        return op.find("::") == std::string::npos;
      });
      if (bad != ops.end()) {  // the model would refuse the hook and fail every metric
        fail(*m, fmt::format("observed_operators(): '{}' is not a qualified operator name like "
                             "'aten::matmul'",
                             *bad));
        continue;
      }
      for (const auto& op : ops) {
        if (!contains(operators, op)) operators.push_back(op);
      }
      if (!ops.empty()) operator_metrics_.emplace_back(m, std::move(ops));
    }
    if (has(m->observes(), LayerEvents::kOperatorOutputs)) {
      std::vector<std::string> ops = m->observed_operators();
      const auto bad = std::find_if(ops.begin(), ops.end(), [](const std::string& op) {
        return op.find("::") == std::string::npos;
      });
      if (bad != ops.end()) {
        fail(*m, fmt::format("observed_operators(): '{}' is not a qualified operator name like "
                             "'aten::matmul'",
                             *bad));
        continue;
      }
      for (const auto& op : ops) {
        if (!contains(output_operators, op)) output_operators.push_back(op);
      }
      if (!ops.empty()) operator_output_metrics_.emplace_back(m, std::move(ops));
    }
  }
  if (activation_metrics_.empty() && connection_metrics_.empty() && operators.empty() &&
      output_operators.empty()) {
    return;
  }

  const bool inlined = model.is_inlined();
  const std::vector<ModuleInfo> modules = model.modules();

  if (!activation_metrics_.empty()) {
    if (inlined) {
      hook_activation_operators(setup);
    } else {
      hook_activation_modules(setup, modules);
    }
  }

  if (!connection_metrics_.empty()) {
    // After the operator, with its arguments: the input is still in the CPU's caches.
    OperatorSelector where{connection_operators(), {}, /*after=*/false, /*args_after=*/true};
    if (!inlined) {
      where.within = ModuleSelector::by_type(setup.connection_types);
      const bool any = std::any_of(modules.begin(), modules.end(), [&](const ModuleInfo& m) {
        return contains(setup.connection_types, m.type_name);
      });
      if (!any) {
        warnings_.push_back(fmt::format(
            "no connection layers found in {} (searched for modules of class {}); synaptic "
            "operations report 0",
            model.describe(), join(setup.connection_types)));
      }
    }
    if (!inlined) {
      // Whether each recurrent cell's forward was given a state: its operator always gets one
      // (zeros when there was none), and NeuroBench counts the two cases differently.
      handles_.push_back(model.register_forward_pre_hook(
          ModuleSelector::by_type({"RNNCell", "LSTMCell", "GRUCell"}),
          [this](const ModuleCall& call) {
            const bool given = call.inputs.size() >= 2 && !call.inputs[1].isNone();
            state_given_[call.module.path] = given;
          }));
    }
    // `inlined` as found above: is_inlined() walks the module, too slow for every call.
    handles_.push_back(
        model.register_operator_hook(where, [this, inlined](const OperatorCall& call) {
          const std::string_view type = inlined ? call.op : call.module.type_name;
          ConnectionCall event{call.site, type, call.op, call.args};
          if (call.op.size() > 5 && call.op.substr(call.op.size() - 5) == "_cell") {
            const auto found = state_given_.find(call.module.path);
            if (found != state_given_.end()) event.state_given = found->second;
          }
          dispatch_connection(event);
        }));
  }

  // Anywhere in the model: the operator hook of its own sees each call site once, whatever the
  // module and whether or not a connection hook also watches it.
  if (!operators.empty()) {
    OperatorSelector where{std::move(operators), {}, /*after=*/false};
    handles_.push_back(model.register_operator_hook(
        where, [this](const OperatorCall& call) { dispatch_operator(call); }));
  }
  if (!output_operators.empty()) {
    OperatorSelector where{std::move(output_operators), {}, /*after=*/true};
    handles_.push_back(model.register_operator_hook(
        where, [this](const OperatorCall& call) { dispatch_operator_output(call); }));
  }
}

// Activation layers by module class: a pre-hook keeps the membrane potential before the call,
// the hook reports the call with it.
void LayerProbe::hook_activation_modules(const LayerSetup& setup,
                                         const std::vector<ModuleInfo>& modules) {
  const auto& spiking_types = metrics::spiking_neuron_types();  // static: captured by reference
  const bool any = std::any_of(modules.begin(), modules.end(), [&](const ModuleInfo& m) {
    return contains(setup.activation_types, m.type_name);
  });
  if (!any) {
    warnings_.push_back(fmt::format(
        "no activation layers found in {} (searched for modules of class {}); activation "
        "metrics report 0",
        model_.describe(), join(setup.activation_types)));
  }
  const ModuleSelector where = ModuleSelector::by_type(setup.activation_types);
  handles_.push_back(model_.register_forward_pre_hook(where, [this](const ModuleCall& call) {
    torch::Tensor mem = mem_of(call.object);
    if (!mem.defined()) return;
    for (auto& [path, value] : mem_before_) {
      if (path == call.module.path) {
        value = mem;
        return;
      }
    }
    mem_before_.emplace_back(call.module.path, mem);
  }));
  handles_.push_back(
      model_.register_forward_hook(where, [this, &spiking_types](const ModuleCall& call) {
        const torch::Tensor output = first_tensor(*call.output);
        if (!output.defined()) return;
        const torch::Tensor mem_after = mem_of(call.object);
        const bool spiking = mem_after.defined() || contains(spiking_types, call.module.type_name);
        const torch::Tensor* before = nullptr;
        for (const auto& [path, value] : mem_before_) {
          if (path == call.module.path) before = &value;
        }
        std::string_view reset;
        if (spiking) {  // read once per layer: it does not change during a run
          auto it = reset_mechanisms_.find(call.module.path);
          if (it == reset_mechanisms_.end()) {
            it = reset_mechanisms_.emplace(call.module.path, reset_mechanism_of(call.object)).first;
          }
          reset = it->second;
        }
        std::string error;
        if (spiking && !mem_after.defined()) {
          error = fmt::format("spiking layer '{}' ({}) has no tensor attribute 'mem'",
                              call.module.path, call.module.type_name);
        }
        ActivationCall event{call.module.path,
                             call.module.type_name,
                             output,
                             spiking,
                             (mem_after.defined() && before != nullptr) ? before : nullptr,
                             mem_after.defined() ? &mem_after : nullptr,
                             reset,
                             error};
        dispatch_activation(event);
      }));
}

// A model without submodules (frozen, inlined): activation layers by the operators that stand
// for their classes.
void LayerProbe::hook_activation_operators(const LayerSetup& setup) {
  std::vector<std::string> ops;
  std::vector<std::string> unmapped;
  for (const auto& type : setup.activation_types) {
    const auto it = activation_operators().find(type);
    if (it == activation_operators().end()) {
      unmapped.push_back(type);
    } else {
      ops.insert(ops.end(), it->second.begin(), it->second.end());
    }
  }
  warnings_.push_back(fmt::format(
      "{} has no submodules (a frozen or inlined model): activation layers are found by "
      "their operators ({}), named by operator and position, not by module path",
      model_.describe(), join(ops)));
  if (!unmapped.empty()) {
    warnings_.push_back(fmt::format(
        "activation classes {} cannot be found in an inlined model (no operator stands for "
        "them)",
        join(unmapped)));
  }
  if (!ops.empty()) {
    OperatorSelector where{ops, {}, /*after=*/true};
    handles_.push_back(model_.register_operator_hook(where, [this](const OperatorCall& call) {
      if (call.output == nullptr || !call.output->isTensor()) return;
      const torch::Tensor& output = call.output->toTensor();
      ActivationCall event{call.site, call.op, output, false, nullptr, nullptr, {}, {}};
      dispatch_activation(event);
    }));
  }
}

LayerProbe::~LayerProbe() {
  for (const HookHandle h : handles_) {
    try {
      model_.remove_hook(h);
    } catch (...) {  // a destructor must not throw; the model is being torn down anyway
    }
  }
}

void LayerProbe::fail(WorkloadMetric& metric, const std::string& message) {
  failed_.push_back(&metric);
  if (on_failure_) on_failure_(metric, message);
}

void LayerProbe::dispatch_activation(const ActivationCall& call) {
  for (WorkloadMetric* m : activation_metrics_) {
    if (std::find(failed_.begin(), failed_.end(), m) != failed_.end()) continue;
    try {
      m->on_activation(call);
    } catch (const c10::Error& e) {
      fail(*m, fmt::format("layer '{}': {}", call.layer, e.what_without_backtrace()));
    } catch (const std::exception& e) {
      fail(*m, e.what());
    }
  }
}

void LayerProbe::dispatch_connection(const ConnectionCall& call) {
  for (WorkloadMetric* m : connection_metrics_) {
    if (std::find(failed_.begin(), failed_.end(), m) != failed_.end()) continue;
    try {
      m->on_connection(call);
    } catch (const c10::Error& e) {
      fail(*m, fmt::format("layer '{}' ({}): {}", call.layer, call.op, e.what_without_backtrace()));
    } catch (const std::exception& e) {
      fail(*m, e.what());
    }
  }
}

void LayerProbe::dispatch_operator(const OperatorCall& call) {
  dispatch_operator_to(operator_metrics_, call);
}

void LayerProbe::dispatch_operator_output(const OperatorCall& call) {
  dispatch_operator_to(operator_output_metrics_, call);
}

void LayerProbe::dispatch_operator_to(
    const std::vector<std::pair<WorkloadMetric*, std::vector<std::string>>>& metrics,
    const OperatorCall& call) {
  for (const auto& [m, ops] : metrics) {
    if (!contains(ops, call.op)) continue;
    if (std::find(failed_.begin(), failed_.end(), m) != failed_.end()) continue;
    try {
      m->on_operator(call);
    } catch (const c10::Error& e) {
      fail(*m, fmt::format("operator {} at '{}' ({}): {}", call.op, call.site,
                           call.module.type_name, e.what_without_backtrace()));
    } catch (const std::exception& e) {
      fail(*m, e.what());
    }
  }
}

}  // namespace neurobench::detail
