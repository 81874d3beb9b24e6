// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string_view>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::audio {

/// The interpolation window of the resampling filter (torchaudio's `resampling_method`).
enum class ResamplingMethod {
  SincInterpolation,  ///< "sinc_interpolation": a Hann window, `cos(pi t / (2 w))^2`.
  KaiserWindow,       ///< "kaiser_window": `I0(beta sqrt(1 - (t / w)^2)) / I0(beta)`.
};

/// Settings of band-limited resampling (`torchaudio.transforms.Resample`), defaults as the
/// resampling pre-processor of NeuroBench's GSC example (16 kHz to 8 kHz).
struct ResampleOptions {
  int64_t orig_freq = 16000;  ///< Sample rate of the input, Hz; >= 1.
  int64_t new_freq = 8000;    ///< Sample rate of the output, Hz; >= 1.
  /// Zero crossings of the sinc on each side of the filter; >= 1. More is sharper and slower.
  int64_t lowpass_filter_width = 6;
  /// Cut-off as a fraction of the lower Nyquist frequency; in (0, 1].
  double rolloff = 0.99;
  ResamplingMethod method = ResamplingMethod::SincInterpolation;  ///< Filter window.
  double beta = 14.769656459379492;  ///< Kaiser window shape (torchaudio's default); >= 0.
  /// The dtype the kernel is computed in before it is cast to float32: Double as
  /// `transforms.Resample` (the default), Float as `functional.resample` on a float32 waveform.
  /// The two differ by float rounding only.
  c10::ScalarType kernel_dtype = c10::kDouble;

  /// Throws UsageError naming the field when an option is invalid, or when the kernel
  /// (`new_freq / g` filters of `2 width + orig_freq / g` taps, g the greatest common divisor)
  /// would have more than 2^24 taps; messages start with `context`.
  void validate(std::string_view context = "ResampleOptions") const;
};

/// Resampling with its kernel made once (torchaudio's `transforms.Resample`).
///
/// ```cpp
/// neurobench::audio::Resampler down({/*orig_freq=*/16000, /*new_freq=*/8000});
/// at::Tensor y = down(x);  // (batch, 1, 16000) -> (batch, 1, 8000)
/// ```
class Resampler {
 public:
  /// Checks the options (UsageError) and makes the kernel.
  explicit Resampler(ResampleOptions options = {});
  /// `waveform` `(..., time)` resampled: `(..., ceil(new_freq * time / orig_freq))` float32,
  /// as torchaudio computes it (both rates divided by their greatest common divisor, the signal
  /// zero-padded by `width` on the left and `width + orig_freq` on the right, a strided
  /// convolution with one filter per output phase). Equal rates return the waveform (converted
  /// to float32). Throws InputError for a 0-d or non-floating waveform.
  [[nodiscard]] at::Tensor operator()(const at::Tensor& waveform) const;
  /// Output samples for `length` input samples: `ceil(new_freq * length / orig_freq)`.
  [[nodiscard]] int64_t output_length(int64_t length) const;
  /// The settings.
  [[nodiscard]] const ResampleOptions& options() const { return options_; }
  /// The kernel, `(new_freq / g, 1, 2 * width() + orig_freq / g)` float32 (undefined when the
  /// rates are equal).
  [[nodiscard]] const at::Tensor& kernel() const { return kernel_; }
  /// Taps of the filter on each side: `ceil(lowpass_filter_width * orig / (rolloff *
  /// min(orig, new)))` with the reduced rates.
  [[nodiscard]] int64_t width() const { return width_; }

 private:
  ResampleOptions options_;
  int64_t orig_ = 1;  // rates divided by their gcd
  int64_t new_ = 1;
  int64_t width_ = 0;
  at::Tensor kernel_;
};

/// `waveform` `(..., time)` resampled from orig_freq to new_freq (see Resampler; the kernel is
/// made on every call).
[[nodiscard]] at::Tensor resample(const at::Tensor& waveform, const ResampleOptions& options = {});

}  // namespace neurobench::audio
NEUROBENCH_API_END
