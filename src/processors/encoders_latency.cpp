// SPDX-License-Identifier: Apache-2.0
// Latency coding as snnTorch's spikegen.latency (snntorch/spikegen.py: `latency`,
// `latency_code`, `latency_code_linear`, `latency_code_log`, `_latency_errors`), with the same
// tensor operations in the same order so that the spike times, and so the spikes, are equal.
#include <neurobench/processors/encoders.hpp>

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "util/array_budget.hpp"
#include "processors/encoder_input.hpp"
#include "processors/via_cpu.hpp"
#include "util/text.hpp"

namespace neurobench::processors {

namespace {

constexpr const char* kLatencyEncoder = "LatencyEncoder";

LatencyEncoderOptions latency_options_from_json(const Json& options) {
  // Complete already when the registry made them; direct callers get defaults and checks.
  const Json o = detail::complete_options(LatencyEncoder::describe(), options, "pre-processor");
  LatencyEncoderOptions r;
  r.num_steps = detail::integer_option(o, "num_steps", kLatencyEncoder);
  r.threshold = o.at("threshold").get<double>();
  r.tau = o.at("tau").get<double>();
  r.linear = o.at("linear").get<bool>();
  r.normalize = o.at("normalize").get<bool>();
  r.clip = o.at("clip").get<bool>();
  r.first_spike_time = detail::integer_option(o, "first_spike_time", kLatencyEncoder);
  r.bypass = o.at("bypass").get<bool>();
  r.epsilon = o.at("epsilon").get<double>();
  return r;
}

// latency_code_linear. With normalize, snnTorch replaces tau by num_steps - 1 -
// first_spike_time. (Its rescaling of negative spike times cannot happen: data lie in [0, 1].)
torch::Tensor linear_times(const torch::Tensor& x, const LatencyEncoderOptions& o) {
  const double tau =
      o.normalize ? static_cast<double>(o.num_steps - 1 - o.first_spike_time) : o.tau;
  // Python: torch.clamp_max(-tau * (data - 1), -tau * (threshold - 1)) + first_spike_time; the
  // bound is computed in double, as Python does, and rounded to the data's type by clamp_max.
  return torch::clamp_max((x - 1) * (-tau), -tau * (o.threshold - 1)) + o.first_spike_time;
}

// latency_code_log.
torch::Tensor log_times(const torch::Tensor& x, const LatencyEncoderOptions& o) {
  // Python: data = torch.clamp(data, threshold + epsilon); tau * torch.log(data / (data -
  // threshold)); threshold + epsilon in double, as Python adds them.
  const torch::Tensor data = torch::clamp(x, o.threshold + o.epsilon);
  torch::Tensor spike_time = torch::log(data / (data - o.threshold)) * o.tau;
  if (o.first_spike_time > 0) spike_time += o.first_spike_time;
  if (o.normalize) {
    const int64_t fst = o.first_spike_time;
    spike_time = (spike_time - fst) * (o.num_steps - fst - 1) / torch::max(spike_time - fst) + fst;
  }
  return spike_time;
}

}  // namespace

void LatencyEncoderOptions::validate() const {
  detail::check_num_steps(num_steps, kLatencyEncoder);
  // snnTorch: threshold in [0, 1] (latency), then in (0, 1) (_latency_errors).
  if (!(threshold > 0 && threshold < 1)) {
    throw UsageError(fmt::format("{}: threshold is {}; expected a number above 0 and below 1",
                                 kLatencyEncoder, threshold));
  }
  if (!(tau > 0) || !std::isfinite(tau)) {
    throw UsageError(
        fmt::format("{}: tau is {}; expected a finite number above 0", kLatencyEncoder, tau));
  }
  detail::check_first_spike_time(first_spike_time, num_steps, kLatencyEncoder);
  // snnTorch takes any epsilon; 0 or less puts values at the threshold at an infinite time.
  if (!(epsilon > 0) || !std::isfinite(epsilon)) {
    throw UsageError(fmt::format("{}: epsilon is {}; expected a finite number above 0",
                                 kLatencyEncoder, epsilon));
  }
}

LatencyEncoder::LatencyEncoder(LatencyEncoderOptions options) : options_(options) {
  options_.validate();
}

LatencyEncoder::LatencyEncoder(const Json& options)
    : LatencyEncoder(latency_options_from_json(options)) {}

PluginDescription LatencyEncoder::describe() {
  PluginDescription d;
  d.name = kLatencyEncoder;
  d.description =
      "latency coding, snnTorch's spikegen.latency: data in [0, 1] (batch, features...) -> one "
      "spike per value (batch, num_steps, features...), larger values earlier";
  d.options = {
      {"num_steps", "integer", nullptr, "timesteps per sample, 1 to 1000000"},
      {"threshold", "number", 0.01, "values below it fire last (or never, with clip); in (0, 1)"},
      {"tau", "number", 1.0, "time constant, above 0 (linear with normalize ignores it)"},
      {"linear", "boolean", false, "linear code instead of the logarithmic (RC) one"},
      {"normalize", "boolean", false, "stretch the spike times to end at num_steps - 1"},
      {"clip", "boolean", false, "no spike for values below threshold"},
      {"first_spike_time", "integer", 0, "earliest spike time, 0 to num_steps - 1"},
      {"bypass", "boolean", false, "drop spikes after num_steps - 1 instead of an error"},
      {"epsilon", "number", 1e-7, "log code: values are clamped to threshold + epsilon; above 0"},
  };
  return d;
}

Batch LatencyEncoder::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const LatencyEncoderOptions& o = options_;
  // Infinities are allowed here so that the range check below names them.
  const torch::Tensor x = detail::encoder_input(
      batch.data, kLatencyEncoder, 1, "(batch, features...)", detail::Infinities::Allowed);
  std::vector<int64_t> time_first{o.num_steps};
  time_first.insert(time_first.end(), x.sizes().begin(), x.sizes().end());
  // The spikes, num_steps times the data, and their scatter's one-hot: twice that.
  neurobench::detail::check_memory_for(
      2.0 * static_cast<double>(x.numel()) * static_cast<double>(o.num_steps) *
          static_cast<double>(x.element_size()),
      fmt::format("{}: num_steps {} on data of shape {}", kLatencyEncoder, o.num_steps,
                  detail::shape_string(x)));
  Batch out = batch;
  try {
    if (x.numel() == 0) {
      out.data = detail::batch_first(torch::zeros(time_first, torch::kFloat));
      return out;
    }
    const double lowest = x.min().item<double>();
    const double highest = x.max().item<double>();
    if (lowest < 0 || highest > 1) {
      throw InputError(
          fmt::format("{}: data must lie in [0, 1], found values from {} to {} "
                      "(shape {})",
                      kLatencyEncoder, lowest, highest, detail::shape_string(x)));
    }
    const torch::Tensor below = x < o.threshold;  // latency_code's idx
    const torch::Tensor spike_time = o.linear ? linear_times(x, o) : log_times(x, o);
    const double latest = torch::max(spike_time).item<double>();
    if (!std::isfinite(latest)) {
      throw InputError(fmt::format(
          "{}: the spike times of data of shape {} are not all finite (the latest is {}): "
          "with threshold {}, epsilon {} and tau {} in {} some values cannot be placed in time{}",
          kLatencyEncoder, detail::shape_string(x), latest, o.threshold, o.epsilon, o.tau,
          c10::toString(x.scalar_type()),
          o.normalize ? " (normalize divides by the latest spike time)" : ""));
    }
    const int64_t last_step = o.num_steps - 1;
    // Python: torch.round(torch.max(spike_time)).long() > num_steps - 1 (round half to even).
    const double latest_step = std::nearbyint(latest);
    if (latest_step > static_cast<double>(last_step) && !o.bypass) {
      throw InputError(fmt::format(
          "{}: the latest spike time, {}, falls on step {}, after num_steps - 1 = {}; raise "
          "num_steps, lower tau, set normalize, or set bypass to drop the late spikes",
          kLatencyEncoder, latest, latest_step, last_step));
    }
    // Spikes past the last step are removed (rm_idx), the others scattered at round(time).
    // Compared as floats rather than after .long(), which is the same for times that fit in
    // int64 and right for those that do not.
    const torch::Tensor late = torch::round(spike_time) > static_cast<double>(last_step);
    const torch::Tensor steps =
        torch::round(torch::clamp_max(spike_time, last_step)).to(torch::kLong).unsqueeze(0);
    torch::Tensor spikes =
        torch::zeros(time_first, torch::kFloat).scatter(0, steps, 1.0) * late.logical_not();
    if (o.clip) spikes = spikes * below.logical_not();
    out.data = detail::batch_first(spikes);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: data of shape {}: {}", kLatencyEncoder,
                                 detail::shape_string(batch.data), e.what_without_backtrace()));
  }
  return out;
}

}  // namespace neurobench::processors
