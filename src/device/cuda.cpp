// SPDX-License-Identifier: Apache-2.0
// The `cuda` component: the caching allocator's statistics and the description of a CUDA
// device, through LibTorch's CUDA headers and the CUDA runtime. Built only with a LibTorch that
// has CUDA (CMakeLists.txt); cuda_absent.cpp stands in elsewhere.
#include "device/cuda.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace neurobench::detail {

namespace {

// The "all pools" entry of a statistics array: index 0 (StatType::AGGREGATE) in every LibTorch
// from 1.13 on, whichever namespace holds StatType in that version.
constexpr std::size_t kAllPools = 0;

// The caching allocator is set up by CUDA's lazy initialisation, on the first CUDA tensor; its
// statistics calls refuse a device before that ("Invalid device argument"), as when a model
// without parameters runs. An empty tensor initialises CUDA and allocates nothing.
void initialise_cuda(int index) {
  (void)at::empty({0}, at::TensorOptions().device(
                           c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index))));
}

}  // namespace

std::optional<DeviceMemory> cuda_memory(int index) {
  initialise_cuda(index);
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  DeviceMemory m;
  m.allocated = stats.allocated_bytes[kAllPools].current;
  m.peak_allocated = stats.allocated_bytes[kAllPools].peak;
  m.reserved = stats.reserved_bytes[kAllPools].current;
  m.peak_reserved = stats.reserved_bytes[kAllPools].peak;
  return m;
}

void reset_cuda_peak_memory(int index) {
  initialise_cuda(index);
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

std::optional<GpuInfo> cuda_device_info(int index) {
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(index);
  GpuInfo g;
  g.index = index;
  if (p != nullptr) {
    g.name = p->name;
    g.memory_bytes = static_cast<int64_t>(p->totalGlobalMem);
    g.compute_capability = fmt::format("{}.{}", p->major, p->minor);
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    g.cuda_driver = fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10);
  }
  return g;
}

std::string cuda_pci_bus_id(int index) {
  char id[32] = {};  // "0000:3B:00.0" and its NUL; CUDA asks for at least 13 bytes
  if (cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), index) != cudaSuccess) {
    (void)cudaGetLastError();  // leave no sticky error for LibTorch's next check
    return {};
  }
  return id;
}

}  // namespace neurobench::detail
