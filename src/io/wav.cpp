// SPDX-License-Identifier: Apache-2.0
// WAV files through libsndfile: the header, then the samples as 16-bit integers.
#include <neurobench/io/wav.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <sndfile.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

namespace fs = std::filesystem;

struct SndfileCloser {
  void operator()(SNDFILE* file) const { sf_close(file); }
};
using Sndfile = std::unique_ptr<SNDFILE, SndfileCloser>;

// libsndfile's name of a container or sample encoding ("WAV (Microsoft)", "Signed 16 bit PCM").
std::string format_name(int format) {
  SF_FORMAT_INFO info{};
  info.format = format;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof(info)) != 0 || info.name == nullptr) {
    return fmt::format("format 0x{:x}", format);
  }
  return info.name;
}

// The samples of a truncated file: libsndfile logs `data : DECLARED (should be PRESENT)` and
// goes on with the bytes present, where we refuse the file. Its log is the only place it says.
std::string truncation(SNDFILE* file) {
  std::vector<char> log(16384, '\0');
  sf_command(file, SFC_GET_LOG_INFO, log.data(), static_cast<int>(log.size()));
  log.back() = '\0';
  const std::string text(log.data());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind("data : ", 0) == 0 && line.find("(should be ") != std::string::npos) {
      return line;
    }
    start = end + 1;
  }
  return {};
}

struct OpenWav {
  Sndfile file;
  WavInfo info;
};

OpenWav open_wav(const fs::path& path) {
  const std::uint64_t bytes = detail::check_regular_input(path, "WAV file");
  detail::check_openable(path, "WAV file");  // libsndfile would say "System error"
  SF_INFO sf{};
  Sndfile file(sf_open(path.c_str(), SFM_READ, &sf));
  if (!file) {
    // sf_strerror(nullptr) is the message of the last failed open (libsndfile keeps one).
    throw InputError(fmt::format("{}: not a WAV file libsndfile can read: {}", path.string(),
                                 detail::printable(sf_strerror(nullptr), 200)));
  }
  const int major = sf.format & SF_FORMAT_TYPEMASK;
  if (major != SF_FORMAT_WAV && major != SF_FORMAT_WAVEX) {
    throw InputError(fmt::format("{}: not a WAV file: libsndfile reads it as {}", path.string(),
                                 format_name(major)));
  }
  const std::string cut = truncation(file.get());
  if (!cut.empty()) {
    throw InputError(fmt::format(
        "{}: truncated WAV file: its data chunk declares more bytes than the file holds "
        "(libsndfile: '{}')",
        path.string(), detail::printable(cut, 120)));
  }
  OpenWav out{std::move(file), {}};
  WavInfo& info = out.info;
  info.format = format_name(major);
  const int subtype = sf.format & SF_FORMAT_SUBMASK;
  info.subtype = format_name(subtype);
  info.pcm16 = subtype == SF_FORMAT_PCM_16;
  info.channels = sf.channels;
  info.sample_rate = sf.samplerate;
  info.frames = static_cast<int64_t>(sf.frames);
  info.file_bytes = bytes;
  return out;
}

}  // namespace

WavInfo read_wav_info(const fs::path& path) { return open_wav(path).info; }

torch::Tensor load_wav(const fs::path& path, const WavReadOptions& options) {
  OpenWav wav = open_wav(path);
  const WavInfo& info = wav.info;
  check_wav_info(path, info, options);
  const int64_t frames =
      options.first_frames ? std::min(*options.first_frames, info.frames) : info.frames;
  const int64_t channels = info.channels;
  std::vector<short> raw(static_cast<std::size_t>(frames * channels));
  const sf_count_t read = frames == 0 ? 0 : sf_readf_short(wav.file.get(), raw.data(), frames);
  if (read != frames) {
    throw InputError(fmt::format("{}: truncated WAV file: read {} of its {} frames ({})",
                                 path.string(), read, frames,
                                 detail::printable(sf_strerror(wav.file.get()), 120)));
  }
  torch::Tensor out = torch::empty({frames, channels}, torch::kFloat32);
  float* dst = out.data_ptr<float>();
  // int16 / 32768 is exact in float32: a power of two and a 16-bit integer.
  constexpr float kScale = 1.0F / 32768.0F;
  for (std::size_t i = 0; i < raw.size(); ++i) dst[i] = static_cast<float>(raw[i]) * kScale;
  return out;
}

}  // namespace neurobench
