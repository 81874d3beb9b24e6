// SPDX-License-Identifier: Apache-2.0
#pragma once

// The audio fixtures (tests/fixtures/audio, made by make_audio_fixtures.py from torchaudio
// 0.13.1) and the closeness check the audio tests share.

#include <algorithm>
#include <string>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/io/npz.hpp>

#include "support.hpp"

namespace neurobench::test {

/// Array `name` of tests/fixtures/audio/`file`.
inline torch::Tensor audio_fixture(const std::string& file, const std::string& name) {
  return NpzArchive(fixture("audio/" + file)).read(name);
}

/// The six 1 s clips of waves.npz as float32 `(6, 16000)` (PCM / 32768): speech_male,
/// speech_female_fricative, chirp_clicks, clipped_full_scale, very_quiet, silence.
inline torch::Tensor audio_clips() {
  return audio_fixture("waves.npz", "pcm").to(torch::kFloat) / 32768.0;
}

/// Largest errors of `actual` against `expected`: absolute, and relative where |expected| is
/// above the absolute floor.
struct Closeness {
  double max_abs = 0;
  double max_rel = 0;
};

/// Requires the same shape and |actual - expected| <= rtol |expected| + atol everywhere; the
/// tests' tolerance is rtol 1e-4 with an absolute floor for values near zero.
inline Closeness require_close(const torch::Tensor& actual, const torch::Tensor& expected,
                               double rtol, double atol) {
  REQUIRE(actual.sizes() == expected.sizes());
  const torch::Tensor a = actual.to(torch::kDouble);
  const torch::Tensor e = expected.to(torch::kDouble);
  const torch::Tensor err = (a - e).abs();
  Closeness c;
  if (err.numel() == 0) return c;
  c.max_abs = err.max().item<double>();
  const torch::Tensor big = e.abs() > atol;
  if (big.any().item<bool>()) {
    c.max_rel = (err.masked_select(big) / e.abs().masked_select(big)).max().item<double>();
  }
  const torch::Tensor bad = err > e.abs() * rtol + atol;
  INFO("max abs error " << c.max_abs << ", max relative error " << c.max_rel << " (rtol " << rtol
                        << ", atol " << atol << "), " << bad.sum().item<int64_t>() << " of "
                        << err.numel() << " entries outside");
  CHECK_FALSE(bad.any().item<bool>());
  return c;
}

/// The tests' tolerance for power-like arrays (spectrograms, mel spectrograms, filter banks):
/// 1e-4 relative, with an absolute floor of 1e-6 of the array's largest value.
inline Closeness require_close_power(const torch::Tensor& actual, const torch::Tensor& expected) {
  const double peak = expected.numel() > 0 ? expected.abs().max().item<double>() : 0.0;
  return require_close(actual, expected, 1e-4, std::max(peak * 1e-6, 1e-30));
}

}  // namespace neurobench::test
