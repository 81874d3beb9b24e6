// SPDX-License-Identifier: Apache-2.0
// A GPU's energy, power, utilisation, SM clock and temperature through NVIDIA's management
// library, loaded with dlopen from a path (libnvidia-ml.so.1 from the driver, or the tests' stub
// library with the same symbols): no build or link dependency.
#include <dlfcn.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "io/file_type.hpp"
#include "metrics/platform_readers.hpp"

namespace neurobench::detail {

namespace {

// NVML's C API as nvml.h declares it; 0 is NVML_SUCCESS. nvmlDevice_t is an opaque pointer.
using NvmlDevice = void*;
struct NvmlUtilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

}  // namespace

struct NvmlGpu::Api {
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*by_index)(unsigned int, NvmlDevice*) = nullptr;
  int (*by_pci)(const char*, NvmlDevice*) = nullptr;
  int (*energy)(NvmlDevice, unsigned long long*) = nullptr;  // NOLINT(runtime/int): NVML's type
  int (*power)(NvmlDevice, unsigned int*) = nullptr;
  int (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  int (*clock)(NvmlDevice, int, unsigned int*) = nullptr;
  int (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  bool initialised = false;

  [[nodiscard]] std::string text(int code) const {
    const char* s = error_string != nullptr ? error_string(code) : nullptr;
    return s != nullptr ? fmt::format("{} (NVML error {})", s, code)
                        : fmt::format("NVML error {}", code);
  }
};

namespace {

template <class Fn>
void nvml_symbol(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
}

}  // namespace

NvmlGpu::NvmlGpu(const std::string& library, const std::string& pci_bus_id, int index)
    : api_(std::make_unique<Api>()) {
  // Never closed: NVML keeps state for the process, and the driver's library may be in use by
  // CUDA too; dlopen of the same path again returns the same handle.
  // A path (not a name for the loader to search): dlopen() would wait for ever on a FIFO.
  if (library.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(library.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      unavailable_ = fmt::format("NVIDIA's management library {} is {}, not a regular file",
                                 library, describe_file_type(st.st_mode));
      return;
    }
  }
  api_->library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api_->library == nullptr) {
    const char* why = dlerror();
    unavailable_ = fmt::format("NVIDIA's management library {} cannot be loaded: {}", library,
                               why != nullptr ? why : "not found");
    return;
  }
  Api& a = *api_;
  nvml_symbol(a.library, "nvmlInit_v2", a.init);
  nvml_symbol(a.library, "nvmlShutdown", a.shutdown);
  nvml_symbol(a.library, "nvmlErrorString", a.error_string);
  nvml_symbol(a.library, "nvmlDeviceGetHandleByIndex_v2", a.by_index);
  nvml_symbol(a.library, "nvmlDeviceGetHandleByPciBusId_v2", a.by_pci);
  nvml_symbol(a.library, "nvmlDeviceGetTotalEnergyConsumption", a.energy);
  nvml_symbol(a.library, "nvmlDeviceGetPowerUsage", a.power);
  nvml_symbol(a.library, "nvmlDeviceGetUtilizationRates", a.utilization);
  nvml_symbol(a.library, "nvmlDeviceGetClockInfo", a.clock);
  nvml_symbol(a.library, "nvmlDeviceGetTemperature", a.temperature);
  if (a.init == nullptr || a.shutdown == nullptr || a.by_index == nullptr) {
    unavailable_ = fmt::format(
        "{} lacks nvmlInit_v2, nvmlShutdown or "
        "nvmlDeviceGetHandleByIndex_v2: not NVIDIA's management library",
        library);
    return;
  }
  if (const int rc = a.init(); rc != 0) {
    unavailable_ = fmt::format("nvmlInit_v2 failed: {}", a.text(rc));
    return;
  }
  a.initialised = true;
  NvmlDevice device = nullptr;
  if (!pci_bus_id.empty() && a.by_pci != nullptr && a.by_pci(pci_bus_id.c_str(), &device) == 0) {
    found_by_ = "pci " + pci_bus_id;
  } else if (const int rc = a.by_index(static_cast<unsigned int>(index), &device); rc == 0) {
    found_by_ = fmt::format("index {}", index);
  } else {
    unavailable_ =
        fmt::format("NVML has no GPU {}{}: {}", index,
                    pci_bus_id.empty() ? "" : " (nor one at PCI " + pci_bus_id + ")", a.text(rc));
    return;
  }
  device_ = device;
}

NvmlGpu::~NvmlGpu() {
  if (api_ && api_->initialised) (void)api_->shutdown();
}

GpuReading NvmlGpu::read(bool energy, bool utilisation, bool clock, bool temperature) {
  GpuReading r;
  if (device_ == nullptr) return r;
  const Api& a = *api_;
  // Each field: the function missing from an older driver, or refused (Not Supported on GPUs
  // without the counter), leaves it unset; the first reason is kept.
  const auto refused = [&](const char* field, int rc) {
    refusals_.emplace(field, rc == -1 ? "the driver's NVML lacks the function" : a.text(rc));
  };
  if (energy) {
    unsigned long long mj = 0;  // NOLINT(runtime/int)
    const int rc = a.energy != nullptr ? a.energy(device_, &mj) : -1;
    if (rc == 0) {
      r.energy_mj = static_cast<double>(mj);
    } else {
      refused("energy", rc);
    }
    unsigned int mw = 0;
    const int prc = a.power != nullptr ? a.power(device_, &mw) : -1;
    if (prc == 0) {
      r.power_mw = mw;
    } else {
      refused("power", prc);
    }
  }
  if (utilisation) {
    NvmlUtilization u{};
    const int rc = a.utilization != nullptr ? a.utilization(device_, &u) : -1;
    if (rc == 0) {
      r.utilisation_percent = u.gpu;
    } else {
      refused("utilisation", rc);
    }
  }
  if (clock) {
    unsigned int mhz = 0;
    const int rc = a.clock != nullptr ? a.clock(device_, kNvmlClockSm, &mhz) : -1;
    if (rc == 0) {
      r.sm_clock_mhz = mhz;
    } else {
      refused("sm_clock", rc);
    }
  }
  if (temperature) {
    unsigned int c = 0;
    const int rc = a.temperature != nullptr ? a.temperature(device_, kNvmlTemperatureGpu, &c) : -1;
    if (rc == 0) {
      r.temperature_c = c;
    } else {
      refused("temperature", rc);
    }
  }
  return r;
}

}  // namespace neurobench::detail
