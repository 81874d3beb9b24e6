// SPDX-License-Identifier: Apache-2.0
#pragma once

// A NIR graph made ready to run one timestep per call: nested graphs inlined under their
// node's name, each node's inputs (summed in the order of the file's edges), the edges of a
// cycle that read the previous timestep, the order of evaluation, and every node's shape.
// Private to the library (src/).

#include <cstddef>
#include <string>
#include <vector>

#include "model/nir_graph.hpp"
#include "model/nir_nodes.hpp"

namespace neurobench::detail {

/// One node of the inlined graph.
struct NirUnit {
  enum class Role {
    kInput,   ///< The graph's Input: the forward's argument.
    kOutput,  ///< The graph's Output: what the forward returns.
    kPass,    ///< A nested graph's Input or Output: its input passed on.
    kModule,  ///< A node that becomes a submodule.
  };
  Role role = Role::kModule;
  NirKind kind = NirKind::kInput;
  const NirNode* node = nullptr;
  std::vector<std::string> path;  ///< Submodule names from the root, sanitised as NIRTorch does.
  std::string name;               ///< For messages: the node's names joined with '/'.
  std::string where;              ///< For messages: `net.nir: node 'rnn/lif'`.
  std::vector<std::size_t> inputs;  ///< Units whose outputs are summed into this one's input.
  std::vector<bool> delayed;        ///< Per input: read at the previous timestep.
  NirShape shape;                   ///< Output shape without the batch.
};

struct NirPlan {
  std::vector<NirUnit> units;
  std::size_t input = 0;
  std::size_t output = 0;
  std::vector<std::size_t> order;  ///< Every unit but the Input, inputs before their readers.
  /// Nested graphs' submodule paths (containers), outer ones first.
  std::vector<std::vector<std::string>> containers;
  /// Units whose previous output a delayed edge reads.
  std::vector<std::size_t> delayed_sources;
};

/// Plans `file`'s graph. Throws InputError naming the node (`where` is the file, for messages)
/// for: an edge naming a node the graph lacks, a graph without exactly one Input and one
/// Output, a node that no edge feeds, inputs of different shapes summed, a shape that does not
/// fit a node, a cycle through no stateful node, and names that clash once sanitised.
[[nodiscard]] NirPlan plan_nir_graph(const NirFile& file);

/// A node name as a submodule name: `.` becomes `_`, and a Python keyword or a name the module
/// itself uses (`forward`, `training`, `reset`) gets the prefix `nir_node_` (as NIRTorch's).
[[nodiscard]] std::string sanitised_name(const std::string& name);

}  // namespace neurobench::detail
