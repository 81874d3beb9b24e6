// SPDX-License-Identifier: Apache-2.0
#pragma once

// The data set kinds built into dataset_kinds(), one file each (src/datasets/*_kind.cpp):
// what each is called, what its path names, its options and how it opens. Private to the
// library.

#include <string>
#include <utility>

#include <neurobench/datasets/kinds.hpp>

namespace neurobench::detail {

/// One option of a data set kind, for its `options` list.
inline OptionDescription dataset_option(std::string name, std::string type, Json default_value,
                                        std::string description) {
  return OptionDescription{std::move(name), std::move(type), std::move(default_value),
                           std::move(description)};
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
