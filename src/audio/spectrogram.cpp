// SPDX-License-Identifier: Apache-2.0
// Spectrograms through torch::stft, with torchaudio.functional.spectrogram's steps in its order:
// constant padding, stft (centred with pad_mode), window normalisation, |X|^power.
#include <neurobench/audio/spectrogram.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "audio/checks.hpp"
#include "audio/spectrogram_rows.hpp"
#include "util/array_budget.hpp"
#include "util/text.hpp"

namespace neurobench::audio {

namespace {

constexpr int64_t kMaxFftSize = int64_t{1} << 20;
constexpr int64_t kMaxPad = int64_t{1} << 30;

const char* pad_mode_name(PadMode mode) {
  switch (mode) {
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Constant:
      return "constant";
    case PadMode::Replicate:
      return "replicate";
    case PadMode::Circular:
      return "circular";
  }
  return "reflect";
}

// What torch::stft and the centring pad need of the signal's length, checked here so that the
// message names the shape and the option rather than LibTorch's internals.
void check_length(const SpectrogramOptions& o, const torch::Tensor& waveform, int64_t length) {
  const int64_t padded = length + 2 * o.pad;
  const int64_t centre_pad = o.center ? o.n_fft / 2 : 0;
  if (o.center && centre_pad > 0) {
    int64_t needed = 0;  // at::pad's limits: reflect pads less than the size, circular at most it
    switch (o.pad_mode) {
      case PadMode::Reflect:
        needed = centre_pad + 1;
        break;
      case PadMode::Circular:
        needed = centre_pad;
        break;
      case PadMode::Replicate:
        needed = 1;
        break;
      case PadMode::Constant:
        break;
    }
    if (padded < needed) {
      throw InputError(fmt::format(
          "spectrogram: a waveform of shape {} has {} samples (with pad {}), too few for {} "
          "padding of n_fft / 2 = {} samples at each end: it needs at least {}",
          neurobench::detail::shape_string(waveform), padded, o.pad, pad_mode_name(o.pad_mode),
          centre_pad, needed));
    }
  }
  if (o.n_frames(length) == 0) {
    throw InputError(fmt::format(
        "spectrogram: a waveform of shape {} has {} samples after padding, fewer than n_fft = {}",
        neurobench::detail::shape_string(waveform), padded + 2 * centre_pad, o.n_fft));
  }
}

}  // namespace

int64_t SpectrogramOptions::n_frames(int64_t length) const {
  const int64_t padded = length + 2 * pad + (center ? 2 * (n_fft / 2) : 0);
  if (padded < n_fft || hop() < 1) return 0;
  return 1 + (padded - n_fft) / hop();
}

void SpectrogramOptions::validate(std::string_view context) const {
  // Upper limits keep lengths and sizes far from int64 overflow and absurd allocations.
  if (n_fft < 2 || n_fft > kMaxFftSize) {
    detail::bad_option(context, "n_fft", fmt::format("between 2 and {}", kMaxFftSize), n_fft);
  }
  if (win_length && (*win_length < 1 || *win_length > n_fft)) {
    detail::bad_option(context, "win_length", fmt::format("between 1 and n_fft = {}", n_fft),
                       *win_length);
  }
  if (hop() < 1) {
    detail::bad_option(context, hop_length ? "hop_length" : "hop_length (default win_length / 2)",
                       "at least 1", hop());
  }
  if (pad < 0 || pad > kMaxPad) {
    detail::bad_option(context, "pad", fmt::format("between 0 and {}", kMaxPad), pad);
  }
  if (!(power > 0) || !std::isfinite(power)) {
    detail::bad_option(context, "power", "positive and finite", power);
  }
}

Spectrogram::Spectrogram(SpectrogramOptions options) : options_(std::move(options)) {
  options_.validate();
  // torch.hann_window(win_length): periodic, float32; torch::stft centres it in n_fft.
  window_ =
      torch::hann_window(options_.window_length(), torch::TensorOptions().dtype(torch::kFloat));
}

namespace detail {

SignalRows signal_rows(const SpectrogramOptions& o, const torch::Tensor& waveform,
                       const char* what) {
  SignalRows r;
  torch::Tensor x = float32_signal(waveform, what);
  const std::vector<int64_t> shape = x.sizes().vec();
  check_length(o, waveform, shape.back());
  r.leading.assign(shape.begin(), shape.end() - 1);
  r.signals = 1;
  for (const int64_t d : r.leading) r.signals *= d;
  r.frames = o.n_frames(shape.back());
  // The padded signals and their spectrogram (complex float, then its power), before either is
  // made: a pad or hop_length that makes them larger than the memory is refused by name.
  const double bins = static_cast<double>(o.onesided ? o.n_fft / 2 + 1 : o.n_fft);
  neurobench::detail::check_memory_for(
      static_cast<double>(r.signals) *
          (static_cast<double>(shape.back() + 2 * o.pad) * sizeof(float) +
           static_cast<double>(r.frames) * bins * 3 * sizeof(float)),
      fmt::format("{}: {} signals of {} samples with pad {}, n_fft {} and hop_length {} ({} "
                  "frames each)",
                  what, r.signals, shape.back(), o.pad, o.n_fft, o.hop(), r.frames));
  if (o.pad > 0) x = torch::constant_pad_nd(x, {o.pad, o.pad}, 0);
  r.rows = x.reshape({r.signals, x.size(-1)});
  return r;
}

int64_t rows_per_chunk(int64_t elements_per_row) {
  constexpr int64_t kChunkElements = int64_t{1} << 18;  // 2 MiB of complex float
  return std::max<int64_t>(1, kChunkElements / std::max<int64_t>(1, elements_per_row));
}

torch::Tensor spectrogram_of_rows(const SpectrogramOptions& o, const torch::Tensor& window,
                                  const torch::Tensor& rows) {
  try {
    torch::Tensor spec = torch::stft(
        rows, o.n_fft, o.hop(), o.window_length(), window, o.center, pad_mode_name(o.pad_mode),
        o.normalized == SpectrogramNorm::FrameLength, o.onesided, /*return_complex=*/true);
    if (o.normalized == SpectrogramNorm::Window) spec = spec / window.pow(2.0).sum().sqrt();
    if (o.power == 1.0) return spec.abs();
    return spec.abs().pow(o.power);
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("spectrogram of signals of shape {}: {}",
                                 neurobench::detail::shape_string(rows),
                                 e.what_without_backtrace()));
  }
}

}  // namespace detail

torch::Tensor Spectrogram::operator()(const torch::Tensor& waveform) const {
  const SpectrogramOptions& o = options_;
  const detail::SignalRows in = detail::signal_rows(o, waveform, "spectrogram");
  // (signals, frames, freq) in memory, returned as (..., freq, frames): torchaudio's layout.
  const torch::Tensor out = torch::empty({in.signals, in.frames, o.n_freqs()}, torch::kFloat);
  const int64_t step = detail::rows_per_chunk(o.n_freqs() * in.frames);
  for (int64_t s = 0; s < in.signals; s += step) {
    const int64_t k = std::min(step, in.signals - s);
    out.narrow(0, s, k).transpose(1, 2).copy_(
        detail::spectrogram_of_rows(o, window_, in.rows.narrow(0, s, k)));
  }
  std::vector<int64_t> shape = in.leading;
  shape.push_back(o.n_freqs());
  shape.push_back(in.frames);
  return out.transpose(1, 2).reshape(shape);
}

torch::Tensor spectrogram(const torch::Tensor& waveform, const SpectrogramOptions& options) {
  return Spectrogram(options)(waveform);
}

}  // namespace neurobench::audio
