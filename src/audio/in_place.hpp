// SPDX-License-Identifier: Apache-2.0
#pragma once

// In-place steps for tensors the audio code made itself. Private to the library.

#include <torch/script.h>

#include <neurobench/audio/mfcc.hpp>

namespace neurobench::audio::detail {

/// amplitude_to_db() on a float32 tensor the caller owns, overwritten where the layout allows
/// (the result is returned; options already validated).
[[nodiscard]] torch::Tensor amplitude_to_db_in_place(torch::Tensor x,
                                                     const AmplitudeToDbOptions& options);

}  // namespace neurobench::audio::detail
