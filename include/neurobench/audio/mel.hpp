// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <ATen/core/Tensor.h>

#include <neurobench/audio/spectrogram.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::audio {

/// The mel scale (torchaudio's `mel_scale`).
enum class MelScale {
  Htk,     ///< "htk": `mel = 2595 log10(1 + f / 700)`.
  Slaney,  ///< "slaney": linear below 1 kHz (`f / (200/3)`), logarithmic above.
};

/// How the triangular filters are scaled (torchaudio's `norm`).
enum class MelNorm {
  None,    ///< Peak 1 (at most: a peak between two frequency bins is lower).
  Slaney,  ///< "slaney": each filter divided by half its width in Hz, `2 / (f[m+2] - f[m])`.
};

/// Settings of a mel filter bank, with torchaudio's `MelScale` defaults.
struct MelScaleOptions {
  int64_t n_mels = 128;         ///< Filters, 1..65536.
  int64_t sample_rate = 16000;  ///< Hz; >= 1. The frequency bins span 0..sample_rate / 2.
  double f_min = 0.0;           ///< Lowest edge of the first filter, Hz; >= 0.
  /// Highest edge of the last filter, Hz; > f_min. Unset: `sample_rate / 2` (integer division,
  /// as torchaudio's `float(sample_rate // 2)`).
  std::optional<double> f_max;
  MelNorm norm = MelNorm::None;        ///< Filter scaling.
  MelScale mel_scale = MelScale::Htk;  ///< Mel scale.

  /// `f_max`, or `sample_rate / 2` (integer division) when unset.
  [[nodiscard]] double max_frequency() const;
  /// Throws UsageError naming the field when an option is invalid; messages start with
  /// `context`.
  void validate(std::string_view context = "MelScaleOptions") const;
};

/// Hz to mels on `scale`, in double precision (torchaudio's `_hz_to_mel`).
[[nodiscard]] double hz_to_mel(double hz, MelScale scale);

/// The triangular mel filter bank `(n_freqs, n_mels)` float32 of
/// `torchaudio.functional.melscale_fbanks`, computed in the same float32 operations: `n_freqs`
/// bins at `linspace(0, sample_rate / 2, n_freqs)`, `n_mels + 2` points equally spaced in mels
/// from f_min to f_max converted back to Hz, filter m rising from point m to m + 1 and falling
/// to m + 2 (formula in docs/audio.md). Throws UsageError for invalid options, n_freqs < 1 or
/// more than 2^26 weights.
[[nodiscard]] at::Tensor mel_filter_bank(int64_t n_freqs, const MelScaleOptions& options);

/// Settings of a mel spectrogram (torchaudio's `MelSpectrogram`): a spectrogram, then the mel
/// filter bank. Defaults: n_fft 400, hop 200, Hann window, centred with reflect padding, power
/// 2, 128 HTK mels from 0 Hz to sample_rate / 2, no filter normalisation.
struct MelSpectrogramOptions {
  SpectrogramOptions spectrogram;  ///< The spectrogram (must be onesided).
  MelScaleOptions mel;             ///< The filter bank.

  /// Throws UsageError naming the field when an option is invalid (both parts, a spectrogram
  /// that is not onesided, a filter bank of more than 2^26 weights); messages start with
  /// `context`.
  void validate(std::string_view context = "MelSpectrogramOptions") const;
};

/// A mel spectrogram with its window and filter bank made once (torchaudio's
/// `MelSpectrogram`).
///
/// ```cpp
/// neurobench::audio::MelSpectrogramOptions options;
/// options.spectrogram.n_fft = 512;
/// options.spectrogram.hop_length = 80;
/// options.mel.n_mels = 20;
/// neurobench::audio::MelSpectrogram mel(options);
/// at::Tensor m = mel(waveforms);  // (batch, 16000) -> (batch, 20, 201)
/// ```
class MelSpectrogram {
 public:
  /// Checks the options (UsageError) and makes the window and the filter bank.
  explicit MelSpectrogram(MelSpectrogramOptions options = {});
  /// The mel spectrogram of `waveform` `(..., time)`: `(..., n_mels, frames)` float32, the
  /// spectrogram's `(..., freq, frames)` times the filter bank as torchaudio's `MelScale`
  /// multiplies them. Throws as audio::spectrogram().
  [[nodiscard]] at::Tensor operator()(const at::Tensor& waveform) const;
  /// The settings.
  [[nodiscard]] const MelSpectrogramOptions& options() const { return options_; }
  /// The filter bank, `(n_freqs, n_mels)` float32.
  [[nodiscard]] const at::Tensor& filter_bank() const { return filter_bank_; }

 private:
  MelSpectrogramOptions options_;
  Spectrogram spectrogram_;
  at::Tensor filter_bank_;
};

/// The mel spectrogram of `waveform` `(..., time)`: `(..., n_mels, frames)` float32 (see
/// MelSpectrogram; it makes the window and filter bank on every call).
[[nodiscard]] at::Tensor mel_spectrogram(const at::Tensor& waveform,
                                         const MelSpectrogramOptions& options = {});

}  // namespace neurobench::audio
NEUROBENCH_API_END
