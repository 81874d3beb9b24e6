// SPDX-License-Identifier: Apache-2.0
// A build without the `cuda` component (a LibTorch without CUDA, or NEUROBENCH_WITH_CUDA=OFF):
// no CUDA statistics. A CUDA LibTorch still runs models on the GPU; results then lack the
// device's memory peaks and its name (device.cpp and PeakMemory say so).
#include "device/cuda.hpp"

namespace neurobench::detail {

std::optional<DeviceMemory> cuda_memory(int /*index*/) { return std::nullopt; }

void reset_cuda_peak_memory(int /*index*/) {}

std::optional<GpuInfo> cuda_device_info(int /*index*/) { return std::nullopt; }

std::string cuda_pci_bus_id(int /*index*/) { return {}; }

}  // namespace neurobench::detail
