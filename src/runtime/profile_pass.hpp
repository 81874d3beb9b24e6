// SPDX-License-Identifier: Apache-2.0
#pragma once

// The per-layer profile of a run (ProfileOptions, docs/deployment-metrics.md): a counting pass
// with hooks, then forward calls timed without hooks and with a clock at each layer's entry and
// exit. Private to the library.

#include <neurobench/benchmark.hpp>

#include "runtime/run_state.hpp"

namespace neurobench::detail {

/// Makes the profile (Results::profile's value) that `options.profile` asks for on `in`'s
/// model, data and processors, with the timing pass's batch size (`options.timing.batch_size`,
/// else the loader's, at most the data set's). Warnings (layers not found, a count that
/// failed) go to `state`. Throws InputError for bad data, Interrupted when a stop is requested.
[[nodiscard]] Json profile_pass(const PassInput& in, const RunOptions& options, RunState& state);

}  // namespace neurobench::detail
