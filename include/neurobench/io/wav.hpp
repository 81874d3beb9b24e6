// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// What a WAV file's header says, as libsndfile reads it.
struct WavInfo {
  std::string format;   ///< The container as libsndfile names it: `WAV (Microsoft)`.
  std::string subtype;  ///< The sample encoding as libsndfile names it: `Signed 16 bit PCM`.
  bool pcm16 = false;   ///< True when the samples are signed 16-bit integers (PCM).
  int channels = 0;     ///< Channels (1: mono).
  int sample_rate = 0;  ///< Samples per second per channel, in Hz.
  int64_t frames = 0;   ///< Samples per channel: the clip lasts `frames / sample_rate` seconds.
  std::uint64_t file_bytes = 0;  ///< The file's size in bytes.
};

/// What a WAV file must be for load_wav() and check_wav_info(), besides 16-bit PCM.
struct WavReadOptions {
  int sample_rate = 0;  ///< The sample rate required, in Hz; 0: any.
  int channels = 0;     ///< The channels required; 0: any.
  /// Read only the first this many frames (all of them when the file is shorter); all when
  /// unset. The rest of the file is not read.
  std::optional<int64_t> first_frames;

  /// Throws UsageError naming the field when `sample_rate`, `channels` or `first_frames` is
  /// negative.
  void validate() const;
};

/// Reads the header of a WAV file through libsndfile, without reading its samples.
///
/// The file is first checked to be a regular file (a directory, FIFO or device is refused by
/// name before it is opened). Any WAV that libsndfile reads is described, whatever its sample
/// encoding: RIFF `WAVE` files (`WAV (Microsoft)`, also `WAVE_FORMAT_EXTENSIBLE`, which
/// libsndfile calls `WAVEX (Microsoft)`).
///
/// Throws InputError naming the file when it is missing or not a regular file, when libsndfile
/// cannot read it (its own message: `Format not recognised.`, `Error in WAV file. No 'data'
/// chunk marker.`), when it is an audio file of another container (`not a WAV file: libsndfile
/// reads it as FLAC`), or when it is truncated: its `data` chunk declares more bytes than the
/// file holds (libsndfile would read the samples that are there; we refuse the file).
///
/// ```cpp
/// const neurobench::WavInfo info = neurobench::read_wav_info("yes/0a7c2a8d_nohash_0.wav");
/// // info.sample_rate == 16000, info.channels == 1, info.pcm16, info.frames == 16000
/// ```
[[nodiscard]] WavInfo read_wav_info(const std::filesystem::path& path);

/// Checks a header read by read_wav_info() against `options`. Throws InputError starting with
/// `path` when the samples are not 16-bit PCM (`the samples are Unsigned 8 bit PCM; expected
/// signed 16-bit PCM`), when the channels differ (`2 channels; expected 1 (mono)`) or the
/// sample rate differs (`sample rate 44100 Hz; expected 16000 Hz`); UsageError for invalid
/// options.
void check_wav_info(const std::filesystem::path& path, const WavInfo& info,
                    const WavReadOptions& options = {});

/// Reads a 16-bit PCM WAV file into a new float32 tensor of shape `(frames, channels)`, each
/// sample its integer value divided by 32768, exactly: in [-1, 1), -32768 giving -1.
///
/// Reads the header (read_wav_info()), checks it (check_wav_info()), then the samples as
/// 16-bit integers. Throws InputError naming the file as those two do, and when fewer frames
/// can be read than the header promised (libsndfile's message).
///
/// ```cpp
/// neurobench::WavReadOptions options;
/// options.sample_rate = 16000;
/// options.channels = 1;
/// at::Tensor clip = neurobench::load_wav("yes/0a7c2a8d_nohash_0.wav", options);  // (16000, 1)
/// ```
[[nodiscard]] at::Tensor load_wav(const std::filesystem::path& path,
                                  const WavReadOptions& options = {});

}  // namespace neurobench
NEUROBENCH_API_END
