// SPDX-License-Identifier: Apache-2.0
#pragma once

// The NIR 1.0 node types: which fields each holds, which keep state, and the shape each gives
// its output. One table, read by the plan (nir_plan.hpp) and the builder. Private to the library.

#include <cstdint>
#include <string>
#include <vector>

#include "model/nir_graph.hpp"

namespace neurobench::detail {

enum class NirKind {
  kInput, kOutput, kAffine, kLinear, kConv1d, kConv2d, kFlatten, kSumPool2d, kAvgPool2d,
  kScale, kThreshold, kDelay, kI, kLI, kLIF, kCubaLI, kCubaLIF, kIF, kGraph
};

using NirShape = std::vector<std::int64_t>;

/// The kind of a node, checked: a type NIR 1.0 lacks, a required field missing, a field the
/// type does not have, a float field holding NaN or an infinity, a time constant or delay out
/// of range: InputError naming the node (`where`), its type and the field.
[[nodiscard]] NirKind checked_kind(const NirNode& node, const std::string& where);

/// True for the nodes that keep state from one timestep to the next (neurons, Delay): a cycle
/// through one of them reads its previous output.
[[nodiscard]] bool is_stateful(NirKind kind);

/// The shape a node's parameters fix for its input and output (a neuron's `tau`, a Delay's
/// `delay`), or empty when they fix none (all scalars, or a node without such parameters).
[[nodiscard]] NirShape parameter_shape(const NirNode& node, NirKind kind, const std::string& where);

/// The output shape (without the batch) of `node` given its input's; InputError naming the node,
/// both shapes and what does not fit.
[[nodiscard]] NirShape output_shape(const NirNode& node, NirKind kind, const NirShape& input,
                                    const std::string& where);

/// Integer fields read as a list of `n` values (a scalar or a one-value array repeated).
[[nodiscard]] std::vector<std::int64_t> int_list(const NirNode& node, const std::string& field,
                                                 std::size_t n, const std::string& where);

/// `(2, 34, 34)`.
[[nodiscard]] std::string shape_text(const NirShape& shape);

/// The padding of a convolution of `dims` spatial dimensions, before and after each, resolving
/// NIR's `same` (from the kernel and dilation alone) and `valid`.
struct ConvPadding {
  std::vector<std::int64_t> before, after;
};
[[nodiscard]] ConvPadding conv_padding(const NirNode& node, std::size_t dims,
                                       const std::string& where);

}  // namespace neurobench::detail
