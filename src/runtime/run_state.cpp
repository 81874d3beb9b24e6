// SPDX-License-Identifier: Apache-2.0
#include "runtime/run_state.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/non_finite.hpp"
#include "util/text.hpp"

namespace neurobench::detail {

std::string what_of(const c10::Error& e) { return e.what_without_backtrace(); }

void RunState::fail(const std::string& metric, const std::string& message) {
  if (failed(metric)) return;
  const std::string text =
      message.rfind(metric, 0) == 0 ? message : fmt::format("{}: {}", metric, message);
  failed_.emplace(metric, text);
}

void RunState::unavailable(const std::string& metric, const std::string& reason) {
  const std::string text =
      reason.rfind(metric, 0) == 0 ? reason : fmt::format("{}: {}", metric, reason);
  results.values[metric] = nullptr;
  results.run["unavailable"][metric] = text;
  warn_once(text);
}

void RunState::warn_once(const std::string& warning) {
  auto& w = results.warnings;
  if (std::find(w.begin(), w.end(), warning) == w.end()) w.push_back(warning);
}

void RunState::finish() {
  for (auto& [name, value] : results.values.items()) {
    const auto it = failed_.find(name);
    if (it == failed_.end()) continue;
    value = nullptr;
    results.failures.push_back({name, it->second});
  }
  warn_non_finite();
}

void RunState::warn_non_finite() {
  constexpr std::size_t kShown = 8;  // values named in the warning of a metric of many
  for (const auto& [name, value] : results.values.items()) {
    const std::vector<NonFiniteValue> found = non_finite_values(value, name);
    if (found.empty()) continue;
    const char* const encoding =
        "written as \"NaN\", \"Infinity\" or \"-Infinity\" in JSON results (a failed metric is "
        "null) and listed in _run.non_finite";
    if (found.size() == 1 && found[0].key == name) {
      warn_once(fmt::format("metric '{}' is {}, not a finite number: {}", name,
                            non_finite_token(found[0].value), encoding));
      continue;
    }
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < found.size() && i < kShown; ++i) {
      shown.push_back(fmt::format("{} = {}", found[i].key, non_finite_token(found[i].value)));
    }
    const std::string more =
        found.size() > kShown ? fmt::format(" and {} more", found.size() - kShown) : "";
    warn_once(fmt::format("metric '{}' has {} value{} that {} not a finite number: {}{}; {}", name,
                          found.size(), found.size() == 1 ? "" : "s",
                          found.size() == 1 ? "is" : "are", fmt::join(shown, ", "), more,
                          encoding));
  }
}

namespace {

// `value` with every tensor it holds (in tuples and lists, at any depth) moved to `device`.
c10::IValue input_on(const c10::IValue& value, const c10::Device& device) {
  if (value.isTensor()) return value.toTensor().to(device);
  if (value.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const c10::IValue& e : value.toTupleRef().elements()) {
      elements.push_back(input_on(e, device));
    }
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  if (value.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : value.toTensorVector()) out.push_back(t.to(device));
    return out;
  }
  if (value.isList()) {
    c10::impl::GenericList out(value.toList().elementType());
    for (const c10::IValue& e : value.toList()) out.push_back(input_on(e, device));
    return out;
  }
  return value;
}

bool input_on_cpu(const c10::IValue& value) {
  if (value.isTensor()) return value.toTensor().device().is_cpu();
  if (value.isTuple()) {
    for (const c10::IValue& e : value.toTupleRef().elements()) {
      if (!input_on_cpu(e)) return false;
    }
  }
  if (value.isList()) {
    for (const c10::IValue& e : value.toList()) {
      if (!input_on_cpu(e)) return false;
    }
  }
  return true;
}

}  // namespace

Batch to_device(Batch batch, const c10::Device& device, std::size_t b) {
  if (device.is_cpu() && (!batch.data.defined() || batch.data.device().is_cpu()) &&
      (!batch.targets.defined() || batch.targets.device().is_cpu()) &&
      (!batch.input || input_on_cpu(*batch.input))) {
    return batch;
  }
  // The lazy device's views of tensors made outside inference mode fail inside it (the step-wise
  // forward selects each timestep there): its tensors are made in inference mode.
  std::optional<c10::InferenceMode> inference;
  if (device.type() == c10::DeviceType::Lazy) inference.emplace();
  try {
    if (batch.data.defined()) batch.data = batch.data.to(device);
    if (batch.targets.defined()) batch.targets = batch.targets.to(device);
    if (batch.input)
      batch.input = std::make_shared<const c10::IValue>(input_on(*batch.input, device));
  } catch (const c10::Error& e) {
    throw InputError(
        fmt::format("moving batch {} to {} failed: {}", b, device_text(device), what_of(e)));
  }
  return batch;
}

torch::Tensor infer(NeuroBenchModel& model, const Batch& batch) {
  return batch.input ? model.forward_input(*batch.input) : model.forward(batch.data);
}

void ready_model_for_batch(NeuroBenchModel& model, const Batch& batch, bool first, std::size_t b) {
  model.begin_batch();
  const auto found = batch.extras.find("starts_recording");
  if (found == batch.extras.end()) return;
  const torch::Tensor& starts = found->second;
  const int64_t slots = batch.data.defined() && batch.data.dim() > 0 ? batch.data.size(0) : -1;
  if (!starts.defined() || starts.scalar_type() != torch::kBool || starts.dim() != 1 ||
      (slots >= 0 && starts.size(0) != slots)) {
    throw InputError(fmt::format(
        "batch {}: extras['starts_recording'] must be a bool tensor of shape [{}] (one per "
        "slot), got {}",
        b, slots,
        starts.defined()
            ? fmt::format("{} {}", c10::toString(starts.scalar_type()), shape_string(starts))
            : std::string("an undefined tensor")));
  }
  model.reset_slots(first ? torch::ones_like(starts) : starts);
}

Batch pre_process(std::vector<std::unique_ptr<PreProcessor>>& pre, Batch batch, std::size_t b) {
  try {
    for (auto& p : pre) batch = (*p)(batch);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("pre-processing batch {} failed: {}", b, what_of(e)));
  }
  return batch;
}

torch::Tensor post_process(std::vector<std::unique_ptr<PostProcessor>>& post, torch::Tensor preds,
                           std::size_t b) {
  try {
    for (auto& p : post) preds = (*p)(preds);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("post-processing batch {} failed: {}", b, what_of(e)));
  }
  return preds;
}

void static_pass(const PassInput& in, const std::vector<std::unique_ptr<StaticMetric>>& metrics,
                 RunState& state) {
  if (!metrics.empty() && in.model.is_inlined()) {
    state.results.warnings.push_back(fmt::format(
        "{} is frozen: its weights are folded into graph constants, so static metrics see no "
        "parameters or connection layers",
        in.model.describe()));
  }
  for (const auto& metric : metrics) {
    const std::string name = metric->name();
    state.results.values[name] = nullptr;
    state.guard(name, [&] { state.results.values[name] = metric->compute(in.model, in.layers); });
  }
}

}  // namespace neurobench::detail
