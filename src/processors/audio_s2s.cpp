// SPDX-License-Identifier: Apache-2.0
// Speech2Spikes as NeuroBench runs it, written from NeuroBench's description and the paper
// (Stewart et al., NICE 2023); its reference code is under a non-commercial licence and was not
// used.
#include <neurobench/processors/audio.hpp>

#include <cmath>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/processors/encoders.hpp>
#include <neurobench/errors.hpp>

#include "processors/audio_options.hpp"
#include "processors/via_cpu.hpp"
#include "util/text.hpp"

namespace neurobench::processors {

namespace {

const std::string kS2SContext = "pre-processor 'S2SPreProcessor'";

Json complete(const Json& options) {
  return neurobench::detail::complete_options(S2SPreProcessor::describe(), options,
                                              "pre-processor");
}

// The mel spectrogram of the S2S paper and NeuroBench: torchaudio's MelSpectrogram defaults but
// for the options (Hann window of n_fft, centred with reflect padding, power 2, HTK, no norm).
audio::MelSpectrogramOptions mel_options(const Json& options) {
  audio::MelSpectrogramOptions o;
  o.mel.sample_rate = audio_json::integer_option(options, "sample_rate", kS2SContext);
  o.spectrogram.n_fft = audio_json::integer_option(options, "n_fft", kS2SContext);
  o.spectrogram.hop_length = audio_json::integer_option(options, "hop_length", kS2SContext);
  o.mel.n_mels = audio_json::integer_option(options, "n_mels", kS2SContext);
  o.mel.f_min = audio_json::number_option(options, "f_min", kS2SContext);
  o.mel.f_max = audio_json::number_option(options, "f_max", kS2SContext);
  o.validate(kS2SContext);
  return o;
}

}  // namespace

PluginDescription S2SPreProcessor::describe() {
  PluginDescription d;
  d.name = "S2SPreProcessor";
  d.description =
      "Speech2Spikes: audio (batch, samples, 1) -> log mel spectrogram -> delta-modulated "
      "events (batch, frames, n_mels) in {-1, 0, 1}";
  d.options = {
      {"threshold", "number", 1.0, "delta modulation step, above 0"},
      {"sample_rate", "integer", 16000, "Hz"},
      {"n_fft", "integer", 512, "FFT size (and Hann window length)"},
      {"hop_length", "integer", 80, "samples between frames"},
      {"n_mels", "integer", 20, "mel bands"},
      {"f_min", "number", 20.0, "lowest mel frequency, Hz"},
      {"f_max", "number", 4000.0, "highest mel frequency, Hz"},
  };
  return d;
}

S2SPreProcessor::S2SPreProcessor() : S2SPreProcessor(Json::object()) {}

S2SPreProcessor::S2SPreProcessor(const Json& options) : mel_(mel_options(complete(options))) {
  const Json all = complete(options);
  threshold_ = audio_json::number_option(all, "threshold", kS2SContext);
  if (!(threshold_ > 0) || !std::isfinite(threshold_)) {
    throw UsageError(
        fmt::format("{}: threshold must be finite and above 0, got {}", kS2SContext, threshold_));
  }
  const auto& o = mel_.options();
  // One second of audio gives sample_rate / hop_length + 1 centred frames; S2S keeps
  // sample_rate / hop_length of them (integer division).
  frames_to_drop_at_ = o.mel.sample_rate / o.spectrogram.hop() + 1;
}

Batch S2SPreProcessor::operator()(const Batch& batch) {
  // On a device: computed on the CPU, handed back on the device (via_cpu.hpp).
  if (batch.data.defined() && !batch.data.device().is_cpu()) {
    return neurobench::detail::via_cpu(batch, [this](const Batch& b) { return (*this)(b); });
  }
  const torch::Tensor& data = batch.data;
  torch::Tensor clips;
  if (data.defined() && data.dim() == 3 && data.size(2) == 1) {
    clips = data.select(2, 0);  // NeuroBench's (batch, 1, samples), channel dropped
  } else if (data.defined() && data.dim() == 2) {
    clips = data;
  } else {
    throw InputError(fmt::format(
        "S2SPreProcessor: data must be mono audio (batch, samples, 1) or (batch, samples), got "
        "shape {}",
        data.defined() ? neurobench::detail::shape_string(data) : std::string("undefined")));
  }
  torch::Tensor mel;
  try {
    mel = mel_(clips);  // (batch, n_mels, frames)
  } catch (const InputError& e) {
    throw InputError(std::string("S2SPreProcessor: ") + e.what());
  }
  // The mel spectrogram is laid out (batch, frames, n_mels) in memory, the output's layout:
  // the log in place, and the delta modulation along frames on that view, without copies.
  torch::Tensor log_mel = mel.transpose(1, 2);
  log_mel.add_(1e-6).log_();
  torch::Tensor events = delta_modulate(log_mel, threshold_, 1);
  if (events.size(1) == frames_to_drop_at_) events = events.narrow(1, 1, events.size(1) - 1);
  Batch out = batch;
  out.data = events.contiguous();  // (batch, frames, n_mels)
  return out;
}

}  // namespace neurobench::processors
