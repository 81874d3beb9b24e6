// SPDX-License-Identifier: Apache-2.0
// Band-limited resampling as torchaudio 0.13 computes it (_get_sinc_resample_kernel and
// _apply_sinc_resample_kernel): the same tensor operations in the same dtypes and order, so that
// the kernel, and the strided conv1d that applies it, agree with torchaudio's.
#include <neurobench/audio/resample.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "audio/checks.hpp"
#include "audio/spectrogram_rows.hpp"
#include "util/array_budget.hpp"

namespace neurobench::audio {

namespace {

constexpr double kMaxKernelTaps = 16777216.0;  // 2^24 float32 taps: 64 MiB

struct Reduced {
  int64_t orig;
  int64_t new_;
  double base_freq;
  int64_t width;
};

// Both rates divided by their gcd, the cut-off and the filter's half width. The width is
// computed in double so that a huge lowpass_filter_width cannot overflow before validate()
// refuses it.
Reduced reduce(const ResampleOptions& o) {
  const int64_t g = std::gcd(o.orig_freq, o.new_freq);
  Reduced r{o.orig_freq / g, o.new_freq / g, 0.0, 0};
  r.base_freq = static_cast<double>(std::min(r.orig, r.new_)) * o.rolloff;
  const double width = std::ceil(static_cast<double>(o.lowpass_filter_width) *
                                 static_cast<double>(r.orig) / r.base_freq);
  r.width = width < kMaxKernelTaps ? static_cast<int64_t>(width) : -1;
  return r;
}

torch::Tensor make_kernel(const ResampleOptions& o, const Reduced& r) {
  const torch::ScalarType dtype = o.kernel_dtype;
  const int64_t lpw = o.lowpass_filter_width;
  const torch::Tensor idx =
      torch::arange(-r.width, r.width + r.orig, torch::TensorOptions().dtype(dtype))
          .unsqueeze(0)
          .unsqueeze(0) /
      r.orig;
  // transforms.Resample passes no dtype: torchaudio's arange is then int64, and its division
  // by new_freq float32 (the default dtype), before the sum with the float64 idx.
  const torch::Tensor phases =
      dtype == torch::kDouble ? torch::arange(0, -r.new_, -1, torch::kLong)
                              : torch::arange(0, -r.new_, -1, torch::TensorOptions().dtype(dtype));
  torch::Tensor t = phases.unsqueeze(1).unsqueeze(2) / r.new_ + idx;
  t = t * r.base_freq;
  t = t.clamp(-lpw, lpw);
  torch::Tensor window;
  if (o.method == ResamplingMethod::SincInterpolation) {
    window = torch::pow(torch::cos(t * M_PI / lpw / 2), 2);
  } else {
    // torch.tensor(float(beta)): a float32 0-d tensor, whatever the kernel's dtype.
    const torch::Tensor beta = torch::scalar_tensor(o.beta, torch::kFloat);
    window = torch::i0(beta * torch::sqrt(1 - torch::pow(t / lpw, 2))) / torch::i0(beta);
  }
  t = t * M_PI;
  const double scale = r.base_freq / static_cast<double>(r.orig);
  torch::Tensor kernels =
      torch::where(t == 0, torch::scalar_tensor(1.0, torch::kFloat).to(t), t.sin() / t);
  kernels = kernels * (window * scale);
  return kernels.to(torch::kFloat);
}

}  // namespace

void ResampleOptions::validate(std::string_view context) const {
  if (orig_freq < 1) detail::bad_option(context, "orig_freq", "at least 1 (Hz)", orig_freq);
  if (new_freq < 1) detail::bad_option(context, "new_freq", "at least 1 (Hz)", new_freq);
  if (lowpass_filter_width < 1) {
    detail::bad_option(context, "lowpass_filter_width", "at least 1", lowpass_filter_width);
  }
  if (!(rolloff > 0 && rolloff <= 1)) detail::bad_option(context, "rolloff", "in (0, 1]", rolloff);
  if (!(beta >= 0) || !std::isfinite(beta)) {
    detail::bad_option(context, "beta", "finite and at least 0", beta);
  }
  if (kernel_dtype != torch::kFloat && kernel_dtype != torch::kDouble) {
    detail::bad_option(context, "kernel_dtype", "Float or Double", c10::toString(kernel_dtype));
  }
  const Reduced r = reduce(*this);
  const double taps = static_cast<double>(r.new_) *
                      (2.0 * static_cast<double>(r.width) + static_cast<double>(r.orig));
  if (r.width < 0 || taps > kMaxKernelTaps) {
    throw UsageError(fmt::format(
        "{}: resampling {} Hz to {} Hz (reduced by their greatest common divisor to {} and {}) "
        "with lowpass_filter_width {} needs a kernel of {} filters of {} taps, more than the "
        "limit of 2^24 taps; choose rates with a larger common divisor",
        context, orig_freq, new_freq, r.orig, r.new_, lowpass_filter_width, r.new_,
        r.width < 0 ? std::string("too many") : std::to_string(2 * r.width + r.orig)));
  }
}

namespace {
ResampleOptions validated(ResampleOptions options) {
  options.validate();
  return options;
}
}  // namespace

Resampler::Resampler(ResampleOptions options) : options_(validated(std::move(options))) {
  if (options_.orig_freq == options_.new_freq) return;
  const Reduced r = reduce(options_);
  orig_ = r.orig;
  new_ = r.new_;
  width_ = r.width;
  kernel_ = make_kernel(options_, r);
}

int64_t Resampler::output_length(int64_t length) const {
  if (options_.orig_freq == options_.new_freq) return length;
  return (new_ * length + orig_ - 1) / orig_;  // ceil(new * length / orig)
}

torch::Tensor Resampler::operator()(const torch::Tensor& waveform) const {
  torch::Tensor x = detail::float32_signal(waveform, "resample");
  if (options_.orig_freq == options_.new_freq) return x;
  std::vector<int64_t> shape = x.sizes().vec();
  const int64_t length = shape.back();
  int64_t signals = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) signals *= shape[i];
  shape.back() = output_length(length);
  if (signals == 0) return torch::empty(shape, torch::kFloat);
  // The output and a block's convolution beside it, before either is made.
  neurobench::detail::check_memory_for(
      2.0 * static_cast<double>(signals) * static_cast<double>(shape.back()) * sizeof(float),
      fmt::format("resample: {} Hz to {} Hz of {} signals of {} samples ({} samples each)",
                  options_.orig_freq, options_.new_freq, signals, length, shape.back()));
  const torch::Tensor rows = x.reshape({signals, length});
  const int64_t out_length = shape.back();
  const torch::Tensor out = torch::empty({signals, out_length}, torch::kFloat);
  // A few signals at a time (see spectrogram_rows.hpp): about 2^18 samples in and out per
  // convolution, large enough that its set-up cost is shared, small enough that its buffers are
  // reused rather than mapped afresh.
  const int64_t padded_length = length + 2 * width_ + orig_;
  const int64_t blocks = (padded_length - kernel_.size(-1)) / orig_ + 1;
  const int64_t step = detail::rows_per_chunk(padded_length + new_ * blocks);
  for (int64_t s = 0; s < signals; s += step) {
    const int64_t k = std::min(step, signals - s);
    const torch::Tensor padded =
        torch::constant_pad_nd(rows.narrow(0, s, k), {width_, width_ + orig_}, 0);
    // One filter per output phase, applied every orig samples: (k, new, blocks), then the
    // phases interleaved back into time order.
    const torch::Tensor y = torch::conv1d(padded.unsqueeze(1), kernel_, {}, orig_);
    out.narrow(0, s, k).copy_(y.transpose(1, 2).reshape({k, -1}).narrow(1, 0, out_length));
  }
  return out.reshape(shape);
}

torch::Tensor resample(const torch::Tensor& waveform, const ResampleOptions& options) {
  return Resampler(options)(waveform);
}

}  // namespace neurobench::audio
