// SPDX-License-Identifier: Apache-2.0
// Planning a NIR graph: nested graphs inlined, edges resolved, cycles cut where they pass
// through state, the order of evaluation and the shapes.
#include "model/nir_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::detail {

std::string sanitised_name(const std::string& name) {
  static const std::set<std::string> reserved = {
      "False", "None",  "True",     "and",    "as",       "assert", "async",   "await",
      "break", "class", "continue", "def",    "del",      "elif",   "else",    "except",
      "finally", "for", "from",     "global", "if",       "import", "in",      "is",
      "lambda", "nonlocal", "not",  "or",     "pass",     "raise",  "return",  "try",
      "while", "with",  "yield",    "forward", "training", "reset", "dump_patches"};
  std::string out = name;
  std::replace(out.begin(), out.end(), '.', '_');
  if (reserved.count(out)) out = "nir_node_" + out;
  return out;
}

namespace {

struct GraphEnds {
  std::size_t input;
  std::size_t output;
};

class Planner {
 public:
  explicit Planner(std::string file) : file_(std::move(file)) {}

  NirPlan plan(const NirGraph& root) {
    const GraphEnds ends = add_graph(root, {}, "", true);
    plan_.input = ends.input;
    plan_.output = ends.output;
    check_fed();
    cut_cycles();
    order();
    shapes();
    return std::move(plan_);
  }

 private:
  std::string file_;
  NirPlan plan_;

  std::string where_of(const std::string& name) const {
    return fmt::format("{}: node '{}'", file_, printable(name));
  }

  GraphEnds add_graph(const NirGraph& graph, const std::vector<std::string>& prefix,
                      const std::string& name_prefix, bool root) {
    std::map<std::string, std::size_t> unit_of;       // node name -> its unit
    std::map<std::string, GraphEnds> graph_of;        // nested graph's name -> its ends
    std::map<std::string, std::string> sanitised_to;  // clash check
    std::vector<std::size_t> inputs, outputs;
    for (const NirNode& node : graph.nodes) {
      const std::string name = name_prefix + node.name;
      const std::string where = where_of(name);
      const NirKind kind = checked_kind(node, where);
      const std::string clean = sanitised_name(node.name);
      if (const auto [it, fresh] = sanitised_to.emplace(clean, node.name); !fresh) {
        throw InputError(fmt::format("{}: nodes '{}' and '{}' both become the submodule '{}' "
                                     "('.' is written '_')",
                                     graph.where, printable(it->second), printable(node.name),
                                     clean));
      }
      std::vector<std::string> path = prefix;
      path.push_back(clean);
      if (kind == NirKind::kGraph) {
        plan_.containers.push_back(path);
        graph_of[node.name] = add_graph(*node.graph, path, name + "/", false);
        continue;
      }
      NirUnit unit;
      unit.kind = kind;
      unit.node = &node;
      unit.path = std::move(path);
      unit.name = name;
      unit.where = where;
      if (kind == NirKind::kInput) {
        unit.role = root ? NirUnit::Role::kInput : NirUnit::Role::kPass;
        inputs.push_back(plan_.units.size());
      } else if (kind == NirKind::kOutput) {
        unit.role = root ? NirUnit::Role::kOutput : NirUnit::Role::kPass;
        outputs.push_back(plan_.units.size());
      }
      unit_of[node.name] = plan_.units.size();
      plan_.units.push_back(std::move(unit));
    }
    if (inputs.size() != 1 || outputs.size() != 1) {
      throw InputError(fmt::format(
          "{}: the graph has {} Input and {} Output nodes; a graph needs exactly one of each{}",
          graph.where, inputs.size(), outputs.size(),
          inputs.size() > 1 || outputs.size() > 1 ? " (several inputs or outputs are not "
                                                    "supported)"
                                                  : ""));
    }
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& [from, to] : graph.edges) {
      if (!seen.insert({from, to}).second) continue;  // a repeated edge counts once, as NIRTorch
      const std::size_t source = endpoint(graph, unit_of, graph_of, from, to, from, true);
      const std::size_t target = endpoint(graph, unit_of, graph_of, from, to, to, false);
      plan_.units[target].inputs.push_back(source);
      plan_.units[target].delayed.push_back(false);
    }
    return {inputs.front(), outputs.front()};
  }

  std::size_t endpoint(const NirGraph& graph, const std::map<std::string, std::size_t>& unit_of,
                       const std::map<std::string, GraphEnds>& graph_of, const std::string& from,
                       const std::string& to, const std::string& name, bool source) {
    const std::string edge = fmt::format("edge '{}' -> '{}'", printable(from), printable(to));
    if (const auto g = graph_of.find(name); g != graph_of.end()) {
      return source ? g->second.output : g->second.input;
    }
    const auto u = unit_of.find(name);
    if (u == unit_of.end()) {
      std::vector<std::string> names;
      for (const NirNode& n : graph.nodes) {
        if (names.size() == 20) {
          names.emplace_back("...");
          break;
        }
        names.push_back(printable(n.name));
      }
      throw InputError(fmt::format("{}: {}: the graph has no node '{}' (its nodes: {})",
                                   graph.where, edge, printable(name), fmt::join(names, ", ")));
    }
    const NirUnit& unit = plan_.units[u->second];
    if (source && unit.kind == NirKind::kOutput) {
      throw InputError(fmt::format("{}: {}: an edge leaves the Output node '{}'", graph.where,
                                   edge, printable(name)));
    }
    if (!source && unit.kind == NirKind::kInput) {
      throw InputError(fmt::format("{}: {}: an edge enters the Input node '{}'", graph.where,
                                   edge, printable(name)));
    }
    return u->second;
  }

  void check_fed() const {
    for (std::size_t i = 0; i < plan_.units.size(); ++i) {
      const NirUnit& u = plan_.units[i];
      if (i != plan_.input && u.inputs.empty()) {
        throw InputError(fmt::format("{} ({}): no edge leads into it", u.where, u.node->type));
      }
    }
  }

  // Strongly connected components (Kosaraju, with explicit stacks: a graph may be deep).
  std::vector<std::size_t> components() const {
    const std::size_t n = plan_.units.size();
    std::vector<std::vector<std::size_t>> next(n);
    for (std::size_t v = 0; v < n; ++v) {
      for (const std::size_t u : plan_.units[v].inputs) next[u].push_back(v);
    }
    std::vector<std::size_t> finished;
    std::vector<bool> seen(n, false);
    for (std::size_t s = 0; s < n; ++s) {
      if (seen[s]) continue;
      std::vector<std::pair<std::size_t, std::size_t>> stack = {{s, 0}};
      seen[s] = true;
      while (!stack.empty()) {
        auto& [v, i] = stack.back();
        if (i < next[v].size()) {
          const std::size_t w = next[v][i++];
          if (!seen[w]) {
            seen[w] = true;
            stack.emplace_back(w, 0);
          }
        } else {
          finished.push_back(v);
          stack.pop_back();
        }
      }
    }
    std::vector<std::size_t> component(n, n);
    std::size_t count = 0;
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
      if (component[*it] != n) continue;
      std::vector<std::size_t> stack = {*it};
      component[*it] = count;
      while (!stack.empty()) {
        const std::size_t v = stack.back();
        stack.pop_back();
        for (const std::size_t u : plan_.units[v].inputs) {
          if (component[u] == n) {
            component[u] = count;
            stack.push_back(u);
          }
        }
      }
      ++count;
    }
    return component;
  }

  void cut_cycles() {
    const std::vector<std::size_t> component = components();
    std::set<std::size_t> sources;
    for (std::size_t v = 0; v < plan_.units.size(); ++v) {
      NirUnit& unit = plan_.units[v];
      for (std::size_t j = 0; j < unit.inputs.size(); ++j) {
        const std::size_t u = unit.inputs[j];
        const NirUnit& source = plan_.units[u];
        if (component[u] == component[v] && source.role == NirUnit::Role::kModule &&
            is_stateful(source.kind)) {
          unit.delayed[j] = true;
          sources.insert(u);
        }
      }
    }
    plan_.delayed_sources.assign(sources.begin(), sources.end());
  }

  void order() {
    const std::size_t n = plan_.units.size();
    std::vector<std::size_t> waiting(n, 0);
    std::vector<std::vector<std::size_t>> next(n);
    for (std::size_t v = 0; v < n; ++v) {
      const NirUnit& unit = plan_.units[v];
      for (std::size_t j = 0; j < unit.inputs.size(); ++j) {
        if (unit.delayed[j]) continue;
        ++waiting[v];
        next[unit.inputs[j]].push_back(v);
      }
    }
    std::set<std::size_t> ready;  // smallest index first: the file's order of names
    for (std::size_t v = 0; v < n; ++v) {
      if (waiting[v] == 0) ready.insert(v);
    }
    std::vector<std::size_t> out;
    while (!ready.empty()) {
      const std::size_t v = *ready.begin();
      ready.erase(ready.begin());
      if (v != plan_.input) out.push_back(v);
      for (const std::size_t w : next[v]) {
        if (--waiting[w] == 0) ready.insert(w);
      }
    }
    if (out.size() + 1 < n) {
      std::vector<std::string> names;
      for (std::size_t v = 0; v < n && names.size() < 10; ++v) {
        if (waiting[v] > 0) {
          names.push_back(fmt::format("'{}' ({})", printable(plan_.units[v].name),
                                      plan_.units[v].node->type));
        }
      }
      throw InputError(fmt::format(
          "{}: a cycle through no neuron or Delay, among {}: it cannot be evaluated one "
          "timestep at a time (a cycle must pass through a node that keeps state)",
          file_, fmt::join(names, ", ")));
    }
    plan_.order = std::move(out);
  }

  // The same shape but for dimensions of size 1: older exporters declared a single neuron's
  // Output as (1, 1, 1) (the NIR paper's Rockpool LIF).
  static bool same_but_ones(const NirShape& a, const NirShape& b) {
    NirShape sa, sb;
    for (const std::int64_t d : a) {
      if (d != 1) sa.push_back(d);
    }
    for (const std::int64_t d : b) {
      if (d != 1) sb.push_back(d);
    }
    return sa == sb;
  }

  NirShape declared_shape(const NirUnit& unit) const {
    // Every value of the field, as integers (checked_kind made sure it is there).
    const NirShape dims =
        int_list(*unit.node, "shape", unit.node->arrays.at("shape").values.size(), unit.where);
    for (const std::int64_t d : dims) {
      if (d < 1) {
        throw InputError(fmt::format("{} ({}): shape {} has a dimension below 1", unit.where,
                                     unit.node->type, shape_text(dims)));
      }
    }
    return dims;
  }

  void shapes() {
    std::vector<bool> known(plan_.units.size(), false);
    for (std::size_t v = 0; v < plan_.units.size(); ++v) {
      NirUnit& unit = plan_.units[v];
      if (unit.role == NirUnit::Role::kModule && is_stateful(unit.kind)) {
        unit.shape = parameter_shape(*unit.node, unit.kind, unit.where);
        known[v] = !unit.shape.empty();
      }
    }
    NirUnit& input = plan_.units[plan_.input];
    input.shape = declared_shape(input);
    known[plan_.input] = true;
    for (const std::size_t v : plan_.order) {
      NirUnit& unit = plan_.units[v];
      const NirShape in = input_shape(unit, known);
      if (unit.role == NirUnit::Role::kModule) {
        unit.shape = output_shape(*unit.node, unit.kind, in, unit.where);
      } else {
        const NirShape declared = declared_shape(unit);
        if (declared != in && !same_but_ones(declared, in)) {
          throw InputError(fmt::format("{} ({}): declares shape {}, but the graph gives it {}",
                                       unit.where, unit.node->type, shape_text(declared),
                                       shape_text(in)));
        }
        unit.shape = in;
      }
      known[v] = true;
    }
  }

  NirShape input_shape(const NirUnit& unit, const std::vector<bool>& known) const {
    NirShape shape;
    std::string first;
    for (std::size_t j = 0; j < unit.inputs.size(); ++j) {
      const NirUnit& source = plan_.units[unit.inputs[j]];
      if (!known[unit.inputs[j]]) {
        throw InputError(fmt::format(
            "{} ({}): the shape fed back from '{}' ({}) is not known: give its parameters "
            "arrays of the neurons' shape rather than scalars",
            unit.where, unit.node->type, printable(source.name), source.node->type));
      }
      if (first.empty()) {
        shape = source.shape;
        first = source.name;
      } else if (source.shape != shape) {
        throw InputError(fmt::format("{} ({}): its inputs are summed, but '{}' gives {} and "
                                     "'{}' gives {}",
                                     unit.where, unit.node->type, printable(first),
                                     shape_text(shape), printable(source.name),
                                     shape_text(source.shape)));
      }
    }
    return shape;
  }
};

}  // namespace

NirPlan plan_nir_graph(const NirFile& file) { return Planner(file.graph.where).plan(file.graph); }

}  // namespace neurobench::detail
