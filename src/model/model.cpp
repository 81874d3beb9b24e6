// SPDX-License-Identifier: Apache-2.0
// What every NeuroBenchModel has by default: parameters and buffers gathered from its modules,
// and no hooks.
#include <neurobench/model/model.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

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

torch::Tensor NeuroBenchModel::forward_input(const c10::IValue& input) {
  if (input.isTensor()) return forward(input.toTensor());
  throw InputError(fmt::format(
      "{}: the batch's input is {}, not a tensor, and this model takes one tensor per batch",
      describe(), input.type()->annotation_str()));
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

void NeuroBenchModel::to(const c10::Device& device) {
  if (device.is_cpu()) return;
  throw UsageError(fmt::format(
      "{}: this model cannot be moved to {} (its class does not override NeuroBenchModel::to)",
      describe(), device.str()));
}

}  // namespace neurobench
