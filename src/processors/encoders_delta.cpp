// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/encoders.hpp>

#include <cmath>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "processors/encoder_input.hpp"
#include "processors/via_cpu.hpp"

namespace neurobench::processors {

namespace {
constexpr const char* kDeltaEncoder = "DeltaEncoder";

DeltaEncoderOptions delta_options_from_json(const Json& options) {
  // Complete already when the registry made them; direct callers get defaults and checks.
  const Json o = detail::complete_options(DeltaEncoder::describe(), options, "pre-processor");
  return DeltaEncoderOptions{o.at("threshold").get<double>(), o.at("off_spikes").get<bool>()};
}

}  // namespace

void DeltaEncoderOptions::validate() const {
  if (!std::isfinite(threshold) || threshold <= 0) {
    throw UsageError(fmt::format("{}: threshold is {}; expected a finite number above 0",
                                 kDeltaEncoder, threshold));
  }
}

DeltaEncoder::DeltaEncoder() : DeltaEncoder(DeltaEncoderOptions{}) {}

DeltaEncoder::DeltaEncoder(DeltaEncoderOptions options) : options_(options) { options_.validate(); }

DeltaEncoder::DeltaEncoder(const Json& options) : DeltaEncoder(delta_options_from_json(options)) {}

PluginDescription DeltaEncoder::describe() {
  PluginDescription d;
  d.name = kDeltaEncoder;
  d.description =
      "delta modulation along the timesteps (Speech2Spikes): (batch, timesteps, features...) -> "
      "events in {-1, 0, 1}, same shape";
  d.options = {
      {"threshold", "number", 1.0, "level step: an event when value - level passes +-threshold"},
      {"off_spikes", "boolean", true, "emit -1 for a fall (false: only +1 events)"},
  };
  return d;
}

Batch DeltaEncoder::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const torch::Tensor x = detail::encoder_input(
      batch.data, kDeltaEncoder, 2, "(batch, timesteps, features...)", detail::Infinities::Refused);
  Batch out = batch;
  try {
    out.data = delta_modulate(x, options_.threshold, 1);
    if (!options_.off_spikes) out.data = out.data.clamp_min(0);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: {}", kDeltaEncoder, e.what_without_backtrace()));
  }
  return out;
}

}  // namespace neurobench::processors
