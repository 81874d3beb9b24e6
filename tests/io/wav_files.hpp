// SPDX-License-Identifier: Apache-2.0
// WAV files for tests, written through libsndfile: any sample encoding, rate and channel count,
// and a few damaged ones. Used by the WAV reader's and the Speech Commands data set's tests.
#pragma once

#include <sndfile.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support.hpp"

namespace neurobench::test {

/// How a test WAV file is written: libsndfile's container and encoding, rate and channels.
struct WavSpec {
  int format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  int sample_rate = 16000;
  int channels = 1;
};

/// Writes `samples` (interleaved, as 16-bit values that libsndfile converts to the encoding)
/// to `path`. Throws std::runtime_error when libsndfile cannot.
inline void write_wav(const std::filesystem::path& path, const std::vector<int16_t>& samples,
                      const WavSpec& spec = {}) {
  SF_INFO info{};
  info.format = spec.format;
  info.samplerate = spec.sample_rate;
  info.channels = spec.channels;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  if (file == nullptr) {
    throw std::runtime_error("write_wav: " + path.string() + ": " + sf_strerror(nullptr));
  }
  const auto frames = static_cast<sf_count_t>(samples.size()) / spec.channels;
  const sf_count_t written = sf_writef_short(file, samples.data(), frames);
  sf_close(file);
  if (written != frames) throw std::runtime_error("write_wav: short write to " + path.string());
}

/// `n` samples counting up from `start` (wrapping as int16), so that every clip differs.
inline std::vector<int16_t> ramp(std::size_t n, int start = 0) {
  std::vector<int16_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<int16_t>(static_cast<uint16_t>(start + static_cast<int>(i) * 7));
  }
  return out;
}

/// A file's bytes.
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Cuts `path` to its first `size` bytes.
inline void truncate_file(const std::filesystem::path& path, std::size_t size) {
  write_bytes(path, file_bytes(path).substr(0, size));
}

}  // namespace neurobench::test
