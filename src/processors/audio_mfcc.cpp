// SPDX-License-Identifier: Apache-2.0
// NeuroBench's MFCCPreProcessor (neurobench/processors/preprocessors/mfcc.py): torchaudio's
// MFCC after NeuroBench's layout handling.
#include <neurobench/processors/audio.hpp>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "processors/audio_options.hpp"
#include "processors/via_cpu.hpp"
#include "util/text.hpp"

namespace neurobench::processors {

namespace {

const std::string kMfccContext = "pre-processor 'MFCCPreProcessor'";

audio::MfccOptions mfcc_options(const Json& given) {
  const Json options =
      neurobench::detail::complete_options(MFCCPreProcessor::describe(), given, "pre-processor");
  audio::MfccOptions o;
  const int64_t sample_rate = audio_json::integer_option(options, "sample_rate", kMfccContext);
  o.n_mfcc = audio_json::integer_option(options, "n_mfcc", kMfccContext);
  if (const int64_t dct_type = audio_json::integer_option(options, "dct_type", kMfccContext);
      dct_type != 2) {
    throw UsageError(
        fmt::format("{}: dct_type must be 2 (the only DCT torchaudio's MFCC has), "
                    "got {}",
                    kMfccContext, dct_type));
  }
  const Json& norm = options.at("norm");
  if (norm.is_null()) {
    o.norm = audio::DctNorm::None;
  } else if (norm == "ortho") {
    o.norm = audio::DctNorm::Ortho;
  } else {
    throw UsageError(fmt::format("{}: norm must be \"ortho\" or null, got {}", kMfccContext,
                                 neurobench::detail::json_excerpt(norm)));
  }
  o.log_mels = options.at("log_mels").get<bool>();
  o.mel = audio_json::mel_options_from_json(options.at("melkwargs"), sample_rate, kMfccContext);
  o.validate(kMfccContext);
  return o;
}

}  // namespace

PluginDescription MFCCPreProcessor::describe() {
  PluginDescription d;
  d.name = "MFCCPreProcessor";
  d.description =
      "MFCC (torchaudio's): audio (batch, timesteps, channels) -> (batch, channels, n_mfcc, "
      "frames); (batch, timesteps) -> (batch, n_mfcc, frames)";
  d.options = {
      {"sample_rate", "integer", 16000, "Hz"},
      {"n_mfcc", "integer", 40, "coefficients kept, at most the mel bands"},
      {"dct_type", "integer", 2, "DCT type; only 2"},
      {"norm", "", "ortho", "DCT scaling: \"ortho\" or null"},
      {"log_mels", "boolean", false, "log(mel + 1e-6) instead of decibels (top_db 80)"},
      {"melkwargs", "object", Json::object(),
       "torchaudio MelSpectrogram arguments: n_fft, win_length, hop_length, f_min, f_max, pad, "
       "n_mels, power, normalized, center, pad_mode, onesided, norm, mel_scale"},
  };
  return d;
}

MFCCPreProcessor::MFCCPreProcessor() : MFCCPreProcessor(Json::object()) {}

MFCCPreProcessor::MFCCPreProcessor(const Json& options) : mfcc_(mfcc_options(options)) {}

Batch MFCCPreProcessor::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const torch::Tensor& data = batch.data;
  torch::Tensor waveform;
  if (data.defined() && data.dim() == 3) {
    waveform = data.permute({0, 2, 1});  // (batch, timesteps, channels) -> (batch, channels, ...)
  } else if (data.defined() && data.dim() == 2) {
    waveform = data;  // NeuroBench's `data.permute(1, 0)` here discards its result
  } else {
    throw InputError(fmt::format(
        "MFCCPreProcessor: data must be (batch, timesteps, channels) or (batch, timesteps), got "
        "shape {}",
        data.defined() ? neurobench::detail::shape_string(data) : std::string("undefined")));
  }
  Batch out = batch;
  try {
    out.data = mfcc_(waveform);
  } catch (const InputError& e) {
    throw InputError(std::string("MFCCPreProcessor: ") + e.what());
  }
  return out;
}

}  // namespace neurobench::processors
