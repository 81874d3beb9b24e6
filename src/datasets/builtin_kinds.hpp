// SPDX-License-Identifier: Apache-2.0
#pragma once

// The data set kinds built into dataset_kinds(), one file each (src/datasets/*_kind.cpp):
// what each is called, what its path names, its options and how it opens. Private to the
// library.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>

namespace neurobench::detail {

/// One option of a data set kind, for its `options` list.
inline OptionDescription dataset_option(std::string name, std::string type, Json default_value,
                                        std::string description) {
  return OptionDescription{std::move(name), std::move(type), std::move(default_value),
                           std::move(description)};
}

/// The integer option `name` of a kind's checked options. The option check makes sure it is a
/// whole number; one beyond int64 (1e30, 1e19), which a conversion would wrap into another
/// value, is a UsageError quoting it as given.
inline std::int64_t int64_option(const Json& options, const char* name) {
  const Json& value = options.at(name);
  const bool fits =
      value.is_number_unsigned()
          ? value.get<std::uint64_t>() <=
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
          : value.is_number_integer() ||
                (value.get<double>() >= -9223372036854775808.0 &&
                 value.get<double>() < 9223372036854775808.0);  // [-2^63, 2^63)
  if (!fits) {
    throw UsageError(fmt::format(
        "option '{}' = {} is out of range (an integer from -2^63 to 2^63 - 1)", name,
        value.dump()));
  }
  return value.get<std::int64_t>();
}

/// `speech-commands`: Google Speech Commands v0.02 (src/datasets/speech_commands_kind.cpp).
[[nodiscard]] DatasetKind speech_commands_kind();

/// `dvs-gesture`: IBM DVS128 Gesture as frames (src/datasets/dvs_gesture_kind.cpp).
[[nodiscard]] DatasetKind dvs_gesture_kind();

/// `primate-reaching`: one session of NeuroBench's Primate Reaching task
/// (src/datasets/primate_reaching_kind.cpp).
[[nodiscard]] DatasetKind primate_reaching_kind();

/// `wisdm`: NeuroBench's WISDM activity recognition file (src/datasets/wisdm_kind.cpp).
[[nodiscard]] DatasetKind wisdm_kind();

}  // namespace neurobench::detail
