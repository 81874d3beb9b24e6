// SPDX-License-Identifier: Apache-2.0
#pragma once

// The spectrogram's steps, a few signals at a time: a whole batch at once would make the complex
// STFT of every clip (41 MB for 100 one-second clips with n_fft 512, hop 80) before anything is
// reduced, and such allocations cost more than the transform (fresh pages each time); chunks of
// about 2 MB stay in the allocator's reused memory and in cache. Private to the library.

#include <cstdint>
#include <vector>

#include <torch/script.h>

#include <neurobench/audio/spectrogram.hpp>

namespace neurobench::audio::detail {

/// A waveform `(..., time)` as the spectrogram takes it: float32 rows `(signals, samples)` with
/// torchaudio's constant `pad` added, the leading shape, and the frames each row gives.
struct SignalRows {
  torch::Tensor rows;            ///< (signals, samples + 2 pad), float32.
  std::vector<int64_t> leading;  ///< The waveform's shape without its last dimension.
  int64_t signals = 0;           ///< Product of `leading`.
  int64_t frames = 0;            ///< Frames of each row's spectrogram.
};

/// Checks `waveform` against `options` (InputError naming `what` and the shape) and packs it.
[[nodiscard]] SignalRows signal_rows(const SpectrogramOptions& options,
                                     const torch::Tensor& waveform, const char* what);

/// Rows per chunk for a result of `elements_per_row` complex values per row (at least 1).
[[nodiscard]] int64_t rows_per_chunk(int64_t elements_per_row);

/// `|stft|^power` of `rows` `(k, samples)`, normalised as the options say: `(k, freq, frames)`
/// float32, laid out as torch::stft's result (frames outer, frequencies inner), as torchaudio's.
[[nodiscard]] torch::Tensor spectrogram_of_rows(const SpectrogramOptions& options,
                                                const torch::Tensor& window,
                                                const torch::Tensor& rows);

}  // namespace neurobench::audio::detail
