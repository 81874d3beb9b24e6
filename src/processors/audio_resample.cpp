// SPDX-License-Identifier: Apache-2.0
// The resampling pre-processor of NeuroBench's GSC ANN example (examples/gsc/benchmark_ann.py):
// `torchaudio.transforms.Resample(16000, 8000)` on `data.permute(0, 2, 1)`.
#include <neurobench/processors/audio.hpp>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "processors/audio_options.hpp"
#include "processors/via_cpu.hpp"
#include "util/text.hpp"

namespace neurobench::processors {

namespace {

const std::string kResampleContext = "pre-processor 'Resample'";

audio::ResampleOptions resample_options(const Json& given) {
  const Json options =
      neurobench::detail::complete_options(Resample::describe(), given, "pre-processor");
  audio::ResampleOptions o;
  o.orig_freq = audio_json::integer_option(options, "orig_freq", kResampleContext);
  o.new_freq = audio_json::integer_option(options, "new_freq", kResampleContext);
  o.lowpass_filter_width =
      audio_json::integer_option(options, "lowpass_filter_width", kResampleContext);
  o.rolloff = audio_json::number_option(options, "rolloff", kResampleContext);
  o.beta = audio_json::number_option(options, "beta", kResampleContext);
  const std::string method = options.at("resampling_method").get<std::string>();
  if (method == "sinc_interpolation") {
    o.method = audio::ResamplingMethod::SincInterpolation;
  } else if (method == "kaiser_window") {
    o.method = audio::ResamplingMethod::KaiserWindow;
  } else {
    throw UsageError(fmt::format(
        "{}: resampling_method must be \"sinc_interpolation\" or \"kaiser_window\", got \"{}\"",
        kResampleContext, neurobench::detail::printable(method, 60)));
  }
  o.validate(kResampleContext);
  return o;
}

}  // namespace

PluginDescription Resample::describe() {
  PluginDescription d;
  d.name = "Resample";
  d.description =
      "band-limited resampling (torchaudio's Resample): (batch, timesteps, channels) -> "
      "(batch, channels, new_timesteps)";
  d.options = {
      {"orig_freq", "integer", 16000, "sample rate of the input, Hz"},
      {"new_freq", "integer", 8000, "sample rate of the output, Hz"},
      {"lowpass_filter_width", "integer", 6, "zero crossings of the sinc on each side"},
      {"rolloff", "number", 0.99, "cut-off as a fraction of the lower Nyquist frequency, (0, 1]"},
      {"resampling_method", "string", "sinc_interpolation",
       "\"sinc_interpolation\" (Hann window) or \"kaiser_window\""},
      {"beta", "number", 14.769656459379492, "Kaiser window shape"},
  };
  return d;
}

Resample::Resample() : Resample(Json::object()) {}

Resample::Resample(const Json& options) : resampler_(resample_options(options)) {}

Batch Resample::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const torch::Tensor& data = batch.data;
  if (!data.defined() || data.dim() != 3) {
    throw InputError(fmt::format(
        "Resample: data must be (batch, timesteps, channels), got shape {}",
        data.defined() ? neurobench::detail::shape_string(data) : std::string("undefined")));
  }
  Batch out = batch;
  try {
    out.data = resampler_(data.permute({0, 2, 1}));
  } catch (const InputError& e) {
    throw InputError(std::string("Resample: ") + e.what());
  }
  return out;
}

}  // namespace neurobench::processors
