// SPDX-License-Identifier: Apache-2.0
#pragma once

// A NIR graph as its file holds it (NIR 1.0: github.com/neuromorphs/NIR): nodes with their
// type, numeric arrays and strings, nested graphs, and edges. Reading it checks only what the
// file format asks; what the nodes mean is checked when the module is built (nir_build.hpp).
// Private to the library (src/).

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neurobench::detail {

/// A numeric array of a node (a scalar has an empty shape), its values in row-major order.
struct NirArray {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  bool is_float = true;  ///< Stored as floating point (else as integers or booleans).
  bool is_double = false;  ///< Stored as float64.
  [[nodiscard]] std::int64_t numel() const { return static_cast<std::int64_t>(values.size()); }
};

struct NirGraph;

/// One node: its name in its graph, its NIR type (`LIF`, `Affine`, `NIRGraph`...), and what its
/// group holds besides `type` and `metadata`.
struct NirNode {
  std::string name;
  std::string type;
  std::map<std::string, NirArray> arrays;
  std::map<std::string, std::string> texts;  ///< String datasets (Conv's padding 'same').
  std::map<std::string, std::string> metadata;  ///< The node's metadata, each value as text.
  std::shared_ptr<NirGraph> graph;  ///< For type NIRGraph.
};

/// A graph: its nodes in the order of their names (as h5py lists them) and its edges in the
/// order of the file.
struct NirGraph {
  std::string where;  ///< For messages: `net.nir` or `net.nir: node 'rnn'`.
  std::vector<NirNode> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  std::map<std::string, std::string> metadata;
  [[nodiscard]] const NirNode* find(const std::string& name) const;
};

/// A NIR file read whole: the version it says it has ("" when it has none) and its graph.
struct NirFile {
  std::string version;
  NirGraph graph;
};

/// Reads the NIR graph of `path` (HDF5 with a group `node` of type NIRGraph). Throws InputError
/// naming the file and the node when it is not a NIR file, a node has no type, an array is
/// larger than memory allows (checked before it is read), or the nesting is deeper than 64.
[[nodiscard]] NirFile read_nir_file(const std::filesystem::path& path);

/// True when a file's bytes hold HDF5's signature where HDF5 looks for it (at 0, 512, 1024...,
/// after a user block): a NIR graph rather than a TorchScript archive.
[[nodiscard]] bool has_hdf5_signature(std::string_view bytes);

}  // namespace neurobench::detail
