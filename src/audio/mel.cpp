// SPDX-License-Identifier: Apache-2.0
// The mel filter bank of torchaudio.functional.melscale_fbanks, computed with the same float32
// tensor operations in the same order (so that the filters agree to the last bit), and the mel
// spectrogram of torchaudio.transforms.MelSpectrogram. Formula: docs/audio.md.
#include <neurobench/audio/mel.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "audio/checks.hpp"
#include "audio/spectrogram_rows.hpp"

namespace neurobench::audio {

namespace {

// Slaney's scale (librosa's constants): 200/3 Hz per mel below 1 kHz, log(6.4) / 27 per mel
// in log(Hz) above.
constexpr double kSlaneyHzPerMel = 200.0 / 3;
constexpr double kSlaneyMinLogHz = 1000.0;
constexpr int64_t kMaxMels = int64_t{1} << 16;
constexpr int64_t kMaxFilterBank = int64_t{1} << 26;  // weights: 256 MiB

double slaney_log_step() { return std::log(6.4) / 27.0; }

// torchaudio's _mel_to_hz on a float32 tensor.
torch::Tensor mel_to_hz(const torch::Tensor& mels, MelScale scale) {
  if (scale == MelScale::Htk) {
    // `10.0 ** (mels / 2595.0)` is Tensor.__rpow__: a float32 tensor 10 to the power mels.
    const torch::Tensor ten = torch::scalar_tensor(10.0, torch::kFloat);
    return 700.0 * (torch::pow(ten, mels / 2595.0) - 1.0);
  }
  const torch::Tensor linear = 0.0 + kSlaneyHzPerMel * mels;
  const double min_log_mel = kSlaneyMinLogHz / kSlaneyHzPerMel;
  const torch::Tensor logarithmic =
      kSlaneyMinLogHz * torch::exp(slaney_log_step() * (mels - min_log_mel));
  return torch::where(mels >= min_log_mel, logarithmic, linear);
}

}  // namespace

double MelScaleOptions::max_frequency() const {
  return f_max.value_or(static_cast<double>(sample_rate / 2));
}

void MelScaleOptions::validate(std::string_view context) const {
  if (n_mels < 1 || n_mels > kMaxMels) {
    detail::bad_option(context, "n_mels", fmt::format("between 1 and {}", kMaxMels), n_mels);
  }
  if (sample_rate < 1) detail::bad_option(context, "sample_rate", "at least 1 (Hz)", sample_rate);
  if (!(f_min >= 0) || !std::isfinite(f_min)) {
    detail::bad_option(context, "f_min", "finite and at least 0 (Hz)", f_min);
  }
  if (f_max && !std::isfinite(*f_max)) detail::bad_option(context, "f_max", "finite (Hz)", *f_max);
  if (!(max_frequency() > f_min)) {
    detail::bad_option(context, f_max ? "f_max" : "f_max (default sample_rate / 2)",
                       fmt::format("greater than f_min = {} (Hz)", f_min), max_frequency());
  }
}

double hz_to_mel(double hz, MelScale scale) {
  if (scale == MelScale::Htk) return 2595.0 * std::log10(1.0 + (hz / 700.0));
  double mels = hz / kSlaneyHzPerMel;
  if (hz >= kSlaneyMinLogHz) {
    mels = kSlaneyMinLogHz / kSlaneyHzPerMel + std::log(hz / kSlaneyMinLogHz) / slaney_log_step();
  }
  return mels;
}

torch::Tensor mel_filter_bank(int64_t n_freqs, const MelScaleOptions& options) {
  options.validate();
  if (n_freqs < 1 || n_freqs * options.n_mels > kMaxFilterBank) {
    detail::bad_option("mel_filter_bank", "n_freqs",
                       "at least 1, with n_freqs * n_mels at most 2^26", n_freqs);
  }
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  const int64_t n_mels = options.n_mels;
  const torch::Tensor all_freqs = torch::linspace(0, options.sample_rate / 2, n_freqs, f32);
  const double m_min = hz_to_mel(options.f_min, options.mel_scale);
  const double m_max = hz_to_mel(options.max_frequency(), options.mel_scale);
  const torch::Tensor m_pts = torch::linspace(m_min, m_max, n_mels + 2, f32);
  const torch::Tensor f_pts = mel_to_hz(m_pts, options.mel_scale);

  // Triangles: filter m rises from f_pts[m] to f_pts[m + 1] and falls to f_pts[m + 2].
  using torch::indexing::None;
  using torch::indexing::Slice;
  const torch::Tensor f_diff = f_pts.index({Slice(1, None)}) - f_pts.index({Slice(None, -1)});
  const torch::Tensor slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1);
  const torch::Tensor down =
      (-1.0 * slopes.index({Slice(), Slice(None, -2)})) / f_diff.index({Slice(None, -1)});
  const torch::Tensor up = slopes.index({Slice(), Slice(2, None)}) / f_diff.index({Slice(1, None)});
  torch::Tensor fb = torch::max(torch::zeros({1}, f32), torch::min(down, up));
  if (options.norm == MelNorm::Slaney) {
    // `2.0 / widths` is Tensor.__rtruediv__: reciprocal, then times 2.
    const torch::Tensor enorm =
        (f_pts.index({Slice(2, n_mels + 2)}) - f_pts.index({Slice(None, n_mels)})).reciprocal() *
        2.0;
    fb = fb * enorm.unsqueeze(0);
  }
  return fb;
}

void MelSpectrogramOptions::validate(std::string_view context) const {
  spectrogram.validate(context);
  mel.validate(context);
  if (spectrogram.n_freqs() * mel.n_mels > kMaxFilterBank) {
    throw UsageError(fmt::format(
        "{}: n_mels = {} filters of n_fft / 2 + 1 = {} bins are more than the limit of 2^26 "
        "weights",
        context, mel.n_mels, spectrogram.n_freqs()));
  }
  if (!spectrogram.onesided) {
    detail::bad_option(context, "onesided", "true for a mel spectrogram", "false");
  }
}

namespace {
MelSpectrogramOptions validated(MelSpectrogramOptions options) {
  options.validate();
  return options;
}
}  // namespace

MelSpectrogram::MelSpectrogram(MelSpectrogramOptions options)
    : options_(validated(std::move(options))),
      spectrogram_(options_.spectrogram),
      filter_bank_(mel_filter_bank(options_.spectrogram.n_freqs(), options_.mel)) {}

torch::Tensor MelSpectrogram::operator()(const torch::Tensor& waveform) const {
  const SpectrogramOptions& so = options_.spectrogram;
  const detail::SignalRows in = detail::signal_rows(so, waveform, "mel spectrogram");
  const int64_t n_mels = options_.mel.n_mels;
  // torchaudio's MelScale: (..., time, freq) @ (freq, n_mels), back to (..., n_mels, time); done
  // a few signals at a time (see spectrogram_rows.hpp) into (signals, frames, n_mels).
  const torch::Tensor out = torch::empty({in.signals, in.frames, n_mels}, torch::kFloat);
  const int64_t step = detail::rows_per_chunk(so.n_freqs() * in.frames);
  for (int64_t s = 0; s < in.signals; s += step) {
    const int64_t k = std::min(step, in.signals - s);
    const torch::Tensor spec =
        detail::spectrogram_of_rows(so, spectrogram_.window(), in.rows.narrow(0, s, k));
    torch::Tensor slice = out.narrow(0, s, k);
    at::matmul_out(slice, spec.transpose(-1, -2), filter_bank_);
  }
  std::vector<int64_t> shape = in.leading;
  shape.push_back(n_mels);
  shape.push_back(in.frames);
  return out.transpose(1, 2).reshape(shape);
}

torch::Tensor mel_spectrogram(const torch::Tensor& waveform, const MelSpectrogramOptions& options) {
  return MelSpectrogram(options)(waveform);
}

}  // namespace neurobench::audio
