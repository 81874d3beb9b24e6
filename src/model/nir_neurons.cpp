// SPDX-License-Identifier: Apache-2.0
// The neuron nodes (I, LI, LIF, CubaLI, CubaLIF, IF) as modules: snnTorch's Leaky and Synaptic
// exactly as snnTorch 0.9.4's import_from_nir makes them where the `snntorch` convention applies
// and the node qualifies, else one update rule for every convention:
//   v = decay * v + gain * x + bias, then spike and reset (docs/nir.md).
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "model/nir_modules.hpp"

namespace neurobench::detail {
namespace {

using torch::jit::Module;

// NumPy's np.allclose tolerances, which snnTorch's import uses.
constexpr double kAtol = 1e-8;
constexpr double kRtol = 1e-5;

bool close(double a, double b) { return std::abs(a - b) <= kAtol + kRtol * std::abs(b); }

// Arithmetic in the precision NumPy would use on the file's arrays: float32 unless one of them
// is float64 (a Python float meets a float32 array as float32).
struct Arith {
  bool dbl = false;
  [[nodiscard]] double operator()(double v) const {
    return dbl ? v : static_cast<double>(static_cast<float>(v));
  }
};

torch::Tensor scalar_f32(double v) { return torch::tensor(static_cast<float>(v)); }

const NirArray* find(const NirUnit& unit, const std::string& name) {
  const auto it = unit.node->arrays.find(name);
  return it == unit.node->arrays.end() ? nullptr : &it->second;
}

// One value per element of `shape` (scalars repeated); `fallback` when the field is absent.
std::vector<double> spread(const NirUnit& unit, const std::string& name, const NirShape& shape,
                           double fallback) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  const NirArray* a = find(unit, name);
  if (a == nullptr) return std::vector<double>(static_cast<std::size_t>(n), fallback);
  if (a->values.size() == 1) return std::vector<double>(static_cast<std::size_t>(n), a->values[0]);
  return a->values;
}

bool all_zero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::abs(x) <= kAtol; });
}

bool all_equal(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

// --- snnTorch's own neurons --------------------------------------------------------------------

// snnTorch 0.9.4's Leaky with init_hidden, reset_mechanism "zero", reset_delay False, in
// inference (its surrogate fires a Heaviside step), in its order of operations.
constexpr const char* kSnnLeaky = R"(
def forward(self, input_: Tensor) -> Tensor:
    if self.mem.shape != input_.shape:
        self.mem = torch.zeros_like(input_)
    reset = (self.mem - self.threshold > 0).float()
    self.mem = (1 - reset) * self.mem
    self.mem = self.beta.clamp(0, 1) * self.mem + input_
    spk = (self.mem - self.threshold > 0).float() * self.graded_spikes_factor
    do_reset = spk / self.graded_spikes_factor - reset
    self.mem = self.mem - do_reset * self.mem
    return spk

def reset_state(self) -> None:
    self.mem = torch.zeros_like(self.mem)
)";

// snnTorch 0.9.4's Synaptic, likewise.
constexpr const char* kSnnSynaptic = R"(
def forward(self, input_: Tensor) -> Tensor:
    if self.syn.shape != input_.shape:
        self.syn = torch.zeros_like(input_)
    if self.mem.shape != input_.shape:
        self.mem = torch.zeros_like(input_)
    reset = (self.mem - self.threshold > 0).float()
    new_syn = self.alpha.clamp(0, 1) * self.syn + input_
    new_mem = self.beta.clamp(0, 1) * self.mem + new_syn
    mem2 = self.beta.clamp(0, 1) * self.mem + (self.alpha.clamp(0, 1) * self.syn + input_)
    new_mem = new_mem - mem2 * reset
    self.syn = new_syn
    self.mem = new_mem
    spk = (self.mem - self.threshold > 0).float() * self.graded_spikes_factor
    do_reset = spk / self.graded_spikes_factor - reset
    self.mem = self.mem - do_reset * self.mem
    return spk

def reset_state(self) -> None:
    self.syn = torch.zeros_like(self.syn)
    self.mem = torch.zeros_like(self.mem)
)";

void snn_common_buffers(Module& m, double threshold) {
  m.register_buffer("threshold", scalar_f32(threshold));
  m.register_buffer("graded_spikes_factor", scalar_f32(1.0));
  m.register_buffer("reset_mechanism_val", torch::tensor(std::int64_t{1}));  // "zero"
}

// A rate as snnTorch keeps it: one value when all are equal (Synaptic's alpha and beta), else
// the array in the shape of the time constant it came from.
torch::Tensor rate_tensor(const std::vector<double>& values, const NirShape& shape, bool unify) {
  if (unify && all_equal(values)) return scalar_f32(values.front());
  return nir_float_tensor(values, shape);
}

// LIF as snnTorch's import takes it, or nothing when the node does not qualify: v_leak 0,
// v_reset 0, one input scale w = r dt / tau for all neurons, one threshold after dividing by it.
std::optional<NirModule> snntorch_leaky(const NirUnit& unit, const NirOptions& o,
                                        const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  const NirArray& tau = *find(unit, "tau");
  const NirArray& r = *find(unit, "r");
  const NirArray& thr = *find(unit, "v_threshold");
  const NirShape p = parameter_shape(*unit.node, unit.kind, unit.where);
  if (!all_zero(spread(unit, "v_leak", p, 0)) || !all_zero(spread(unit, "v_reset", p, 0))) {
    return std::nullopt;
  }
  const Arith a{tau.is_double || r.is_double};
  const double dt = a(o.dt);
  std::vector<double> beta;
  for (const double t : tau.values) beta.push_back(a(1 - a(dt / t)));
  const std::vector<double> taus = spread(unit, "tau", p, 0);
  const std::vector<double> rs = spread(unit, "r", p, 0);
  std::vector<double> w;
  for (std::size_t i = 0; i < taus.size(); ++i) w.push_back(a(a(rs[i] * dt) / taus[i]));
  const bool scaled = !std::all_of(w.begin(), w.end(), [](double x) { return close(x, 1.0); });
  if (scaled && !all_equal(w)) return std::nullopt;
  const Arith at{thr.is_double || a.dbl};
  std::vector<double> thresholds = spread(unit, "v_threshold", p, 0);
  if (scaled) {
    for (double& t : thresholds) t = at(t / w.front());
  }
  if (!all_equal(thresholds)) return std::nullopt;
  Module m = make_nir_class_module("Leaky", cu);
  snn_common_buffers(m, thresholds.front());
  m.register_buffer("beta", nir_float_tensor(beta, tau.shape));
  m.register_buffer("mem", torch::zeros({0}));
  m.define(kSnnLeaky);
  return NirModule{m,
                   fmt::format("snnTorch Leaky as import_from_nir makes it: beta = 1 - dt/tau, dt "
                               "{} s, reset to zero{}",
                               o.dt, scaled ? ", threshold divided by r dt / tau" : ""),
                   true};
}

// CubaLIF as snnTorch's import takes it: v_leak 0, v_reset 0, r = tau_mem / dt, one threshold
// after dividing each by w_in dt / tau_syn.
std::optional<NirModule> snntorch_synaptic(
    const NirUnit& unit, const NirOptions& o,
    const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  const NirArray& tau_syn = *find(unit, "tau_syn");
  const NirArray& tau_mem = *find(unit, "tau_mem");
  const NirShape p = parameter_shape(*unit.node, unit.kind, unit.where);
  if (!all_zero(spread(unit, "v_leak", p, 0)) || !all_zero(spread(unit, "v_reset", p, 0))) {
    return std::nullopt;
  }
  const Arith a{tau_syn.is_double || tau_mem.is_double || find(unit, "r")->is_double};
  const double dt = a(o.dt);
  const std::vector<double> ts = spread(unit, "tau_syn", p, 0);
  const std::vector<double> tm = spread(unit, "tau_mem", p, 0);
  const std::vector<double> rs = spread(unit, "r", p, 0);
  const std::vector<double> w_in = spread(unit, "w_in", p, 1);
  std::vector<double> thresholds = spread(unit, "v_threshold", p, 0);
  std::vector<double> w;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!close(rs[i], a(tm[i] / dt))) return std::nullopt;
    w.push_back(a(w_in[i] * a(dt / ts[i])));
  }
  if (!std::all_of(w.begin(), w.end(), [](double x) { return close(x, 1.0); })) {
    for (std::size_t i = 0; i < w.size(); ++i) thresholds[i] = a(thresholds[i] / w[i]);
  }
  if (!all_equal(thresholds)) return std::nullopt;
  std::vector<double> alpha, beta;
  for (const double t : tau_syn.values) alpha.push_back(a(1 - a(dt / t)));
  for (const double t : tau_mem.values) beta.push_back(a(1 - a(dt / t)));
  Module m = make_nir_class_module("Synaptic", cu);
  snn_common_buffers(m, thresholds.front());
  m.register_buffer("beta", rate_tensor(beta, tau_mem.shape, true));
  m.register_buffer("alpha", rate_tensor(alpha, tau_syn.shape, true));
  m.register_buffer("syn", torch::zeros({0}));
  m.register_buffer("mem", torch::zeros({0}));
  m.define(kSnnSynaptic);
  return NirModule{m,
                   fmt::format("snnTorch Synaptic as import_from_nir makes it: alpha = 1 - "
                               "dt/tau_syn, beta = 1 - dt/tau_mem, dt {} s, reset to zero",
                               o.dt),
                   true};
}

// --- one rule for every convention -------------------------------------------------------------

constexpr const char* kStateResetMem =
    "def reset_state(self) -> None:\n"
    "    self.mem = torch.zeros_like(self.mem)\n";

struct Decay {
  std::vector<double> decay, gain, bias;
};

// v' = decay v + gain x + bias for tau dv/dt = (leak - v) + r x over one step of dt.
Decay leaky_step(const std::vector<double>& tau, const std::vector<double>& r,
                 const std::vector<double>& leak, const NirOptions& o) {
  Decay d;
  for (std::size_t i = 0; i < tau.size(); ++i) {
    const double k = o.time == NirTime::kExact ? 1 - std::exp(-o.dt / tau[i]) : o.dt / tau[i];
    d.decay.push_back(1 - k);
    d.gain.push_back(r[i] * k);
    d.bias.push_back(leak[i] * k);
  }
  if (o.time == NirTime::kExact) {
    for (std::size_t i = 0; i < tau.size(); ++i) d.decay[i] = std::exp(-o.dt / tau[i]);
  }
  return d;
}

std::string spike_code(const NirOptions& o) {
  const std::string reset = o.reset == NirReset::kSubtract
                                ? "mem - spk * self.threshold"
                                : "torch.where(spk > 0.0, self.v_reset.to(mem.dtype), mem)";
  return "    spk = (mem > self.threshold).float()\n    self.mem = " + reset +
         "\n    return spk\n";
}

std::string rule_text(const NirUnit& unit, const NirOptions& o) {
  const bool per_step = o.time == NirTime::kSnntorch &&
                        (unit.kind == NirKind::kIF || unit.kind == NirKind::kI);
  std::string rule;
  if (per_step) {
    rule = "v += r x each timestep";
  } else if (unit.kind == NirKind::kIF || unit.kind == NirKind::kI) {
    rule = fmt::format("v += r x dt, dt {} s", o.dt);
  } else {
    rule = fmt::format("{}, dt {} s", o.time == NirTime::kExact ? "exact decay" : "forward Euler",
                       o.dt);
  }
  const bool spiking = unit.kind == NirKind::kIF || unit.kind == NirKind::kLIF ||
                       unit.kind == NirKind::kCubaLIF;
  if (spiking) {
    rule += o.reset == NirReset::kSubtract ? ", reset by subtracting v_threshold"
                                           : ", reset to v_reset";
  }
  return rule;
}

NirModule generic_neuron(const NirUnit& unit, const NirOptions& o,
                         const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  const NirShape p = parameter_shape(*unit.node, unit.kind, unit.where);
  const std::size_t n = spread(unit, "r", p, 0).size();
  const bool cuba = unit.kind == NirKind::kCubaLI || unit.kind == NirKind::kCubaLIF;
  const bool spiking = unit.kind == NirKind::kIF || unit.kind == NirKind::kLIF ||
                       unit.kind == NirKind::kCubaLIF;
  Decay mem;
  if (unit.kind == NirKind::kIF || unit.kind == NirKind::kI) {
    const std::vector<double> r = spread(unit, "r", p, 0);
    const bool per_step = o.time == NirTime::kSnntorch;
    mem.decay.assign(n, 1.0);
    mem.bias.assign(n, 0.0);
    for (const double v : r) mem.gain.push_back(per_step ? v : v * o.dt);
  } else {
    mem = leaky_step(spread(unit, cuba ? "tau_mem" : "tau", p, 0), spread(unit, "r", p, 0),
                     spread(unit, "v_leak", p, 0), o);
  }
  std::string cls = unit.node->type;
  if (unit.kind == NirKind::kLIF || unit.kind == NirKind::kIF) cls = "Leaky";
  if (unit.kind == NirKind::kCubaLIF) cls = "Synaptic";
  Module m = make_nir_class_module(cls, cu);
  m.register_buffer("decay", nir_float_tensor(mem.decay, p));
  m.register_buffer("gain", nir_float_tensor(mem.gain, p));
  m.register_buffer("bias", nir_float_tensor(mem.bias, p));
  std::string code =
      "def forward(self, input_: Tensor) -> Tensor:\n"
      "    if self.mem.shape != input_.shape:\n"
      "        self.mem = torch.zeros_like(input_)\n";
  std::string reset = kStateResetMem;
  if (cuba) {
    const Decay syn = leaky_step(spread(unit, "tau_syn", p, 0), spread(unit, "w_in", p, 1),
                                 std::vector<double>(n, 0.0), o);
    m.register_buffer("decay_syn", nir_float_tensor(syn.decay, p));
    m.register_buffer("gain_syn", nir_float_tensor(syn.gain, p));
    m.register_buffer("syn", torch::zeros({0}));
    code +=
        "    if self.syn.shape != input_.shape:\n"
        "        self.syn = torch.zeros_like(input_)\n"
        "    syn = self.syn\n"
        "    self.syn = self.decay_syn * syn + self.gain_syn * input_\n"
        "    mem = self.decay * self.mem + self.gain * syn + self.bias\n";
    reset += "    self.syn = torch.zeros_like(self.syn)\n";
  } else {
    code += "    mem = self.decay * self.mem + self.gain * input_ + self.bias\n";
  }
  if (spiking) {
    m.register_buffer("threshold", nir_float_tensor(spread(unit, "v_threshold", p, 0), p));
    m.register_buffer("v_reset", nir_float_tensor(spread(unit, "v_reset", p, 0), p));
    m.register_buffer("reset_mechanism_val",
                      torch::tensor(std::int64_t{o.reset == NirReset::kSubtract ? 0 : 1}));
    code += spike_code(o);
  } else {
    code += "    self.mem = mem\n    return mem\n";
  }
  m.register_buffer("mem", torch::zeros({0}));
  m.define(code + "\n" + reset);
  return {m, rule_text(unit, o), true};
}

}  // namespace

NirModule make_nir_neuron(const NirUnit& unit, const NirOptions& options,
                          const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  if (options.time == NirTime::kSnntorch && options.reset == NirReset::kVReset) {
    std::optional<NirModule> snn;
    if (unit.kind == NirKind::kLIF) snn = snntorch_leaky(unit, options, cu);
    if (unit.kind == NirKind::kCubaLIF) snn = snntorch_synaptic(unit, options, cu);
    if (snn) return std::move(*snn);
  }
  return generic_neuron(unit, options, cu);
}

}  // namespace neurobench::detail
