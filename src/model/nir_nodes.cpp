// SPDX-License-Identifier: Apache-2.0
// The NIR 1.0 node types (the `nir/ir/` package's dataclasses and `nir.read`'s fields): what
// each holds, checked, and the shapes it gives.
#include "model/nir_nodes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::detail {
namespace {

struct KindInfo {
  NirKind kind;
  const char* type;
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

const std::vector<KindInfo>& kinds() {
  static const std::vector<std::string> conv = {"weight",   "stride", "padding",
                                                "dilation", "groups", "bias"};
  static const std::vector<std::string> pool = {"kernel_size", "stride", "padding"};
  static const std::vector<KindInfo> table = {
      {NirKind::kInput, "Input", {"shape"}, {}},
      {NirKind::kOutput, "Output", {"shape"}, {}},
      {NirKind::kAffine, "Affine", {"weight", "bias"}, {}},
      {NirKind::kLinear, "Linear", {"weight"}, {}},
      {NirKind::kConv1d, "Conv1d", conv, {"input_shape"}},
      {NirKind::kConv2d, "Conv2d", conv, {"input_shape"}},
      {NirKind::kFlatten, "Flatten", {"start_dim", "end_dim"}, {}},
      {NirKind::kSumPool2d, "SumPool2d", pool, {}},
      {NirKind::kAvgPool2d, "AvgPool2d", pool, {}},
      {NirKind::kScale, "Scale", {"scale"}, {}},
      {NirKind::kThreshold, "Threshold", {"threshold"}, {}},
      {NirKind::kDelay, "Delay", {"delay"}, {}},
      {NirKind::kI, "I", {"r"}, {}},
      {NirKind::kLI, "LI", {"tau", "r", "v_leak"}, {}},
      {NirKind::kLIF, "LIF", {"tau", "r", "v_leak", "v_threshold"}, {"v_reset"}},
      {NirKind::kCubaLI, "CubaLI", {"tau_syn", "tau_mem", "r", "v_leak"}, {"w_in"}},
      {NirKind::kCubaLIF,
       "CubaLIF",
       {"tau_syn", "tau_mem", "r", "v_leak", "v_threshold"},
       {"v_reset", "w_in"}},
      {NirKind::kIF, "IF", {"r", "v_threshold"}, {"v_reset"}},
      {NirKind::kGraph, "NIRGraph", {}, {}},
  };
  return table;
}

const KindInfo& info_of(NirKind kind) {
  for (const KindInfo& k : kinds()) {
    if (k.kind == kind) return k;
  }
  throw std::logic_error("NIR kind without an entry");
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string known_types() {
  std::vector<std::string> names;
  for (const KindInfo& k : kinds()) names.emplace_back(k.type);
  return fmt::format("{}", fmt::join(names, ", "));
}

const NirArray& field(const NirNode& node, const std::string& name, const std::string& where) {
  const auto it = node.arrays.find(name);
  if (it == node.arrays.end()) {
    throw InputError(fmt::format("{}: {} node has no numeric field '{}'", where, node.type, name));
  }
  return it->second;
}

void check_positive(const NirNode& node, const std::string& name, bool allow_zero,
                    const std::string& where) {
  const auto it = node.arrays.find(name);
  if (it == node.arrays.end()) return;
  for (const double v : it->second.values) {
    if (v < 0 || (!allow_zero && v == 0)) {
      throw InputError(fmt::format("{}: {} node's '{}' holds {}; it must be {}", where, node.type,
                                   name, v, allow_zero ? "0 or more" : "more than 0"));
    }
  }
}

}  // namespace

std::string shape_text(const NirShape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

NirKind checked_kind(const NirNode& node, const std::string& where) {
  const KindInfo* info = nullptr;
  for (const KindInfo& k : kinds()) {
    if (node.type == k.type) info = &k;
  }
  if (info == nullptr) {
    throw InputError(fmt::format("{}: node type '{}' is not a NIR 1.0 type (known: {})", where,
                                 printable(node.type), known_types()));
  }
  if (info->kind == NirKind::kGraph) return info->kind;
  for (const std::string& name : info->required) {
    if (!node.arrays.count(name) && !node.texts.count(name)) {
      throw InputError(fmt::format("{}: {} node has no field '{}' (it needs: {})", where,
                                   node.type, name, fmt::join(info->required, ", ")));
    }
  }
  // Shapes NIR stores beside some nodes: read, and checked where they mean something.
  static const std::vector<std::string> shapes = {"input_type", "output_type"};
  for (const auto& [name, array] : node.arrays) {
    if (!contains(info->required, name) && !contains(info->optional, name) &&
        !contains(shapes, name)) {
      throw InputError(fmt::format(
          "{}: {} node has a field '{}' that NIR 1.0's {} does not have, so its meaning is "
          "unknown (fields: {})",
          where, node.type, printable(name), node.type, fmt::join(info->required, ", ")));
    }
    if (array.is_float) {
      for (const double v : array.values) {
        if (!std::isfinite(v)) {
          throw InputError(fmt::format("{}: {} node's '{}' holds {}: every value must be finite",
                                       where, node.type, name, v));
        }
        if (std::abs(v) > std::numeric_limits<float>::max()) {
          throw InputError(fmt::format("{}: {} node's '{}' holds {}, beyond float32's range, in "
                                       "which the module computes",
                                       where, node.type, name, v));
        }
      }
    }
  }
  for (const auto& [name, text] : node.texts) {
    const bool conv_padding_text = name == "padding" && (info->kind == NirKind::kConv1d ||
                                                         info->kind == NirKind::kConv2d);
    if (!conv_padding_text) {
      throw InputError(fmt::format("{}: {} node's '{}' is text ('{}'); expected numbers", where,
                                   node.type, printable(name), printable(text)));
    }
    if (text != "same" && text != "valid") {
      throw InputError(fmt::format("{}: {} node's padding '{}': NIR takes 'same', 'valid' or "
                                   "integers",
                                   where, node.type, printable(text)));
    }
  }
  for (const char* name : {"tau", "tau_mem", "tau_syn"}) check_positive(node, name, false, where);
  check_positive(node, "delay", true, where);
  return info->kind;
}

bool is_stateful(NirKind kind) {
  switch (kind) {
    case NirKind::kI: case NirKind::kLI: case NirKind::kLIF: case NirKind::kCubaLI:
    case NirKind::kCubaLIF: case NirKind::kIF: case NirKind::kDelay:
      return true;
    default:
      return false;
  }
}

NirShape parameter_shape(const NirNode& node, NirKind kind, const std::string& where) {
  switch (kind) {
    case NirKind::kScale: case NirKind::kThreshold: case NirKind::kDelay:
    case NirKind::kI: case NirKind::kLI: case NirKind::kLIF: case NirKind::kCubaLI:
    case NirKind::kCubaLIF: case NirKind::kIF:
      break;
    default:
      return {};
  }
  const KindInfo& info = info_of(kind);
  NirShape shape;
  std::string first;
  for (const auto& [name, array] : node.arrays) {
    if (!contains(info.required, name) && !contains(info.optional, name)) continue;
    if (array.shape.empty()) continue;  // a scalar, the same for every neuron
    if (first.empty()) {
      shape = array.shape;
      first = name;
    } else if (array.shape != shape) {
      throw InputError(fmt::format("{}: {} node's '{}' has shape {} but its '{}' has {}", where,
                                   node.type, first, shape_text(shape), name,
                                   shape_text(array.shape)));
    }
  }
  return shape;
}

std::vector<std::int64_t> int_list(const NirNode& node, const std::string& name, std::size_t n,
                                   const std::string& where) {
  const NirArray& a = field(node, name, where);
  if (a.values.size() != 1 && a.values.size() != n) {
    throw InputError(fmt::format("{}: {} node's '{}' holds {} values; expected 1 or {}", where,
                                 node.type, name, a.values.size(), n));
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = a.values[a.values.size() == 1 ? 0 : i];
    if (v != std::floor(v) || std::abs(v) > 1e15) {
      throw InputError(fmt::format("{}: {} node's '{}' holds {}; expected an integer", where,
                                   node.type, name, v));
    }
    out.push_back(static_cast<std::int64_t>(v));
  }
  return out;
}

ConvPadding conv_padding(const NirNode& node, std::size_t dims, const std::string& where) {
  const std::size_t n = dims;
  const NirArray& weight = field(node, "weight", where);
  const std::vector<std::int64_t> dilation = int_list(node, "dilation", n, where);
  ConvPadding out;
  const auto text = node.texts.find("padding");
  if (text == node.texts.end()) {
    out.before = int_list(node, "padding", n, where);
    for (const std::int64_t p : out.before) {
      if (p < 0) {
        throw InputError(fmt::format("{}: {} node's padding {} is negative", where, node.type, p));
      }
    }
    out.after = out.before;
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t total = 0;
    if (text->second == "same") {
      total = dilation[i] * (weight.shape[2 + i] - 1);
    }
    out.before.push_back(total / 2);  // as torch's padding='same': the extra one goes after
    out.after.push_back(total - total / 2);
  }
  if (text->second == "same") {
    for (const std::int64_t s : int_list(node, "stride", n, where)) {
      if (s != 1) {
        throw InputError(fmt::format("{}: {} node has padding 'same' with stride {}: 'same' is "
                                     "defined for stride 1 only",
                                     where, node.type, s));
      }
    }
  }
  return out;
}

namespace {

NirShape conv_output(const NirNode& node, std::size_t n, const NirShape& input,
                     const std::string& where) {
  const NirArray& weight = field(node, "weight", where);
  if (weight.shape.size() != n + 2) {
    throw InputError(fmt::format("{}: {} node's weight has shape {}; expected {} dimensions "
                                 "(out channels, in channels / groups, kernel...)",
                                 where, node.type, shape_text(weight.shape), n + 2));
  }
  if (field(node, "bias", where).shape != NirShape{weight.shape[0]}) {
    throw InputError(fmt::format("{}: {} node's bias has shape {}; its weight {} needs ({},)",
                                 where, node.type, shape_text(field(node, "bias", where).shape),
                                 shape_text(weight.shape), weight.shape[0]));
  }
  const std::int64_t groups = int_list(node, "groups", 1, where)[0];
  if (groups < 1 || weight.shape[0] % groups != 0) {
    throw InputError(fmt::format("{}: {} node's groups {} does not divide its {} out channels",
                                 where, node.type, groups, weight.shape[0]));
  }
  if (input.size() != n + 1 || input[0] != weight.shape[1] * groups) {
    throw InputError(fmt::format(
        "{}: {} node takes (channels, {}) with {} channels, but its input has shape {}", where,
        node.type, n == 1 ? "length" : "height, width", weight.shape[1] * groups,
        shape_text(input)));
  }
  const NirShape spatial(input.begin() + 1, input.end());
  if (const auto it = node.arrays.find("input_shape"); it != node.arrays.end()) {
    const std::vector<std::int64_t> declared = int_list(node, "input_shape", n, where);
    if (declared != spatial) {
      throw InputError(fmt::format("{}: {} node says its input is {} wide, but it gets {}",
                                   where, node.type, shape_text(declared), shape_text(input)));
    }
  }
  const std::vector<std::int64_t> stride = int_list(node, "stride", n, where);
  const std::vector<std::int64_t> dilation = int_list(node, "dilation", n, where);
  const ConvPadding padding = conv_padding(node, n, where);
  NirShape out = {weight.shape[0]};
  for (std::size_t i = 0; i < n; ++i) {
    if (stride[i] < 1 || dilation[i] < 1) {
      throw InputError(fmt::format("{}: {} node's stride and dilation must be 1 or more", where,
                                   node.type));
    }
    const std::int64_t span = dilation[i] * (weight.shape[2 + i] - 1) + 1;
    const std::int64_t padded = spatial[i] + padding.before[i] + padding.after[i];
    if (padded < span) {
      throw InputError(fmt::format("{}: {} node's kernel spans {} but its padded input is {} "
                                   "wide (input {})",
                                   where, node.type, span, padded, shape_text(input)));
    }
    out.push_back((padded - span) / stride[i] + 1);
  }
  return out;
}

NirShape pool_output(const NirNode& node, const NirShape& input, const std::string& where) {
  if (input.size() != 3) {
    throw InputError(fmt::format("{}: {} node takes (channels, height, width); its input has "
                                 "shape {}",
                                 where, node.type, shape_text(input)));
  }
  const std::vector<std::int64_t> kernel = int_list(node, "kernel_size", 2, where);
  const std::vector<std::int64_t> stride = int_list(node, "stride", 2, where);
  const std::vector<std::int64_t> padding = int_list(node, "padding", 2, where);
  NirShape out = {input[0]};
  for (std::size_t i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1 || padding[i] < 0 || 2 * padding[i] > kernel[i]) {
      throw InputError(fmt::format("{}: {} node's kernel {}, stride {} and padding {} are not a "
                                   "pooling (kernel and stride 1 or more, padding at most half "
                                   "the kernel)",
                                   where, node.type, kernel[i], stride[i], padding[i]));
    }
    const std::int64_t padded = input[1 + i] + 2 * padding[i];
    if (padded < kernel[i]) {
      throw InputError(fmt::format("{}: {} node's kernel {} is larger than its padded input {}",
                                   where, node.type, kernel[i], padded));
    }
    out.push_back((padded - kernel[i]) / stride[i] + 1);
  }
  return out;
}

NirShape flatten_output(const NirNode& node, const NirShape& input, const std::string& where) {
  const auto rank = static_cast<std::int64_t>(input.size());
  std::int64_t start = int_list(node, "start_dim", 1, where)[0];
  std::int64_t end = int_list(node, "end_dim", 1, where)[0];
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  if (rank == 0 || start < 0 || end >= rank || start > end) {
    throw InputError(fmt::format("{}: Flatten from dimension {} to {} of an input shaped {} "
                                 "(NIR's dimensions leave out the batch)",
                                 where, int_list(node, "start_dim", 1, where)[0],
                                 int_list(node, "end_dim", 1, where)[0], shape_text(input)));
  }
  if (const auto it = node.arrays.find("input_type"); it != node.arrays.end()) {
    NirShape declared;
    for (const double v : it->second.values) declared.push_back(static_cast<std::int64_t>(v));
    if (declared != input) {
      throw InputError(fmt::format("{}: Flatten says its input is {}, but it gets {}", where,
                                   shape_text(declared), shape_text(input)));
    }
  }
  NirShape out(input.begin(), input.begin() + start);
  std::int64_t joined = 1;
  for (std::int64_t d = start; d <= end; ++d) joined *= input[d];
  out.push_back(joined);
  out.insert(out.end(), input.begin() + end + 1, input.end());
  return out;
}

}  // namespace

NirShape output_shape(const NirNode& node, NirKind kind, const NirShape& input,
                      const std::string& where) {
  switch (kind) {
    case NirKind::kAffine:
    case NirKind::kLinear: {
      const NirArray& weight = field(node, "weight", where);
      if (weight.shape.size() != 2) {
        throw InputError(fmt::format("{}: {} node's weight has shape {}; expected (out, in)",
                                     where, node.type, shape_text(weight.shape)));
      }
      if (input.empty() || input.back() != weight.shape[1]) {
        throw InputError(fmt::format("{}: {} node's weight {} takes {} inputs, but its input has "
                                     "shape {}",
                                     where, node.type, shape_text(weight.shape), weight.shape[1],
                                     shape_text(input)));
      }
      if (kind == NirKind::kAffine && field(node, "bias", where).shape != NirShape{weight.shape[0]}) {
        throw InputError(fmt::format("{}: Affine node's bias has shape {}; its weight {} needs "
                                     "({},)",
                                     where, shape_text(field(node, "bias", where).shape),
                                     shape_text(weight.shape), weight.shape[0]));
      }
      NirShape out(input.begin(), input.end() - 1);
      out.push_back(weight.shape[0]);
      return out;
    }
    case NirKind::kConv1d: return conv_output(node, 1, input, where);
    case NirKind::kConv2d: return conv_output(node, 2, input, where);
    case NirKind::kFlatten: return flatten_output(node, input, where);
    case NirKind::kSumPool2d:
    case NirKind::kAvgPool2d: return pool_output(node, input, where);
    default: break;
  }
  const NirShape params = parameter_shape(node, kind, where);
  if (!params.empty() && params != input) {
    throw InputError(fmt::format("{}: {} node's parameters have shape {}, but its input has "
                                 "shape {}",
                                 where, node.type, shape_text(params), shape_text(input)));
  }
  return input;
}

}  // namespace neurobench::detail
