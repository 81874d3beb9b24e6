// SPDX-License-Identifier: Apache-2.0
#pragma once

// Checks shared by the audio functions: option values and waveforms. Private to the library.

#include <string>
#include <string_view>

#include <fmt/format.h>

#include <torch/script.h>

#include <neurobench/errors.hpp>

namespace neurobench::audio::detail {

/// Throws UsageError "{context}: {field} must be {expected}, got {got}".
template <class T>
[[noreturn]] void bad_option(std::string_view context, std::string_view field,
                             std::string_view expected, const T& got) {
  throw UsageError(fmt::format("{}: {} must be {}, got {}", context, field, expected, got));
}

/// The waveform (or spectrogram) `x` as float32; throws InputError naming `what` and the shape
/// when it is undefined, 0-d or not floating point.
[[nodiscard]] torch::Tensor float32_signal(const torch::Tensor& x, std::string_view what);

}  // namespace neurobench::audio::detail
