// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where a benchmark runs: the CPU, a CUDA GPU, or LibTorch's lazy tensor device (docs/devices.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <c10/core/Device.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Parses a device as `--device` and a config's `device` write it:
/// - `cpu`;
/// - `cuda` (the first GPU, `cuda:0`; in a sharded run, `cuda:LOCAL_RANK`) or `cuda:N`;
/// - `lazy`: LibTorch's lazy tensors, run on the CPU through TorchScript. Not a place to run
///   benchmarks (it is slow and its timings mean nothing), but a device other than the CPU that
///   every LibTorch has: the tests run the device code on it where no GPU is.
///
/// Throws UsageError quoting `text` for anything else (`gpu`, `cuda:`, `cuda:-1`, `cuda:x`).
///
/// ```cpp
/// neurobench::RunOptions options;
/// options.device = neurobench::parse_device("cuda:1");
/// ```
[[nodiscard]] c10::Device parse_device(std::string_view text);

/// The device as parse_device() reads it: `cpu`, `cuda`, `cuda:0`, `lazy`.
[[nodiscard]] std::string device_text(const c10::Device& device);

/// The device as tensors on it name it: `cuda` as `cuda:0`, `lazy` as `lazy:0`; every other
/// device as it is.
[[nodiscard]] c10::Device resolved_device(const c10::Device& device);

/// Throws UsageError naming what is missing when this process cannot run on `device`: a
/// LibTorch built without CUDA (`this LibTorch (1.13.0, CPU) was built without CUDA`), no GPU
/// visible (`CUDA is built in, but no GPU is visible ...`), an index past the GPUs there are
/// (`cuda:7: this machine has 1 GPU (cuda:0)`), or a device type neurobench does not run on.
/// The command line calls it before it loads the model.
void check_device(const c10::Device& device);

/// Waits until the work queued on `device` is done: CUDA's queue of the device, the lazy
/// device's pending graph (executed); nothing for the CPU. Timings call it around what they
/// time, so that they time completed work.
void synchronize(const c10::Device& device);

/// What this LibTorch was built for: `CPU`, or `CUDA 12.8, cuDNN 9.10.2` (the CUDA runtime and
/// cuDNN it was built with).
[[nodiscard]] std::string libtorch_build();

/// The caching allocator's statistics of a CUDA device, in bytes.
struct DeviceMemory {
  int64_t allocated = 0;       ///< Held by tensors now.
  int64_t peak_allocated = 0;  ///< The most held by tensors since reset_device_peak_memory().
  int64_t reserved = 0;        ///< Reserved from the GPU by the caching allocator now.
  int64_t peak_reserved = 0;   ///< The most reserved since reset_device_peak_memory().
};

/// The memory statistics of `device` when it is a CUDA device and this build has the `cuda`
/// component (<neurobench/components.hpp>); nullopt otherwise.
[[nodiscard]] std::optional<DeviceMemory> device_memory(const c10::Device& device);

/// Starts the peaks of device_memory() again from the current values (CUDA with the `cuda`
/// component; nothing otherwise).
void reset_device_peak_memory(const c10::Device& device);

/// A GPU, as results record it in `_environment.gpu`. Each field is empty (0) when it could
/// not be told.
struct GpuInfo {
  int index = 0;                   ///< The CUDA device index.
  std::string name;                ///< `NVIDIA H100 80GB HBM3` (the `cuda` component).
  int64_t memory_bytes = 0;        ///< Its memory (the `cuda` component).
  std::string compute_capability;  ///< `9.0` (the `cuda` component).
  std::string driver;              ///< The NVIDIA driver's version, `580.95.05` (from NVML).
  std::string cuda_driver;   ///< The newest CUDA the driver runs, `13.0` (the `cuda` component).
  std::string cuda_runtime;  ///< The CUDA runtime LibTorch was built with, `12.8`.
  std::string cudnn;         ///< cuDNN's version, `9.10.2`; empty without cuDNN.
};

/// The GPU `device` names, when it is a CUDA device: what LibTorch, the `cuda` component and
/// NVML (the driver's management library, loaded at run time when it is there) tell of it;
/// nullopt for any other device.
[[nodiscard]] std::optional<GpuInfo> gpu_info(const c10::Device& device);

}  // namespace neurobench
NEUROBENCH_API_END
