// SPDX-License-Identifier: Apache-2.0
#pragma once

// NVIDIA's management library (NVML, libnvidia-ml.so.1, part of the driver), loaded at run time
// with dlopen: no build or link dependency, and nothing happens where it is not installed.
// Private to the library.

#include <string>

namespace neurobench::detail {

/// The NVIDIA driver's version (`580.95.05`), or empty when NVML cannot be loaded or answer.
[[nodiscard]] std::string nvidia_driver_version();

}  // namespace neurobench::detail
