// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a NIR graph's continuous-time dynamics become timesteps (docs/nir.md). Plain data: no
// LibTorch header.

#include <optional>
#include <string>
#include <string_view>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The discretisation of a NIR graph's neurons.
enum class NirTime {
  kSnntorch,  ///< As snnTorch 0.9.4's import_from_nir where it takes the node; else kEuler at
              ///< dt, with IF and I integrating r * x per step.
  kEuler,     ///< Forward Euler at dt: v += dt/tau * (v_leak - v + r * x).
  kExact,     ///< Exponential decay at dt, the input held over the step.
};

/// What a spiking neuron's membrane becomes when it fires.
enum class NirReset {
  kVReset,    ///< v = v_reset (NIR's equations; snnTorch's reset to zero when v_reset is 0).
  kSubtract,  ///< v = v - v_threshold (the NIR paper's reference implementation).
};

/// How a NIR graph is built into a module.
struct NirOptions {
  NirTime time = NirTime::kSnntorch;
  double dt = 1e-4;  ///< Seconds per timestep (snnTorch's import uses 1e-4).
  NirReset reset = NirReset::kVReset;
};

/// `snntorch`, `euler`, `exact`.
[[nodiscard]] NEUROBENCH_API std::string_view nir_time_name(NirTime time);
/// The time convention of a name, or nothing.
[[nodiscard]] NEUROBENCH_API std::optional<NirTime> nir_time_from_name(std::string_view name);
/// `v_reset`, `subtract`.
[[nodiscard]] NEUROBENCH_API std::string_view nir_reset_name(NirReset reset);
/// The reset of a name, or nothing.
[[nodiscard]] NEUROBENCH_API std::optional<NirReset> nir_reset_from_name(std::string_view name);

}  // namespace neurobench

NEUROBENCH_API_END
