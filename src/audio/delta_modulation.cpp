// SPDX-License-Identifier: Apache-2.0
// Delta modulation (Speech2Spikes' encoding), written from NeuroBench's description and the
// paper (Stewart et al., NICE 2023), one pass per series in the input's own precision.
#include <neurobench/audio/delta.hpp>

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "audio/checks.hpp"
#include "util/text.hpp"

namespace neurobench::audio {

namespace {

// x and out: (outer, steps, inner) contiguous; the series run along `steps`, all `inner` of them
// side by side (the innermost loop walks memory in order).
template <class T>
void modulate(const T* x, T* out, int64_t outer, int64_t steps, int64_t inner, T threshold) {
  std::vector<T> level(static_cast<std::size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const T* in = x + o * steps * inner;
    T* ev = out + o * steps * inner;
    // torch.round: half to even, which std::nearbyint gives in the default rounding mode.
    for (int64_t i = 0; i < inner; ++i) level[i] = std::nearbyint(in[i]);
    for (int64_t t = 0; t < steps; ++t) {
      for (int64_t i = 0; i < inner; ++i) {
        const T d = in[t * inner + i] - level[i];
        const T e = d > threshold ? T(1) : (d < -threshold ? T(-1) : T(0));
        level[i] += e * threshold;
        ev[t * inner + i] = e;
      }
    }
  }
}

}  // namespace

torch::Tensor delta_modulate(const torch::Tensor& x, double threshold, int64_t dim) {
  if (!(threshold >= 0) || !std::isfinite(threshold)) {
    detail::bad_option("delta_modulate", "threshold", "finite and at least 0", threshold);
  }
  if (!x.defined()) throw InputError("delta_modulate: the input is an undefined tensor");
  if (x.dim() == 0 || !at::isFloatingType(x.scalar_type())) {
    throw InputError(fmt::format(
        "delta_modulate: expected a floating-point tensor with at least one dimension, got {} "
        "of shape {}",
        c10::toString(x.scalar_type()), neurobench::detail::shape_string(x)));
  }
  if (dim < -x.dim() || dim >= x.dim()) {
    throw InputError(fmt::format("delta_modulate: dim {} is out of range for shape {}", dim,
                                 neurobench::detail::shape_string(x)));
  }
  if (dim < 0) dim += x.dim();
  const torch::ScalarType dtype =
      x.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
  const torch::Tensor in = x.to(dtype).contiguous();
  torch::Tensor events = torch::empty(in.sizes(), in.options());
  if (in.numel() > 0) {
    int64_t outer = 1;
    int64_t inner = 1;
    for (int64_t i = 0; i < dim; ++i) outer *= in.size(i);
    for (int64_t i = dim + 1; i < in.dim(); ++i) inner *= in.size(i);
    if (dtype == torch::kDouble) {
      modulate<double>(in.data_ptr<double>(), events.data_ptr<double>(), outer, in.size(dim), inner,
                       threshold);
    } else {
      modulate<float>(in.data_ptr<float>(), events.data_ptr<float>(), outer, in.size(dim), inner,
                      static_cast<float>(threshold));
    }
  }
  return events.to(x.scalar_type());
}

}  // namespace neurobench::audio
