// SPDX-License-Identifier: Apache-2.0
// torchaudio.functional.create_dct: the DCT-II matrix, in torchaudio's float32 operations.
#include <neurobench/audio/mfcc.hpp>

#include <cmath>

#include <fmt/format.h>

#include "audio/checks.hpp"

namespace neurobench::audio {

torch::Tensor dct_matrix(int64_t n_mfcc, int64_t n_mels, DctNorm norm) {
  if (n_mels < 1) detail::bad_option("dct_matrix", "n_mels", "at least 1", n_mels);
  if (n_mfcc < 1 || n_mfcc > n_mels) {
    detail::bad_option("dct_matrix", "n_mfcc", fmt::format("between 1 and n_mels = {}", n_mels),
                       n_mfcc);
  }
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  const torch::Tensor n = torch::arange(n_mels, f32);
  const torch::Tensor k = torch::arange(n_mfcc, f32).unsqueeze(1);
  torch::Tensor dct = torch::cos((n + 0.5) * (M_PI / static_cast<double>(n_mels)) * k);
  if (norm == DctNorm::None) {
    dct = dct * 2.0;
  } else {
    dct[0] *= 1.0 / std::sqrt(2.0);
    dct = dct * std::sqrt(2.0 / static_cast<double>(n_mels));
  }
  // A transposed view, as torchaudio returns it: the matmul sees the same layout.
  return dct.t();
}

}  // namespace neurobench::audio
