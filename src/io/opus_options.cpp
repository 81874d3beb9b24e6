// SPDX-License-Identifier: Apache-2.0
// The check of Ogg Opus reading options, which needs no FFmpeg: built whether or not the ffmpeg
// component is (opus.cpp decodes the files; opus_absent.cpp stands in without it).
#include <neurobench/io/opus.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

void OpusReadOptions::validate() const {
  if (max_frames && *max_frames < 0) {
    throw UsageError(
        fmt::format("OpusReadOptions: max_frames must be 0 or more, got {}", *max_frames));
  }
  if (channels < 0) {
    throw UsageError(fmt::format(
        "OpusReadOptions: channels must be 0 (any) or a number of channels, got {}", channels));
  }
}

}  // namespace neurobench
