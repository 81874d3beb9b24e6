// SPDX-License-Identifier: Apache-2.0
// Ogg Opus files for tests, encoded by libsndfile (libopus underneath), and decoded by it as a
// second opinion on FFmpeg's decoder. Used by the Opus reader's and the MSWC data set's tests.
#pragma once

#include <sndfile.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/wav_files.hpp"

namespace neurobench::test {

/// Encodes `samples` (interleaved, in [-1, 1]) as 48 kHz Ogg Opus at `path`. Throws
/// std::runtime_error when libsndfile cannot.
inline void write_opus(const std::filesystem::path& path, const std::vector<float>& samples,
                       int channels = 1) {
  SF_INFO info{};
  info.format = SF_FORMAT_OGG | SF_FORMAT_OPUS;
  info.samplerate = 48000;
  info.channels = channels;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  if (file == nullptr) {
    throw std::runtime_error("write_opus: " + path.string() + ": " + sf_strerror(nullptr));
  }
  const auto frames = static_cast<sf_count_t>(samples.size()) / channels;
  const sf_count_t written = sf_writef_float(file, samples.data(), frames);
  sf_close(file);
  if (written != frames) throw std::runtime_error("write_opus: short write to " + path.string());
}

/// `n` samples of a tone of `hertz` with a little of a second one, so that clips differ.
inline std::vector<float> tone(std::size_t n, double hertz, double amplitude = 0.3) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / 48000.0;
    out[i] = static_cast<float>(amplitude * std::sin(2 * M_PI * hertz * t) +
                                0.05 * std::sin(2 * M_PI * 3.7 * hertz * t));
  }
  return out;
}

/// The samples libsndfile decodes from an Ogg Opus file (libopus's float decoder), interleaved.
inline std::vector<float> sndfile_decode(const std::filesystem::path& path, int* channels) {
  SF_INFO info{};
  SNDFILE* file = sf_open(path.c_str(), SFM_READ, &info);
  if (file == nullptr) {
    throw std::runtime_error("sndfile_decode: " + path.string() + ": " + sf_strerror(nullptr));
  }
  std::vector<float> out(static_cast<std::size_t>(info.frames * info.channels));
  const sf_count_t read = sf_readf_float(file, out.data(), info.frames);
  sf_close(file);
  out.resize(static_cast<std::size_t>(read * info.channels));
  *channels = info.channels;
  return out;
}

}  // namespace neurobench::test
