// SPDX-License-Identifier: Apache-2.0
// Reading a NIR file's graph through the HDF5 reader, as `nir.read` lays it out: a group `node`
// whose datasets are the node's fields and whose groups `nodes` (one group per node) and
// `metadata` hold the rest, and a 2-column string dataset `edges`.
#include "model/nir_graph.hpp"

#include <string_view>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/hdf5_file.hpp"
#include "util/array_budget.hpp"
#include "util/text.hpp"

namespace neurobench::detail {

const NirNode* NirGraph::find(const std::string& name) const {
  for (const NirNode& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

namespace {

constexpr std::size_t kMaxMembers = 1'000'000;  // nodes of one graph, fields of one node
constexpr std::size_t kMaxText = 1 << 20;       // bytes of one string
constexpr int kMaxDepth = 64;                   // graphs within graphs

class Reader {
 public:
  explicit Reader(const std::filesystem::path& path) : file_(path), path_(path.string()) {}

  NirFile read() {
    NirFile out;
    if (file_.kind_of("node") != Hdf5Kind::kGroup) {
      throw InputError(fmt::format(
          "{}: an HDF5 file but not a NIR graph: it has no group 'node' (it holds: {})", path_,
          file_.root_names()));
    }
    if (file_.kind_of("version") == Hdf5Kind::kDataset && file_.is_text("version")) {
      const Hdf5Strings v = file_.read_strings("version", 1, 256);
      if (!v.values.empty()) out.version = v.values.front();
    }
    const std::string type = type_of("node", "the root node");
    if (type != "NIRGraph") {
      throw InputError(fmt::format(
          "{}: the root node is a {}, not a NIRGraph; wrap the node in a graph with an Input and "
          "an Output",
          path_, printable(type)));
    }
    out.graph = graph("node", path_, 0);
    return out;
  }

 private:
  Hdf5File file_;
  std::string path_;

  std::string type_of(const std::string& group, const std::string& what) {
    const std::string at = group + "/type";
    if (file_.kind_of(at) != Hdf5Kind::kDataset || !file_.is_text(at)) {
      throw InputError(fmt::format("{}: {} has no string dataset 'type' (not a NIR file?)",
                                   path_, what));
    }
    const Hdf5Strings t = file_.read_strings(at, 1, 256);
    if (t.values.size() != 1) {
      throw InputError(fmt::format("{}: {}'s 'type' holds {} strings; expected one", path_, what,
                                   t.values.size()));
    }
    return t.values.front();
  }

  std::map<std::string, std::string> metadata(const std::string& group) {
    std::map<std::string, std::string> out;
    if (file_.kind_of(group + "/metadata") != Hdf5Kind::kGroup) return out;
    for (const std::string& key : file_.members(group + "/metadata", 4096)) {
      const std::string at = group + "/metadata/" + key;
      if (file_.kind_of(at) != Hdf5Kind::kDataset) {
        out[key] = "(a group)";
      } else if (file_.is_text(at)) {
        const Hdf5Strings s = file_.read_strings(at, 1024, kMaxText);
        out[key] = s.values.size() == 1 ? s.values.front() : fmt::format("({} strings)",
                                                                         s.values.size());
      } else {
        const Hdf5DatasetInfo info = file_.dataset_info(at);
        out[key] = fmt::format("({} array)", info.type_name());
      }
    }
    return out;
  }

  NirArray array(const std::string& at, const std::string& what) {
    const Hdf5DatasetInfo info = file_.dataset_info(at);
    double count = 1;
    for (const std::uint64_t d : info.dims) count *= static_cast<double>(d);
    // Read as doubles, kept as float32 tensors: 12 bytes a value at the peak.
    check_memory_for(count * 12.0, fmt::format("{}: {}", path_, what));
    const Hdf5Doubles read = file_.read_doubles(at, static_cast<std::uint64_t>(count));
    NirArray out;
    for (const std::uint64_t d : read.dims) out.shape.push_back(static_cast<std::int64_t>(d));
    out.values = read.values;
    out.is_float = info.is_float;
    out.is_double = info.is_float && info.bytes == 8;
    return out;
  }

  NirNode node(const std::string& group, const std::string& name, const std::string& where,
               int depth) {
    NirNode out;
    out.name = name;
    const std::string what = fmt::format("node '{}'", printable(name));
    out.type = type_of(group, fmt::format("{}: {}", where, what));
    out.metadata = metadata(group);
    if (out.type == "NIRGraph") {
      out.graph = std::make_shared<NirGraph>(
          graph(group, fmt::format("{}: node '{}'", where, printable(name)), depth + 1));
      return out;
    }
    for (const std::string& field : file_.members(group, kMaxMembers)) {
      if (field == "type" || field == "metadata") continue;
      const std::string at = group + "/" + field;
      const std::string field_what = fmt::format("{}: {}, field '{}'", where, what, field);
      const Hdf5Kind kind = file_.kind_of(at);
      if (kind != Hdf5Kind::kDataset) {
        throw InputError(fmt::format("{}: {}: not a dataset", path_, field_what));
      }
      if (file_.is_text(at)) {
        const Hdf5Strings s = file_.read_strings(at, 1, kMaxText);
        if (s.values.size() != 1) {
          throw InputError(fmt::format("{}: {}: holds {} strings; expected one", path_,
                                       field_what, s.values.size()));
        }
        out.texts[field] = s.values.front();
      } else {
        out.arrays[field] = array(at, field_what);
      }
    }
    return out;
  }

  NirGraph graph(const std::string& group, const std::string& where, int depth) {
    if (depth > kMaxDepth) {
      throw InputError(fmt::format("{}: graphs nested more than {} deep", where, kMaxDepth));
    }
    NirGraph out;
    out.where = where;
    out.metadata = metadata(group);
    if (file_.kind_of(group + "/nodes") != Hdf5Kind::kGroup) {
      throw InputError(fmt::format("{}: the graph has no group 'nodes'", where));
    }
    for (const std::string& name : file_.members(group + "/nodes", kMaxMembers)) {
      const std::string at = group + "/nodes/" + name;
      if (file_.kind_of(at) != Hdf5Kind::kGroup) {
        throw InputError(fmt::format("{}: node '{}' is not a group", where, printable(name)));
      }
      out.nodes.push_back(node(at, name, where, depth));
    }
    const std::string edges = group + "/edges";
    if (file_.kind_of(edges) != Hdf5Kind::kDataset) {
      throw InputError(fmt::format("{}: the graph has no dataset 'edges'", where));
    }
    if (!file_.is_text(edges)) {
      // nir.write stores a graph without edges as an empty float array.
      const Hdf5DatasetInfo info = file_.dataset_info(edges);
      std::uint64_t n = 1;
      for (const std::uint64_t d : info.dims) n *= d;
      if (n == 0) return out;
      throw InputError(fmt::format("{}: 'edges' holds {} values, not pairs of node names",
                                   where, info.type_name()));
    }
    const Hdf5Strings e = file_.read_strings(edges, 2 * kMaxMembers, 4096);
    if (e.dims.size() != 2 || e.dims[1] != 2) {
      std::string shape;
      for (const std::uint64_t d : e.dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      throw InputError(fmt::format(
          "{}: 'edges' has shape ({}); expected (edges, 2): a source and a target per row", where,
          shape));
    }
    for (std::size_t i = 0; i + 1 < e.values.size(); i += 2) {
      out.edges.emplace_back(e.values[i], e.values[i + 1]);
    }
    return out;
  }
};

}  // namespace

NirFile read_nir_file(const std::filesystem::path& path) { return Reader(path).read(); }

bool has_hdf5_signature(std::string_view bytes) {
  static constexpr std::string_view kSignature("\x89HDF\r\n\x1a\n", 8);
  for (std::size_t at = 0; at + kSignature.size() <= bytes.size() && at <= (std::size_t{1} << 20);
       at = at == 0 ? 512 : at * 2) {
    if (bytes.substr(at, kSignature.size()) == kSignature) return true;
  }
  return false;
}

}  // namespace neurobench::detail
