// SPDX-License-Identifier: Apache-2.0
// Devices: their names, whether this process can use one, waiting for one, and what LibTorch
// and the GPU are (docs/devices.md). The CUDA specifics are in cuda.cpp (the `cuda` component),
// the driver's version in nvml.cpp, the lazy device in lazy.cpp.
#include <neurobench/device.hpp>

#include <charconv>
#include <cstdint>

#include <ATen/detail/CUDAHooksInterface.h>
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <neurobench/errors.hpp>

#include "device/cuda.hpp"
#include "device/lazy.hpp"
#include "device/nvml.hpp"

namespace neurobench {

namespace {

constexpr const char* kExpected = "expected cpu, cuda, cuda:N (N from 0) or lazy";

// CUDA's hooks are registered by LibTorch's CUDA library (libtorch_cuda) when it is loaded: a
// LibTorch built without CUDA has none.
bool libtorch_has_cuda() { return at::CUDAHooksRegistry()->Has("CUDAHooks"); }

// A version number as CUDA writes it (12080) as text (12.8).
std::string cuda_version_text(long v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// cuDNN 9 writes 9.10.2 as 91002, cuDNN 8 wrote 8.9.2 as 8902.
std::string cudnn_version_text(long v) {
  if (v >= 90000) return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100);
}

std::string gpus_text(int64_t n) {
  if (n == 1) return "1 GPU (cuda:0)";
  return fmt::format("{} GPUs (cuda:0 to cuda:{})", n, n - 1);
}

}  // namespace

c10::Device parse_device(std::string_view text) {
  if (text == "cpu") return c10::Device(c10::DeviceType::CPU);
  if (text == "lazy") return c10::Device(c10::DeviceType::Lazy);
  if (text == "cuda") return c10::Device(c10::DeviceType::CUDA);
  constexpr std::string_view kCuda = "cuda:";
  if (text.substr(0, kCuda.size()) == kCuda) {
    const std::string_view digits = text.substr(kCuda.size());
    int index = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    const bool decimal =
        !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (decimal && error == std::errc() && end == digits.data() + digits.size() && index >= 0 &&
        index <= 127) {  // c10::DeviceIndex is 8 bits
      return c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index));
    }
    throw UsageError(fmt::format("device '{}': '{}' is not a GPU index from 0 to 127; {}", text,
                                 digits, kExpected));
  }
  throw UsageError(fmt::format("'{}' is not a device; {}", text, kExpected));
}

std::string device_text(const c10::Device& device) {
  switch (device.type()) {
    case c10::DeviceType::CPU:
      return "cpu";
    case c10::DeviceType::Lazy:
      return "lazy";
    case c10::DeviceType::CUDA:
      return device.has_index() ? fmt::format("cuda:{}", static_cast<int>(device.index()))
                                : std::string("cuda");
    default:
      return device.str();
  }
}

c10::Device resolved_device(const c10::Device& device) {
  // The first device of its type, as tensors there name it (`cuda:0`, `lazy:0`).
  if ((device.is_cuda() || device.type() == c10::DeviceType::Lazy) && !device.has_index()) {
    return c10::Device(device.type(), 0);
  }
  return device;
}

void check_device(const c10::Device& device) {
  switch (device.type()) {
    case c10::DeviceType::CPU:
      return;
    case c10::DeviceType::Lazy:
      detail::init_lazy_device();
      return;
    case c10::DeviceType::CUDA:
      break;
    default:
      throw UsageError(fmt::format("device '{}': neurobench runs on cpu, cuda and lazy only",
                                   device_text(device)));
  }
  const std::string text = device_text(device);
  if (!libtorch_has_cuda()) {
    throw UsageError(fmt::format(
        "--device {}: this LibTorch ({}, {}) was built without CUDA; build neurobench against "
        "a LibTorch with CUDA (docs/devices.md) or run on the cpu",
        text, TORCH_VERSION, libtorch_build()));
  }
  const int64_t gpus = static_cast<int64_t>(torch::cuda::device_count());
  if (gpus == 0) {
    throw UsageError(fmt::format(
        "--device {}: this LibTorch has CUDA ({}), but no GPU is visible to this process (no "
        "NVIDIA driver, no GPU, or CUDA_VISIBLE_DEVICES hides them)",
        text, libtorch_build()));
  }
  const c10::Device resolved = resolved_device(device);
  if (resolved.index() >= gpus) {
    throw UsageError(fmt::format("--device {}: this machine has {}", text, gpus_text(gpus)));
  }
}

void synchronize(const c10::Device& device) {
  if (device.is_cuda()) {
    torch::cuda::synchronize(resolved_device(device).index());
  } else if (device.type() == c10::DeviceType::Lazy) {
    detail::synchronize_lazy_device();
  }
}

std::string libtorch_build() {
  if (!libtorch_has_cuda()) return "CPU";
  const at::CUDAHooksInterface& hooks = at::detail::getCUDAHooks();
  std::string out = "CUDA " + cuda_version_text(hooks.versionCUDART());
  try {
    const long cudnn = hooks.versionCuDNN();
    if (cudnn > 0) out += ", cuDNN " + cudnn_version_text(cudnn);
  } catch (const c10::Error&) {  // built without cuDNN
  }
  return out;
}

std::optional<DeviceMemory> device_memory(const c10::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  return detail::cuda_memory(resolved_device(device).index());
}

void reset_device_peak_memory(const c10::Device& device) {
  if (device.is_cuda()) detail::reset_cuda_peak_memory(resolved_device(device).index());
}

std::optional<GpuInfo> gpu_info(const c10::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  const int index = resolved_device(device).index();
  GpuInfo g = detail::cuda_device_info(index).value_or(GpuInfo{});
  g.index = index;
  g.driver = detail::nvidia_driver_version();
  if (libtorch_has_cuda()) {
    const at::CUDAHooksInterface& hooks = at::detail::getCUDAHooks();
    g.cuda_runtime = cuda_version_text(hooks.versionCUDART());
    try {
      const long cudnn = hooks.versionCuDNN();
      if (cudnn > 0) g.cudnn = cudnn_version_text(cudnn);
    } catch (const c10::Error&) {
    }
  }
  return g;
}

}  // namespace neurobench
