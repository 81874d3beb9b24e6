// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <ATen/core/Tensor.h>

#include <neurobench/audio/mel.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::audio {

/// Settings of the conversion to decibels (`torchaudio.functional.amplitude_to_DB`), with the
/// values torchaudio's `AmplitudeToDB("power")` uses.
struct AmplitudeToDbOptions {
  double multiplier = 10.0;    ///< 10 for power, 20 for magnitude; finite.
  double amin = 1e-10;         ///< Values are clamped to at least this before the log; > 0.
  double db_multiplier = 0.0;  ///< `log10(max(amin, reference))`, subtracted times multiplier.
  /// When set (>= 0): values below (maximum - top_db) are raised to it, the maximum taken over
  /// the last three dimensions (see amplitude_to_db()).
  std::optional<double> top_db;

  /// Throws UsageError naming the field when an option is invalid; messages start with
  /// `context`.
  void validate(std::string_view context = "AmplitudeToDbOptions") const;
};

/// `multiplier * log10(max(x, amin)) - multiplier * db_multiplier`, then, with top_db, every
/// value at least (maximum - top_db). float32 in, float32 out, same shape.
///
/// The maximum is torchaudio 0.13's: the input is packed as
/// `(-1, shape[-3], shape[-2], shape[-1])` and the maximum taken per packed item, so over the
/// last three dimensions. For a 4-d `(batch, channel, freq, time)` that is per batch item; for
/// a 3-d `(batch, freq, time)` it is over the whole batch (each clip's floor depends on the
/// loudest clip of its batch); for 2-d over everything. Throws UsageError for invalid options,
/// InputError for a non-floating input.
[[nodiscard]] at::Tensor amplitude_to_db(const at::Tensor& x,
                                         const AmplitudeToDbOptions& options = {});

/// Scaling of the DCT matrix (torchaudio's `norm` of `create_dct`).
enum class DctNorm {
  None,   ///< Every entry times 2.
  Ortho,  ///< "ortho": orthonormal, row 0 times sqrt(1 / n_mels), the others sqrt(2 / n_mels).
};

/// The DCT-II matrix `(n_mels, n_mfcc)` float32 of `torchaudio.functional.create_dct`:
/// entry (n, k) is `cos(pi / n_mels * (n + 0.5) * k)`, scaled by `norm`; the coefficients are
/// `x (..., n_mels) @ matrix`. Throws UsageError unless 1 <= n_mfcc <= n_mels.
[[nodiscard]] at::Tensor dct_matrix(int64_t n_mfcc, int64_t n_mels, DctNorm norm);

/// Settings of MFCC (torchaudio's `MFCC` defaults: 40 coefficients, DCT-II with orthonormal
/// scaling, the decibel mel spectrogram with top_db 80).
struct MfccOptions {
  int64_t n_mfcc = 40;            ///< Coefficients kept; 1..mel.mel.n_mels.
  DctNorm norm = DctNorm::Ortho;  ///< DCT scaling.
  /// true: `log(mel + 1e-6)`; false: decibels, `amplitude_to_db` with multiplier 10, amin
  /// 1e-10, db_multiplier 0 and top_db 80.
  bool log_mels = false;
  MelSpectrogramOptions mel;  ///< The mel spectrogram (torchaudio's `melkwargs`).

  /// Throws UsageError naming the field when an option is invalid; messages start with
  /// `context`.
  void validate(std::string_view context = "MfccOptions") const;
};

/// MFCC with the mel spectrogram and DCT matrix made once (torchaudio's `MFCC`).
class Mfcc {
 public:
  /// Checks the options (UsageError) and makes the window, filter bank and DCT matrix.
  explicit Mfcc(MfccOptions options = {});
  /// The coefficients of `waveform` `(..., time)`: `(..., n_mfcc, frames)` float32. The
  /// decibel floor follows amplitude_to_db()'s packing: per item of a `(batch, channel, time)`
  /// waveform, over the whole batch of a `(batch, time)` one. Throws as audio::spectrogram().
  [[nodiscard]] at::Tensor operator()(const at::Tensor& waveform) const;
  /// The settings.
  [[nodiscard]] const MfccOptions& options() const { return options_; }
  /// The DCT matrix, `(n_mels, n_mfcc)` float32.
  [[nodiscard]] const at::Tensor& dct() const { return dct_; }

 private:
  MfccOptions options_;
  MelSpectrogram mel_;
  at::Tensor dct_;
};

/// The MFCC of `waveform` `(..., time)`: `(..., n_mfcc, frames)` float32 (see Mfcc).
[[nodiscard]] at::Tensor mfcc(const at::Tensor& waveform, const MfccOptions& options = {});

}  // namespace neurobench::audio
NEUROBENCH_API_END
