// SPDX-License-Identifier: Apache-2.0
// torchaudio.transforms.MFCC: mel spectrogram, decibels (top_db 80) or log, then the DCT.
#include <neurobench/audio/mfcc.hpp>

#include <fmt/format.h>

#include "audio/checks.hpp"
#include "audio/in_place.hpp"

namespace neurobench::audio {

namespace {

// torchaudio's MFCC: AmplitudeToDB("power", top_db=80), whose db_multiplier is
// log10(max(amin, ref_value = 1)) = 0.
AmplitudeToDbOptions mfcc_decibels() {
  AmplitudeToDbOptions o;
  o.top_db = 80.0;
  return o;
}

MfccOptions validated(MfccOptions options) {
  options.validate();
  return options;
}

}  // namespace

void MfccOptions::validate(std::string_view context) const {
  mel.validate(context);
  if (n_mfcc < 1 || n_mfcc > mel.mel.n_mels) {
    detail::bad_option(context, "n_mfcc", fmt::format("between 1 and n_mels = {}", mel.mel.n_mels),
                       n_mfcc);
  }
}

Mfcc::Mfcc(MfccOptions options)
    : options_(validated(std::move(options))),
      mel_(options_.mel),
      dct_(dct_matrix(options_.n_mfcc, options_.mel.mel.n_mels, options_.norm)) {}

torch::Tensor Mfcc::operator()(const torch::Tensor& waveform) const {
  // The mel spectrogram is ours: log or decibels in place.
  torch::Tensor mel = mel_(waveform);
  if (options_.log_mels) {
    mel.add_(1e-6).log_();
  } else {
    mel = detail::amplitude_to_db_in_place(mel, mfcc_decibels());
  }
  // (..., time, n_mels) @ (n_mels, n_mfcc), back to (..., n_mfcc, time).
  return torch::matmul(mel.transpose(-1, -2), dct_).transpose(-1, -2);
}

torch::Tensor mfcc(const torch::Tensor& waveform, const MfccOptions& options) {
  return Mfcc(options)(waveform);
}

}  // namespace neurobench::audio
