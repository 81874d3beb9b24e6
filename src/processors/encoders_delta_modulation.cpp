// SPDX-License-Identifier: Apache-2.0
// Delta modulation (send-on-delta), shared by DeltaEncoder and Speech2Spikes.
#include <neurobench/processors/encoders.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "processors/encoder_input.hpp"

namespace neurobench {

namespace {

// `x` as (outer, steps, inner), contiguous; events into `y` of the same layout. The order of
// the float operations is the documented one: level = round(x0); per step one
// subtraction `x - level`, compared with thr and -thr; the level moves by adding or subtracting
// thr (the same value as `level + event * thr`, since `event * thr` is exact). std::nearbyint
// rounds half to even in the default rounding mode, as torch.round.
template <class T>
void modulate(const T* x, float* y, int64_t outer, int64_t steps, int64_t inner, T thr) {
  std::vector<T> level(static_cast<std::size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * steps * inner;
    float* yo = y + o * steps * inner;
    for (int64_t i = 0; i < inner; ++i) {
      level[static_cast<std::size_t>(i)] = std::nearbyint(xo[i]);
    }
    for (int64_t t = 0; t < steps; ++t) {
      const T* xt = xo + t * inner;
      float* yt = yo + t * inner;
      for (int64_t i = 0; i < inner; ++i) {
        T& l = level[static_cast<std::size_t>(i)];
        const T d = xt[i] - l;
        // Branch-free, so that the loop over `inner` vectorises: e is +1, -1 or 0, e * thr is
        // exact, and l + e * thr is l + thr, l - thr or l.
        const T e = static_cast<T>(d > thr) - static_cast<T>(d < -thr);
        yt[i] = static_cast<float>(e);
        l = l + e * thr;
      }
    }
  }
}

}  // namespace

torch::Tensor delta_modulate(const torch::Tensor& x, double threshold, int64_t dim) {
  constexpr const char* kWho = "delta_modulate";
  if (!std::isfinite(threshold) || threshold <= 0) {
    throw UsageError(
        fmt::format("{}: threshold is {}; expected a finite number above 0", kWho, threshold));
  }
  if (x.defined() && !x.device().is_cpu()) {  // computed on the CPU, given back where x is
    return delta_modulate(x.to(torch::kCPU), threshold, dim).to(x.device());
  }
  const torch::Tensor in = detail::encoder_input(
      x, kWho, 1, "a tensor with a dimension to run along", detail::Infinities::Refused);
  const int64_t n = in.dim();
  if (dim < -n || dim >= n) {
    throw UsageError(
        fmt::format("{}: dim {} is out of range for a tensor of {} dimensions", kWho, dim, n));
  }
  if (dim < 0) dim += n;
  // A float32 input compares with the threshold rounded to float32 (as `x > 0.1` does in
  // PyTorch); one that overflows or rounds to 0 there is refused as a non-positive one is.
  const bool fits_float = threshold <= std::numeric_limits<float>::max();
  const float thr32 = fits_float ? static_cast<float>(threshold) : 0.0F;
  if (in.scalar_type() == torch::kFloat && thr32 <= 0.0F) {
    throw UsageError(fmt::format("{}: threshold {} is out of float32's range for float32 data",
                                 kWho, threshold));
  }
  torch::Tensor out = torch::empty(in.sizes(), in.options().dtype(torch::kFloat));
  if (in.numel() == 0) return out;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.size(d);
  for (int64_t d = dim + 1; d < n; ++d) inner *= in.size(d);
  const int64_t steps = in.size(dim);
  if (in.scalar_type() == torch::kDouble) {
    modulate<double>(in.data_ptr<double>(), out.data_ptr<float>(), outer, steps, inner, threshold);
  } else {
    modulate<float>(in.data_ptr<float>(), out.data_ptr<float>(), outer, steps, inner, thr32);
  }
  return out;
}

}  // namespace neurobench
