// SPDX-License-Identifier: Apache-2.0
// Building a NIR graph into a TorchScript module: the submodules of its nodes, and the root's
// forward (one timestep: each node's inputs summed in edge order, the edges of a cycle read
// at the previous timestep) and reset().
#include "model/nir_build.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/components.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/json.hpp>
#include <neurobench/model/model.hpp>

#include "model/nir_graph.hpp"
#include "model/nir_modules.hpp"
#include "model/nir_plan.hpp"
#include "util/text.hpp"

namespace neurobench::detail {
namespace {

using torch::jit::Module;

// A submodule name as a TorchScript string literal.
std::string quoted(const std::string& name, const std::string& where) {
  std::string out = "\"";
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      throw InputError(fmt::format("{}: the name holds a control character", where));
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string access(const std::vector<std::string>& path, const std::string& where) {
  std::string out = "self";
  for (const std::string& name : path) {
    out = fmt::format("getattr({}, {})", out, quoted(name, where));
  }
  return out;
}

std::string prev_name(std::size_t unit) { return fmt::format("_nir_prev_{}", unit); }

class Builder {
 public:
  Builder(const NirFile& file, NirPlan plan, const NirOptions& options)
      : file_(file), plan_(std::move(plan)), options_(options),
        cu_(std::make_shared<torch::jit::CompilationUnit>()) {}

  NirBuilt build() {
    NirBuilt out;
    out.report.version = file_.version;
    Module root = make_nir_class_module("NIRGraph", cu_);
    containers_[{}] = root;
    for (const std::vector<std::string>& path : plan_.containers) {
      Module c = make_nir_class_module("NIRGraph", cu_);
      parent_of(path).register_module(path.back(), c);
      containers_[path] = c;
    }
    Json record_nodes = Json::array();
    for (std::size_t i = 0; i < plan_.units.size(); ++i) {
      const NirUnit& unit = plan_.units[i];
      NirNodeReport note{unit.name, unit.node->type, "", "", ""};
      if (unit.role == NirUnit::Role::kModule) {
        NirModule made = make_nir_module(unit, options_, cu_);
        parent_of(unit.path).register_module(unit.path.back(), made.module);
        note.module = fmt::format("{}", fmt::join(unit.path, "."));
        note.cls = demangled_type_name(made.module.type()->name()->qualifiedName());
        note.rule = made.rule;
        if (made.has_state) stateful_.push_back(i);
      } else {
        note.rule = unit.role == NirUnit::Role::kPass     ? "passes its input on"
                    : unit.role == NirUnit::Role::kInput ? "the input of a timestep"
                                                         : "what a timestep gives";
      }
      for (std::size_t j = 0; j < unit.inputs.size(); ++j) {
        if (unit.delayed[j]) {
          note.rule += fmt::format("; reads '{}' of the previous timestep",
                                   plan_.units[unit.inputs[j]].name);
        }
      }
      Json entry = {{"node", note.node}, {"type", note.type}, {"module", note.module},
                    {"class", note.cls}, {"rule", note.rule}};
      if (!unit.node->metadata.empty()) entry["metadata"] = unit.node->metadata;
      record_nodes.push_back(std::move(entry));
      out.report.nodes.push_back(std::move(note));
    }
    for (const std::size_t s : plan_.delayed_sources) {
      root.register_attribute(prev_name(s), c10::TensorType::get(), torch::zeros({0}), false,
                              false);
    }
    Json record = {{"nir_version", file_.version},
                         {"time", std::string(nir_time_name(options_.time))},
                         {"dt", options_.dt},
                         {"reset", std::string(nir_reset_name(options_.reset))},
                         {"nodes", record_nodes}};
    if (!file_.graph.metadata.empty()) record["metadata"] = file_.graph.metadata;
    root.register_attribute("__neurobench_nir__", c10::StringType::get(), record.dump(), false,
                            false);
    try {
      root.define(forward_code() + "\n" + reset_code());
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: the module built from the graph does not compile: {}",
                                   file_.graph.where, e.what()));
    }
    out.module = root;
    out.report.input_shape = plan_.units[plan_.input].shape;
    out.report.output_shape = plan_.units[plan_.output].shape;
    return out;
  }

 private:
  const NirFile& file_;
  NirPlan plan_;
  NirOptions options_;
  std::shared_ptr<torch::jit::CompilationUnit> cu_;
  std::map<std::vector<std::string>, Module> containers_;
  std::vector<std::size_t> stateful_;

  Module& parent_of(const std::vector<std::string>& path) {
    return containers_.at(std::vector<std::string>(path.begin(), path.end() - 1));
  }

  std::string sum_of(const NirUnit& unit) const {
    std::vector<std::string> terms;
    for (std::size_t j = 0; j < unit.inputs.size(); ++j) {
      terms.push_back(unit.delayed[j] ? fmt::format("p{}", unit.inputs[j])
                                      : fmt::format("x{}", unit.inputs[j]));
    }
    return fmt::format("{}", fmt::join(terms, " + "));
  }

  std::string forward_code() const {
    const NirUnit& input = plan_.units[plan_.input];
    std::string code = fmt::format(
        "def forward(self, input: Tensor) -> Tensor:\n"
        "    assert input.shape[1:] == [{0}], \"the NIR graph takes inputs shaped (batch, {0}) "
        "at each timestep\"\n"
        "    x{1} = input\n",
        fmt::join(input.shape, ", "), plan_.input);
    for (const std::size_t s : plan_.delayed_sources) {
      std::vector<std::string> dims = {fmt::format("x{}.size(0)", plan_.input)};
      for (const std::int64_t d : plan_.units[s].shape) dims.push_back(std::to_string(d));
      code += fmt::format(
          "    p{0} = self.{1}\n"
          "    if p{0}.size(0) != x{2}.size(0):\n"
          "        p{0} = x{2}.new_zeros([{3}])\n",
          s, prev_name(s), plan_.input, fmt::join(dims, ", "));
    }
    for (const std::size_t v : plan_.order) {
      const NirUnit& unit = plan_.units[v];
      if (unit.role == NirUnit::Role::kModule) {
        code += fmt::format("    x{} = {}.forward({})\n", v, access(unit.path, unit.where),
                            sum_of(unit));
      } else {
        code += fmt::format("    x{} = {}\n", v, sum_of(unit));
      }
    }
    for (const std::size_t s : plan_.delayed_sources) {
      code += fmt::format("    self.{} = x{}\n", prev_name(s), s);
    }
    return code + fmt::format("    return x{}\n", plan_.output);
  }

  std::string reset_code() const {
    std::string code = "def reset(self) -> None:\n";
    for (const std::size_t i : stateful_) {
      const NirUnit& unit = plan_.units[i];
      code += fmt::format("    {}.reset_state()\n", access(unit.path, unit.where));
    }
    for (const std::size_t s : plan_.delayed_sources) {
      code += fmt::format("    self.{0} = torch.zeros_like(self.{0})\n", prev_name(s));
    }
    return code + "    pass\n";
  }
};

}  // namespace

void check_nir_options(const NirOptions& options) {
  if (!std::isfinite(options.dt) || options.dt <= 0 || options.dt > 1e6) {
    throw UsageError(fmt::format(
        "nir_dt: {} is not a timestep; give a number of seconds above 0 (snnTorch's import "
        "uses 0.0001)",
        options.dt));
  }
}

NirBuilt build_nir_module(const std::filesystem::path& path, const NirOptions& options) {
  check_nir_options(options);
  require_component("hdf5", "reading the NIR graph " + path_text(path) + " (NIR files are HDF5)");
  const NirFile file = read_nir_file(path);
  NirPlan plan = plan_nir_graph(file);
  return Builder(file, std::move(plan), options).build();
}

}  // namespace neurobench::detail
