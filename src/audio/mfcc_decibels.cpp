// SPDX-License-Identifier: Apache-2.0
// torchaudio.functional.amplitude_to_DB, including torchaudio 0.13's packing of the input for
// top_db: the maximum is taken over the last three dimensions, whatever they mean.
#include <neurobench/audio/mfcc.hpp>

#include <cmath>
#include <vector>

#include "audio/checks.hpp"
#include "audio/in_place.hpp"

namespace neurobench::audio {

void AmplitudeToDbOptions::validate(std::string_view context) const {
  if (!std::isfinite(multiplier)) detail::bad_option(context, "multiplier", "finite", multiplier);
  if (!(amin > 0) || !std::isfinite(amin)) {
    detail::bad_option(context, "amin", "positive and finite", amin);
  }
  if (!std::isfinite(db_multiplier)) {
    detail::bad_option(context, "db_multiplier", "finite", db_multiplier);
  }
  if (top_db && (!(*top_db >= 0) || !std::isfinite(*top_db))) {
    detail::bad_option(context, "top_db", "finite and at least 0 (dB)", *top_db);
  }
}

namespace detail {

torch::Tensor amplitude_to_db_in_place(torch::Tensor x, const AmplitudeToDbOptions& options) {
  // torchaudio: multiplier * log10(clamp(x, min=amin)) - multiplier * db_multiplier, the same
  // element operations, here in place (the whole spectrogram again for each temporary costs
  // more than the arithmetic).
  x.clamp_min_(options.amin).log10_().mul_(options.multiplier);
  x.sub_(options.multiplier * options.db_multiplier);
  if (!options.top_db || x.numel() == 0) return x;
  // torchaudio packs to (-1, shape[-3], shape[-2], shape[-1]) (shape[-3] taken as 1 below three
  // dimensions) and takes the maximum of each packed item: the last three dimensions. Done the
  // same way here (a view where torchaudio has one), so that the memory layout, and with it the
  // summation order of the DCT's matmul after, stays torchaudio's.
  const std::vector<int64_t> shape = x.sizes().vec();
  const int64_t d = x.dim();
  const int64_t channels = d > 2 ? shape[d - 3] : 1;
  const int64_t rows = d >= 2 ? shape[d - 2] : 1;
  torch::Tensor packed = x.reshape({-1, channels, rows, shape[d - 1]});
  const torch::Tensor floor =
      (packed.amax(std::vector<int64_t>{-3, -2, -1}) - *options.top_db).view({-1, 1, 1, 1});
  at::maximum_out(packed, packed, floor);
  return packed.reshape(shape);
}

}  // namespace detail

torch::Tensor amplitude_to_db(const torch::Tensor& x, const AmplitudeToDbOptions& options) {
  options.validate();
  const torch::Tensor in = detail::float32_signal(x, "amplitude_to_db");
  return detail::amplitude_to_db_in_place(in.clone(), options);
}

}  // namespace neurobench::audio
