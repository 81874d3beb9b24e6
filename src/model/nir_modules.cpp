// SPDX-License-Identifier: Apache-2.0
// The submodule of each NIR node: parameters from the node's arrays, coefficients from its
// time constants under the chosen convention, and TorchScript code per class.
#include "model/nir_modules.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

#include "util/array_budget.hpp"

namespace neurobench::detail {
namespace {

using torch::jit::Module;

const NirArray& array_of(const NirUnit& unit, const std::string& name) {
  return unit.node->arrays.at(name);
}

// --- connections and shapes ------------------------------------------------------------------

NirModule connection(const NirUnit& unit, const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  const bool conv = unit.kind == NirKind::kConv1d || unit.kind == NirKind::kConv2d;
  const std::string cls =
      conv ? unit.node->type : std::string("Linear");  // Affine and Linear are nn.Linear
  Module m = make_nir_class_module(cls, cu);
  const NirArray& w = array_of(unit, "weight");
  m.register_parameter("weight", nir_float_tensor(w.values, w.shape), /*is_buffer=*/false);
  const bool bias = unit.kind != NirKind::kLinear;
  if (bias) {
    const NirArray& b = array_of(unit, "bias");  // its shape checked by the plan
    m.register_parameter("bias", nir_float_tensor(b.values, b.shape), false);
  }
  std::string body;
  if (!conv) {
    body = bias ? "torch.linear(input_, self.weight, self.bias)"
                : "torch.linear(input_, self.weight)";
    m.define(fmt::format("def forward(self, input_: Tensor) -> Tensor:\n    return {}\n", body));
    return {m, bias ? "y = W x + b" : "y = W x", false};
  }
  const std::size_t n = unit.kind == NirKind::kConv1d ? 1 : 2;
  const std::vector<std::int64_t> stride = int_list(*unit.node, "stride", n, unit.where);
  const std::vector<std::int64_t> dilation = int_list(*unit.node, "dilation", n, unit.where);
  const std::int64_t groups = int_list(*unit.node, "groups", 1, unit.where)[0];
  const ConvPadding pad = conv_padding(*unit.node, n, unit.where);
  std::string pre;
  std::vector<std::int64_t> symmetric = pad.before;
  if (pad.before != pad.after) {
    std::vector<std::int64_t> amounts;  // torch's order: last dimension first
    for (std::size_t i = n; i-- > 0;) {
      amounts.push_back(pad.before[i]);
      amounts.push_back(pad.after[i]);
    }
    pre = fmt::format("    input_ = torch.constant_pad_nd(input_, [{}], 0.0)\n",
                      fmt::join(amounts, ", "));
    symmetric.assign(n, 0);
  }
  m.define(fmt::format(
      "def forward(self, input_: Tensor) -> Tensor:\n{}    return torch.conv{}d(input_, "
      "self.weight, self.bias, [{}], [{}], [{}], {})\n",
      pre, n, fmt::join(stride, ", "), fmt::join(symmetric, ", "), fmt::join(dilation, ", "),
      groups));
  return {m, "convolution", false};
}

NirModule reshaping(const NirUnit& unit, const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  Module m = make_nir_class_module(unit.node->type, cu);
  std::string body;
  std::string rule;
  if (unit.kind == NirKind::kFlatten) {
    // NIR's dimensions leave out the batch: 0 is the first dimension of a sample.
    const auto dim = [&](const char* name) {
      const std::int64_t d = int_list(*unit.node, name, 1, unit.where)[0];
      return d >= 0 ? d + 1 : d;
    };
    body = fmt::format("torch.flatten(input_, {}, {})", dim("start_dim"), dim("end_dim"));
    rule = "flatten (NIR's dimensions, the batch left out)";
  } else {
    const std::vector<std::int64_t> k = int_list(*unit.node, "kernel_size", 2, unit.where);
    const std::vector<std::int64_t> s = int_list(*unit.node, "stride", 2, unit.where);
    const std::vector<std::int64_t> p = int_list(*unit.node, "padding", 2, unit.where);
    const bool sum = unit.kind == NirKind::kSumPool2d;
    body = fmt::format("torch.avg_pool2d(input_, [{}], [{}], [{}], False, True, {})",
                       fmt::join(k, ", "), fmt::join(s, ", "), fmt::join(p, ", "),
                       sum ? "1" : "None");
    rule = sum ? "sum over each window" : "mean over each window (padding counted)";
  }
  m.define(fmt::format("def forward(self, input_: Tensor) -> Tensor:\n    return {}\n", body));
  return {m, rule, false};
}

NirModule elementwise(const NirUnit& unit, const NirOptions& options,
                      const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  Module m = make_nir_class_module(unit.node->type, cu);
  if (unit.kind == NirKind::kScale) {
    const NirArray& a = array_of(unit, "scale");
    m.register_buffer("scale", nir_float_tensor(a.values, a.shape));
    m.define("def forward(self, input_: Tensor) -> Tensor:\n    return self.scale * input_\n");
    return {m, "y = scale * x", false};
  }
  if (unit.kind == NirKind::kThreshold) {
    const NirArray& a = array_of(unit, "threshold");
    m.register_buffer("threshold", nir_float_tensor(a.values, a.shape));
    m.define(
        "def forward(self, input_: Tensor) -> Tensor:\n"
        "    return (input_ > self.threshold).float()\n");
    return {m, "y = (x > threshold)", false};
  }
  // Delay: each element `delay / dt` timesteps late, rounded; a ring of past inputs.
  const NirArray& d = array_of(unit, "delay");
  std::vector<double> steps;
  double most = 0;
  for (const double v : d.values) {
    const double k = std::round(v / options.dt);
    if (!(k <= 1e6)) {
      throw InputError(fmt::format("{} (Delay): a delay of {} s is {} timesteps of {} s; at most "
                                   "1000000 are kept",
                                   unit.where, v, k, options.dt));
    }
    steps.push_back(k);
    most = std::max(most, k);
  }
  std::vector<std::int64_t> ints(steps.begin(), steps.end());
  m.register_buffer("steps", torch::tensor(ints, torch::kInt64).reshape(d.shape));
  m.register_attribute("history", c10::TensorType::get(), torch::zeros({0}), false, false);
  m.register_attribute("position", c10::IntType::get(), 0, false, false);
  const auto slots = static_cast<std::int64_t>(most) + 1;
  m.define(fmt::format(R"(
def forward(self, input_: Tensor) -> Tensor:
    if self.history.dim() != input_.dim() + 1 or self.history.shape[1:] != input_.shape:
        self.history = torch.zeros([{0}] + input_.shape, dtype=input_.dtype, device=input_.device)
        self.position = 0
    self.history[self.position] = input_
    index = torch.remainder(self.position - self.steps, {0}).expand(input_.shape).unsqueeze(0)
    out = torch.gather(self.history, 0, index).squeeze(0)
    self.position = (self.position + 1) % {0}
    return out

def reset_state(self) -> None:
    self.history = torch.zeros_like(self.history)
    self.position = 0
)",
                       slots));
  return {m, fmt::format("y(t) = x(t - round(delay / dt)), dt {} s, up to {} steps", options.dt,
                         slots - 1),
          true};
}

}  // namespace

NirModule make_nir_module(const NirUnit& unit, const NirOptions& options,
                          const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  try {
    switch (unit.kind) {
      case NirKind::kAffine: case NirKind::kLinear: case NirKind::kConv1d: case NirKind::kConv2d:
        return connection(unit, cu);
      case NirKind::kFlatten: case NirKind::kSumPool2d: case NirKind::kAvgPool2d:
        return reshaping(unit, cu);
      case NirKind::kScale: case NirKind::kThreshold: case NirKind::kDelay:
        return elementwise(unit, options, cu);
      default:
        return make_nir_neuron(unit, options, cu);
    }
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{} ({}): its module cannot be made: {}", unit.where,
                                 unit.node->type, e.what_without_backtrace()));
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{} ({}): its module cannot be made: {}", unit.where,
                                 unit.node->type, e.what()));
  }
}

Module make_nir_class_module(const std::string& name,
                             const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  return Module(c10::QualifiedName("__torch__.neurobench_nir." + name), cu,
                /*shouldMangle=*/true);
}

torch::Tensor nir_float_tensor(const std::vector<double>& values, const NirShape& shape) {
  std::vector<float> f(values.begin(), values.end());
  return torch::from_blob(f.data(), shape, torch::kFloat32).clone();
}

}  // namespace neurobench::detail
