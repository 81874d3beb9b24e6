// SPDX-License-Identifier: Apache-2.0
// The checks of WAV reading options and headers, which need no libsndfile: built whether or not
// the sndfile component is (wav.cpp reads the files; wav_absent.cpp stands in without it).
#include <neurobench/io/wav.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

namespace fs = std::filesystem;

void WavReadOptions::validate() const {
  if (sample_rate < 0) {
    throw UsageError(
        fmt::format("WavReadOptions: sample_rate must be 0 (any) or a rate in Hz, "
                    "got {}",
                    sample_rate));
  }
  if (channels < 0) {
    throw UsageError(fmt::format(
        "WavReadOptions: channels must be 0 (any) or a number of channels, got {}", channels));
  }
  if (first_frames && *first_frames < 0) {
    throw UsageError(
        fmt::format("WavReadOptions: first_frames must be 0 or more, got {}", *first_frames));
  }
}

void check_wav_info(const fs::path& path, const WavInfo& info, const WavReadOptions& options) {
  options.validate();
  if (!info.pcm16) {
    throw InputError(fmt::format("{}: the samples are {}; expected signed 16-bit PCM",
                                 path.string(), info.subtype));
  }
  if (options.channels != 0 && info.channels != options.channels) {
    throw InputError(fmt::format("{}: {} channel{}; expected {}{}", path.string(), info.channels,
                                 info.channels == 1 ? "" : "s", options.channels,
                                 options.channels == 1 ? " (mono)" : ""));
  }
  if (options.sample_rate != 0 && info.sample_rate != options.sample_rate) {
    throw InputError(fmt::format("{}: sample rate {} Hz; expected {} Hz", path.string(),
                                 info.sample_rate, options.sample_rate));
  }
}

}  // namespace neurobench
