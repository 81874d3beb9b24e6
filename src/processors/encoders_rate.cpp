// SPDX-License-Identifier: Apache-2.0
// Rate coding as snnTorch's spikegen.rate (snntorch/spikegen.py, `rate` and `rate_conv`).
#include <neurobench/processors/encoders.hpp>

#include <cmath>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "util/array_budget.hpp"
#include "processors/encoder_input.hpp"
#include "processors/via_cpu.hpp"
#include "util/text.hpp"

namespace neurobench::processors {

namespace {

constexpr const char* kRateEncoder = "RateEncoder";

RateEncoderOptions rate_options_from_json(const Json& options) {
  // Complete already when the registry made them; direct callers get defaults and checks.
  const Json o = detail::complete_options(RateEncoder::describe(), options, "pre-processor");
  RateEncoderOptions r;
  r.num_steps = detail::integer_option(o, "num_steps", kRateEncoder);
  r.seed = detail::seed_option(o, "seed", kRateEncoder);
  r.gain = o.at("gain").get<double>();
  r.offset = o.at("offset").get<double>();
  r.first_spike_time = detail::integer_option(o, "first_spike_time", kRateEncoder);
  return r;
}

}  // namespace

void RateEncoderOptions::validate() const {
  detail::check_num_steps(num_steps, kRateEncoder);
  if (!std::isfinite(gain)) {
    throw UsageError(fmt::format("{}: gain is {}; expected a finite number", kRateEncoder, gain));
  }
  if (!std::isfinite(offset)) {
    throw UsageError(
        fmt::format("{}: offset is {}; expected a finite number", kRateEncoder, offset));
  }
  detail::check_first_spike_time(first_spike_time, num_steps, kRateEncoder);
}

RateEncoder::RateEncoder(RateEncoderOptions options)
    : options_(options),
      generator_((options_.validate(), at::make_generator<at::CPUGeneratorImpl>(options_.seed))) {}

RateEncoder::RateEncoder(const Json& options) : RateEncoder(rate_options_from_json(options)) {}

PluginDescription RateEncoder::describe() {
  PluginDescription d;
  d.name = kRateEncoder;
  d.description =
      "rate coding, snnTorch's spikegen.rate: (batch, features...) -> Bernoulli spikes "
      "(batch, num_steps, features...), probability clamp(data * gain + offset, 0, 1)";
  d.options = {
      {"num_steps", "integer", nullptr, "timesteps drawn per sample, 1 to 1000000"},
      {"seed", "integer", 0, "seeds the encoder's generator once, as torch.manual_seed(seed)"},
      {"gain", "number", 1.0, "scales the data before clamping to [0, 1]"},
      {"offset", "number", 0.0, "added to the scaled data before clamping"},
      {"first_spike_time", "integer", 0, "timesteps before it are silent, 0 to num_steps - 1"},
  };
  return d;
}

Batch RateEncoder::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const torch::Tensor x = detail::encoder_input(batch.data, kRateEncoder, 1, "(batch, features...)",
                                                detail::Infinities::Allowed);
  Batch out = batch;
  try {
    // spikegen.rate: data.repeat((num_steps, 1, ...)) * gain + offset, time first.
    // NaN data are refused above and offset is finite: infinity times a gain of 0 is the one
    // NaN probability left (at::bernoulli would refuse it).
    if (options_.gain == 0.0 && torch::isinf(x).any().item<bool>()) {
      throw InputError(
          fmt::format("{}: data of shape {} holds infinite values and gain is 0: "
                      "their probability, inf * 0 + offset, is NaN",
                      kRateEncoder, detail::shape_string(x)));
    }
    // The repeated data, its clamp and the draws: three tensors of num_steps times the data.
    neurobench::detail::check_memory_for(
        3.0 * static_cast<double>(x.numel()) * static_cast<double>(options_.num_steps) *
            static_cast<double>(x.element_size()),
        fmt::format("{}: num_steps {} on data of shape {}", kRateEncoder, options_.num_steps,
                    detail::shape_string(x)));
    std::vector<int64_t> repeats(static_cast<std::size_t>(x.dim()) + 1, 1);
    repeats[0] = options_.num_steps;
    const torch::Tensor time_data = x.repeat(repeats) * options_.gain + options_.offset;
    // rate_conv: Bernoulli draws of clamp(time_data, 0, 1), in the order of the time-first
    // tensor, from this encoder's generator.
    torch::Tensor spikes = at::bernoulli(torch::clamp(time_data, 0, 1), generator_);
    if (options_.first_spike_time > 0) {
      spikes.narrow(0, 0, options_.first_spike_time).zero_();
    }
    out.data = detail::batch_first(spikes);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: data of shape {}: {}", kRateEncoder,
                                 detail::shape_string(batch.data), e.what_without_backtrace()));
  }
  return out;
}

}  // namespace neurobench::processors
