// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <neurobench/device.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The BLAS library this process has loaded (its resolved path), or empty when none is
/// loaded yet. LibTorch on Debian calls whichever BLAS the system provides.
[[nodiscard]] std::string loaded_blas_library();

/// True when the loaded BLAS is the slow reference implementation (Debian's `libblas3`),
/// which is 10-15x slower than OpenBLAS on Linear layers.
[[nodiscard]] bool reference_blas_in_use();

/// The project version, e.g. "0.1.0".
[[nodiscard]] const char* version();

/// Resident memory of this process now, in bytes (`VmRSS` of /proc/self/status); -1 where
/// that is not available (not Linux).
[[nodiscard]] int64_t resident_memory_bytes();
/// Peak resident memory of this process, in bytes (`VmHWM`): since it started, or since the
/// last successful reset_peak_resident_memory(); -1 where that is not available.
[[nodiscard]] int64_t peak_resident_memory_bytes();
/// Resets the peak to the current resident memory (writes 5 to /proc/self/clear_refs);
/// false when that is not allowed here.
bool reset_peak_resident_memory();

/// Where and how a benchmark ran: recorded with every result.
struct Environment {
  std::string cpu;         ///< CPU model name (from /proc/cpuinfo).
  int cores = 0;           ///< Logical CPUs available to the process.
  int threads = 0;         ///< LibTorch intra-op threads in use (`torch::set_num_threads`).
  std::string libtorch;    ///< LibTorch version, e.g. "1.13.0".
  std::string libtorch_build;  ///< What LibTorch was built for: `CPU` or `CUDA 12.8, cuDNN 9.10.2`.
  std::string cxx_standard;    ///< The C++ standard neurobench-cpp was built as: `C++17`, `C++20`.
  std::vector<std::string> components;  ///< The optional components built (components()).
  std::string device;                   ///< Where the model ran: `cpu`, `cuda:0`, `lazy`.
  std::optional<GpuInfo> gpu;           ///< The GPU, when the model ran on one.
  /// CUDA runs: whether TF32 was allowed for float32 convolutions and matrix products
  /// (RunOptions::tf32); false on another device when TF32 was asked for (it has no effect
  /// there); unset otherwise.
  std::optional<bool> tf32;
  std::string blas;        ///< The BLAS library loaded (see loaded_blas_library()).
  std::string build_type;  ///< CMake build type of neurobench-cpp, e.g. "Release".
  std::string neurobench;  ///< neurobench-cpp version.
  std::string git_commit;  ///< Commit neurobench-cpp was built from ("unknown" outside git).
  bool git_dirty = false;  ///< The build had uncommitted changes.
  std::string compiler;    ///< Compiler that built neurobench-cpp.
  std::string os;          ///< Kernel name, release and machine, e.g. "Linux 6.1.0 x86_64".
  std::string hostname;    ///< Host name.
  std::string date;        ///< When it was recorded: UTC, ISO 8601 (`2026-11-22T15:30:00Z`).

  /// True when nothing was recorded (a default-constructed value).
  [[nodiscard]] bool empty() const { return date.empty(); }
};

/// Records the environment now (threads as currently set in LibTorch), for a run on `device`
/// (its GPU described when it is a CUDA device).
[[nodiscard]] Environment capture_environment(const c10::Device& device = c10::kCPU);

}  // namespace neurobench
NEUROBENCH_API_END
