// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

/// Audio signal processing with torchaudio 0.13's semantics: spectrograms, mel filter banks,
/// decibels, MFCC, resampling and delta modulation (see docs/audio.md).
namespace neurobench::audio {

/// How the signal is padded at both ends when a spectrogram is centred (`torch.stft`'s
/// `pad_mode`).
enum class PadMode {
  Reflect,    ///< "reflect": mirrored without repeating the edge sample (torchaudio's default).
  Constant,   ///< "constant": zeros.
  Replicate,  ///< "replicate": the edge sample repeated.
  Circular,   ///< "circular": the signal wrapped around.
};

/// How a spectrogram is normalised (torchaudio's `normalized`).
enum class SpectrogramNorm {
  None,         ///< false: no normalisation.
  Window,       ///< true or "window": divided by the window's L2 norm, `sqrt(sum(w^2))`.
  FrameLength,  ///< "frame_length": `torch.stft(normalized=True)`, divided by `sqrt(n_fft)`.
};

/// Settings of a spectrogram, with torchaudio's `Spectrogram` defaults. The window is
/// `torch.hann_window(win_length)` (periodic), centred in `n_fft` when shorter.
struct SpectrogramOptions {
  int64_t n_fft = 400;                ///< FFT size, 2..2^20. Frequencies: n_fft / 2 + 1 (onesided).
  std::optional<int64_t> win_length;  ///< Window length, 1..n_fft; n_fft when unset.
  std::optional<int64_t> hop_length;  ///< Samples between frames, >= 1; win_length / 2 when unset.
  int64_t pad = 0;                    ///< Zeros added at both ends before anything else, 0..2^30.
  double power = 2.0;                 ///< Exponent of the magnitude; > 0 (2: power, 1: magnitude).
  SpectrogramNorm normalized = SpectrogramNorm::None;  ///< Normalisation.
  bool center = true;  ///< Pad n_fft / 2 at both ends so frame t is centred at t * hop.
  PadMode pad_mode = PadMode::Reflect;  ///< Padding of a centred spectrogram.
  bool onesided = true;                 ///< Only frequencies 0..n_fft / 2 (the rest mirror them).

  /// The window length: `win_length`, or `n_fft` when unset.
  [[nodiscard]] int64_t window_length() const { return win_length.value_or(n_fft); }
  /// The hop: `hop_length`, or `window_length() / 2` when unset.
  [[nodiscard]] int64_t hop() const { return hop_length.value_or(window_length() / 2); }
  /// Frequency bins of the result: `n_fft / 2 + 1` when onesided, else `n_fft`.
  [[nodiscard]] int64_t n_freqs() const { return onesided ? n_fft / 2 + 1 : n_fft; }
  /// Frames of the result for a signal of `length` samples (0 when the signal is too short).
  [[nodiscard]] int64_t n_frames(int64_t length) const;
  /// Throws UsageError naming the field when an option is invalid; messages start with
  /// `context` (a pre-processor names itself there).
  void validate(std::string_view context = "SpectrogramOptions") const;
};

/// The spectrogram of `waveform` `(..., time)`: `(..., freq, frames)` float32, computed with
/// `torch::stft` as `torchaudio.functional.spectrogram` does (pad, stft with the Hann window,
/// normalisation, `|X|^power`). Any leading dimensions; a floating-point waveform of another
/// dtype is converted to float32. Throws UsageError for invalid options, InputError naming the
/// shape for a 0-d, non-floating or too short waveform (a reflect-padded one needs more than
/// `n_fft / 2` samples, any other at least `n_fft` after padding).
[[nodiscard]] at::Tensor spectrogram(const at::Tensor& waveform,
                                     const SpectrogramOptions& options = {});

/// A spectrogram with its window made once, for many calls with the same options.
class Spectrogram {
 public:
  /// Checks the options (UsageError) and makes the window.
  explicit Spectrogram(SpectrogramOptions options = {});
  /// As audio::spectrogram(waveform, options()).
  [[nodiscard]] at::Tensor operator()(const at::Tensor& waveform) const;
  /// The settings.
  [[nodiscard]] const SpectrogramOptions& options() const { return options_; }
  /// The window, `(window_length())` float32.
  [[nodiscard]] const at::Tensor& window() const { return window_; }

 private:
  SpectrogramOptions options_;
  at::Tensor window_;
};

}  // namespace neurobench::audio
NEUROBENCH_API_END
