// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>

#include <neurobench/audio/mel.hpp>
#include <neurobench/audio/mfcc.hpp>
#include <neurobench/audio/resample.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>
#include <neurobench/processors/processors.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::processors {

/// Speech2Spikes as NeuroBench runs it on Speech Commands (Stewart et al., NICE 2023): audio
/// to spike events, built from the paper and NeuroBench's description (docs/audio.md).
///
/// `data` `(batch, samples, 1)` (or `(batch, samples)`) becomes `(batch, frames, n_mels)`
/// float32 in {-1, 0, 1}: the mel spectrogram of each clip (torchaudio's `MelSpectrogram` with
/// the options below, Hann window of n_fft, centred with reflect padding, power 2, HTK mels,
/// no filter normalisation), `log(mel + 1e-6)`, then delta_modulate()
/// (`processors/encoders.hpp`) along time with `threshold`. When there are `sample_rate / hop_length + 1` frames (201 for 16,000 samples)
/// the first frame is dropped (200). Targets pass through. Throws InputError naming the shape
/// for any other layout, a non-floating input, or clips too short for the padding.
///
/// Options (JSON): threshold 1.0, sample_rate 16000, n_fft 512, hop_length 80, n_mels 20,
/// f_min 20, f_max 4000.
class S2SPreProcessor final : public PreProcessor {
 public:
  /// NeuroBench's settings.
  S2SPreProcessor();
  /// From complete options (as Registry::create passes them); throws UsageError naming the
  /// option when one is invalid.
  explicit S2SPreProcessor(const Json& options);
  /// The events of `batch.data`; see the class.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// Name, one line and options, for the registry.
  [[nodiscard]] static PluginDescription describe();

 private:
  double threshold_ = 1.0;
  int64_t frames_to_drop_at_ = 201;  // frame count that makes the first frame go
  audio::MelSpectrogram mel_;
};

/// NeuroBench's `MFCCPreProcessor`: torchaudio's `MFCC` on the batch.
///
/// A 3-d `data` `(batch, timesteps, channels)` is permuted to `(batch, channels, timesteps)`
/// and gives `(batch, channels, n_mfcc, frames)`, the decibel floor (top_db 80) per clip. A
/// 2-d `(batch, timesteps)` is used as it is (NeuroBench's permute there has no effect) and
/// gives `(batch, n_mfcc, frames)`, with the decibel floor taken over the whole batch, as
/// torchaudio does for 3-d input. Targets pass through. Throws InputError naming the shape for
/// other ranks, a non-floating input or clips too short for the padding.
///
/// Options (JSON): sample_rate 16000, n_mfcc 40, dct_type 2 (the only one), norm "ortho" (or
/// null), log_mels false, melkwargs {} (torchaudio `MelSpectrogram` keyword arguments: n_fft,
/// win_length, hop_length, f_min, f_max, pad, n_mels, power, normalized, center, pad_mode,
/// onesided, norm, mel_scale).
class MFCCPreProcessor final : public PreProcessor {
 public:
  /// NeuroBench's settings.
  MFCCPreProcessor();
  /// From complete options (as Registry::create passes them); throws UsageError naming the
  /// option (or the melkwargs key) at fault.
  explicit MFCCPreProcessor(const Json& options);
  /// The coefficients of `batch.data`; see the class.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// Name, one line and options, for the registry.
  [[nodiscard]] static PluginDescription describe();

 private:
  audio::Mfcc mfcc_;
};

/// The resampling pre-processor of NeuroBench's GSC ANN example
/// (`torchaudio.transforms.Resample(16000, 8000)` after `permute(0, 2, 1)`).
///
/// `data` `(batch, timesteps, channels)` becomes `(batch, channels, new_timesteps)` float32,
/// `new_timesteps = ceil(new_freq * timesteps / orig_freq)`. Targets pass through. Throws
/// InputError naming the shape for other ranks or a non-floating input.
///
/// Options (JSON): orig_freq 16000, new_freq 8000, lowpass_filter_width 6, rolloff 0.99,
/// resampling_method "sinc_interpolation" (or "kaiser_window"), beta 14.769656459379492.
class Resample final : public PreProcessor {
 public:
  /// NeuroBench's settings.
  Resample();
  /// From complete options (as Registry::create passes them); throws UsageError naming the
  /// option when one is invalid.
  explicit Resample(const Json& options);
  /// The resampled batch; see the class.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// Name, one line and options, for the registry.
  [[nodiscard]] static PluginDescription describe();

 private:
  audio::Resampler resampler_;
};

}  // namespace neurobench::processors
NEUROBENCH_API_END
