// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/results.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The per-layer profile of a run (Results::profile, RunOptions::profile) as CSV: a header
/// row, then one row per layer in the order the layers were first called, with the columns
/// `order`, `layer`, `kind`, `type`, `output_shape` (`64x8x14x14`), `calls_per_run`,
/// `time_per_call_s`, `time_per_run_s`, `share`, `dense_ops`, `effective_macs`,
/// `effective_acs`, `activation_sparsity` (empty where the profile has null). Numbers in full
/// precision; texts quoted where they need it. A run without a profile gives the header alone.
/// What `neurobench run --profile-csv FILE` writes.
[[nodiscard]] std::string render_profile_csv(const Results& results);

/// The profile as a text table for a terminal, the layers sorted by time per forward call
/// (the slowest first), then one line comparing the profiled forward call with the plain one.
/// Empty when `profile` is null. Throws InputError when it is not a profile (no `layers`).
[[nodiscard]] std::string render_profile_table(const Json& profile);

}  // namespace neurobench

NEUROBENCH_API_END
