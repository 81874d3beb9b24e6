// SPDX-License-Identifier: Apache-2.0
// Delta modulation (Speech2Spikes' encoding), written from NeuroBench's description and the
// paper (Stewart et al., NICE 2023), one pass per series in the input's own precision.
#include <neurobench/audio/delta.hpp>

#include <cmath>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "audio/checks.hpp"
#include "util/text.hpp"

namespace neurobench::audio {

namespace {

// x: (series, steps) contiguous; out: the same shape.
template <class T>
void modulate(const T* x, T* out, int64_t series, int64_t steps, T threshold) {
  for (int64_t s = 0; s < series; ++s) {
    const T* in = x + s * steps;
    T* ev = out + s * steps;
    // torch.round: half to even, which std::nearbyint gives in the default rounding mode.
    T level = std::nearbyint(in[0]);
    for (int64_t t = 0; t < steps; ++t) {
      const T d = in[t] - level;
      const T e = d > threshold ? T(1) : (d < -threshold ? T(-1) : T(0));
      level += e * threshold;
      ev[t] = e;
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
  const torch::ScalarType dtype =
      x.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
  // The series along `dim` as contiguous rows, computed, and moved back into place.
  const torch::Tensor rows = x.to(dtype).movedim(dim, -1).contiguous();
  torch::Tensor events = torch::empty_like(rows);
  const int64_t steps = rows.size(-1);
  if (rows.numel() > 0) {
    const int64_t series = rows.numel() / steps;
    if (dtype == torch::kDouble) {
      modulate<double>(rows.data_ptr<double>(), events.data_ptr<double>(), series, steps,
                       threshold);
    } else {
      modulate<float>(rows.data_ptr<float>(), events.data_ptr<float>(), series, steps,
                      static_cast<float>(threshold));
    }
  }
  return events.movedim(-1, dim).to(x.scalar_type());
}

}  // namespace neurobench::audio
