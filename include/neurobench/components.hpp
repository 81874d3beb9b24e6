// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// An optional part of neurobench-cpp, built where what it needs was found when it was
/// configured (docs/cmake.md, "Components").
struct Component {
  std::string name;    ///< `hdf5`, `sndfile`, `distributed`, `cuda` or `ffmpeg`.
  bool built = false;  ///< Whether this build has it.
  std::string needs;   ///< What building it needs (`HDF5's C library (Debian: libhdf5-dev)`).
  std::string gives;   ///< What it gives (`MATLAB v7.3 files: the primate-reaching data set`).
};

/// Every optional component, in a fixed order (hdf5, sndfile, distributed, cuda,
/// ffmpeg), built or not.
[[nodiscard]] const std::vector<Component>& components();

/// True when this build has the component `name`. Throws UsageError for an unknown name.
[[nodiscard]] bool has_component(std::string_view name);

/// The names of the components this build has, in components() order.
[[nodiscard]] std::vector<std::string> built_components();

/// Throws UsageError when this build lacks the component `name`, saying that `what` needs it
/// (`reading a MATLAB v7.3 file`), what building it needs and how: `this neurobench was built
/// without its 'hdf5' component, which reading a MATLAB v7.3 file needs: install HDF5's C
/// library (Debian: libhdf5-dev) and build neurobench again (NEUROBENCH_WITH_HDF5)`.
void require_component(std::string_view name, std::string_view what);

}  // namespace neurobench
NEUROBENCH_API_END
