// SPDX-License-Identifier: Apache-2.0
#pragma once

// NIR graphs (the Neuromorphic Intermediate Representation, docs/nir.md) as models: a `.nir`
// file given where a model is taken is built into a TorchScript module (TorchScriptModel reads
// either). This header saves what a graph becomes, for the user to see and reuse. Plain data:
// no LibTorch header.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/model/nir_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// What one node of a NIR graph became.
struct NirNodeReport {
  std::string node;    ///< The node's name (nested graphs' names joined with '/').
  std::string type;    ///< Its NIR type (`LIF`, `Affine`...).
  std::string module;  ///< Its submodule's dotted path; empty for Input and Output.
  std::string cls;     ///< The submodule's class (`Leaky`, `Linear`...).
  std::string rule;    ///< What it computes, under the options.
};

/// What a NIR graph became: its NIR version ("" when the file states none), each node's
/// report, and the shapes of a timestep's input and output (without the batch).
struct NirReport {
  std::string version;
  std::vector<NirNodeReport> nodes;
  std::vector<std::int64_t> input_shape;
  std::vector<std::int64_t> output_shape;
};

/// Builds the NIR graph at `nir_file` with `options` and writes the TorchScript module to `out`
/// (whole or not at all; `torch.jit.load` and `neurobench run --model` read it). The module runs
/// one timestep per call (`neurobench run --stepwise`). Throws InputError naming the file and
/// node for a bad graph, UsageError for a bad option or when `out` is the graph itself.
NEUROBENCH_API NirReport save_nir_as_torchscript(const std::filesystem::path& nir_file,
                                                 const std::filesystem::path& out,
                                                 const NirOptions& options = {});

}  // namespace neurobench

NEUROBENCH_API_END
