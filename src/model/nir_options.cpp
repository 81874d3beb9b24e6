// SPDX-License-Identifier: Apache-2.0
// The names of NIR's time conventions and resets, as options and records spell them.
#include <neurobench/model/nir_options.hpp>

namespace neurobench {

std::string_view nir_time_name(NirTime time) {
  switch (time) {
    case NirTime::kEuler: return "euler";
    case NirTime::kExact: return "exact";
    case NirTime::kSnntorch: break;
  }
  return "snntorch";
}

std::optional<NirTime> nir_time_from_name(std::string_view name) {
  for (const NirTime t : {NirTime::kSnntorch, NirTime::kEuler, NirTime::kExact}) {
    if (nir_time_name(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view nir_reset_name(NirReset reset) {
  return reset == NirReset::kSubtract ? "subtract" : "v_reset";
}

std::optional<NirReset> nir_reset_from_name(std::string_view name) {
  for (const NirReset r : {NirReset::kVReset, NirReset::kSubtract}) {
    if (nir_reset_name(r) == name) return r;
  }
  return std::nullopt;
}

}  // namespace neurobench
