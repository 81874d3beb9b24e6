// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// How load_opus() reads an Ogg Opus file.
struct OpusReadOptions {
  /// Refuse a file that decodes to more than this many frames (samples per channel), without
  /// decoding the rest of it; no limit when unset.
  std::optional<int64_t> max_frames;
  /// Refuse a file with another number of channels; any when 0.
  int channels = 0;

  /// Throws UsageError naming the field when `max_frames` or `channels` is negative.
  void validate() const;
};

/// The sample rate of every decoded Ogg Opus stream, in Hz: Opus decodes at 48 kHz whatever
/// rate the encoder was given (the header's "input sample rate" is informational).
inline constexpr int kOpusSampleRate = 48000;

/// Decodes an Ogg Opus file through FFmpeg (libavformat's Ogg demuxer, libavcodec's native
/// Opus decoder) into a new float32 tensor `(frames, channels)` at 48 kHz, the decoder's float
/// samples unchanged: bit for bit what torchaudio 0.13's FFmpeg path (`torchaudio.load` when
/// libsox cannot read Opus, as with Debian's torchaudio) and torchaudio 2's FFmpeg backend
/// return, channels last instead of first. The encoder's delay (the header's pre-skip) and
/// the end trimming the last page's granule position asks for are applied, as FFmpeg applies
/// them. Part of the `ffmpeg` component (docs/cmake.md); without it, throws UsageError saying
/// so. See docs/file-formats.md, "Ogg Opus".
///
/// The file is first checked to be a regular file that may be opened. Throws InputError naming
/// the file when it is missing or not a regular file, when FFmpeg cannot read it (its message:
/// `Invalid data found when processing input`), when it holds no audio stream or audio that
/// is not Opus in Ogg (`FFmpeg reads it as wav (pcm_s16le)`), when a packet cannot be decoded,
/// when it decodes to no sample at all, or when it has more frames than `options.max_frames`
/// or other channels than `options.channels`; UsageError for invalid options.
///
/// ```cpp
/// neurobench::OpusReadOptions options;
/// options.max_frames = 48000;
/// options.channels = 1;
/// at::Tensor clip = neurobench::load_opus("en/clips/hello/common_voice_en_1.opus", options);
/// ```
[[nodiscard]] at::Tensor load_opus(const std::filesystem::path& path,
                                   const OpusReadOptions& options = {});

}  // namespace neurobench
NEUROBENCH_API_END
