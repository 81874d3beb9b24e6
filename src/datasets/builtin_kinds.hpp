// SPDX-License-Identifier: Apache-2.0
#pragma once

// The data set kinds built into dataset_kinds(), one file each (src/datasets/*_kind.cpp): a
// DatasetOpener with its describe(), added by dataset_kinds() in the order `neurobench list`
// shows. Private to the library.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>

namespace neurobench::detail {

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

/// Adds the built-in kind `T` (a DatasetOpener with a static describe()) to `kinds`.
template <class T>
void add_builtin_kind(DatasetKinds& kinds) {
  DatasetKind description = T::describe();
  description.source = "built-in";
  add_dataset_kind<T>(kinds, std::move(description));
}

/// Adds `speech-commands`: Google Speech Commands v0.02 (src/datasets/speech_commands_kind.cpp).
void add_speech_commands_kind(DatasetKinds& kinds);

/// Adds `dvs-gesture`: IBM DVS128 Gesture as frames (src/datasets/dvs_gesture_kind.cpp).
void add_dvs_gesture_kind(DatasetKinds& kinds);

/// Adds `primate-reaching`: one session of NeuroBench's Primate Reaching task
/// (src/datasets/primate_reaching_kind.cpp).
void add_primate_reaching_kind(DatasetKinds& kinds);

/// Adds `wisdm`: NeuroBench's WISDM activity recognition file (src/datasets/wisdm_kind.cpp).
void add_wisdm_kind(DatasetKinds& kinds);

/// Adds `thor-eeg-mi`: NeuroBench's THOR EEG motor imagery files
/// (src/datasets/thor_eeg_mi_kind.cpp).
void add_thor_eeg_mi_kind(DatasetKinds& kinds);

/// Adds `mswc`: NeuroBench's MSWC keyword FSCIL subset (src/datasets/mswc_kind.cpp).
void add_mswc_kind(DatasetKinds& kinds);

/// Adds `gen4-detection`: Prophesee's Gen4 automotive histograms in sequential batches
/// (src/datasets/gen4_detection_kind.cpp).
void add_gen4_detection_kind(DatasetKinds& kinds);

}  // namespace neurobench::detail
