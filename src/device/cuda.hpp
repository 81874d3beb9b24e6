// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the `cuda` component tells of a CUDA device (cuda.cpp, built with a LibTorch that has
// CUDA), or that it is not built (cuda_absent.cpp). Private to the library.

#include <optional>
#include <string>

#include <neurobench/device.hpp>

namespace neurobench::detail {

/// The caching allocator's statistics of CUDA device `index`; nullopt without the component.
[[nodiscard]] std::optional<DeviceMemory> cuda_memory(int index);
/// Resets the caching allocator's peaks of CUDA device `index` (nothing without the component).
void reset_cuda_peak_memory(int index);
/// Name, memory and compute capability of CUDA device `index`, and the CUDA version of the
/// driver; nullopt without the component.
[[nodiscard]] std::optional<GpuInfo> cuda_device_info(int index);
/// The PCI bus id of CUDA device `index` (`0000:3B:00.0`), by which NVML finds the same GPU
/// whatever CUDA_VISIBLE_DEVICES says; empty without the component or when CUDA cannot say.
[[nodiscard]] std::string cuda_pci_bus_id(int index);

}  // namespace neurobench::detail
