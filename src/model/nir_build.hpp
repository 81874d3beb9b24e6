// SPDX-License-Identifier: Apache-2.0
#pragma once

// A NIR file built into a TorchScript module in memory: one submodule per node (nested graphs
// as submodules holding theirs), a forward that runs one timestep, a reset() that zeroes every
// state, and the record of what was built. Private to the library (src/).

#include <filesystem>

#include <torch/script.h>

#include <neurobench/model/nir.hpp>

namespace neurobench::detail {

struct NirBuilt {
  torch::jit::Module module;
  NirReport report;  ///< What each node became, and the shapes.
};

/// Reads and builds the NIR graph of `path` (InputError naming the file and node for a bad
/// graph; UsageError for a bad option). The module runs on the CPU in float32; its root has a
/// string attribute `__neurobench_nir__` with the JSON record of the build (version,
/// convention, dt, reset, each node's rule).
[[nodiscard]] NirBuilt build_nir_module(const std::filesystem::path& path,
                                        const NirOptions& options);

/// Checks `options` (dt a positive finite number of seconds): UsageError naming the key.
void check_nir_options(const NirOptions& options);

}  // namespace neurobench::detail
