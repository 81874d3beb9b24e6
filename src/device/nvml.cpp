// SPDX-License-Identifier: Apache-2.0
#include "device/nvml.hpp"

#include <dlfcn.h>

namespace neurobench::detail {

namespace {

// NVML's C API, as nvml.h declares it (return codes: 0 is NVML_SUCCESS).
using InitFn = int (*)();
using ShutdownFn = int (*)();
using DriverVersionFn = int (*)(char* version, unsigned int length);

// The loaded library: opened once, never closed (NVML keeps state for the process).
void* nvml_library() {
  static void* const handle = [] {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h == nullptr) (void)dlerror();  // leave no error behind for the next dlerror()
    return h;
  }();
  return handle;
}

template <class Fn>
Fn symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

}  // namespace

namespace {

std::string read_driver_version() {
  void* library = nvml_library();
  if (library == nullptr) return {};
  const auto init = symbol<InitFn>(library, "nvmlInit_v2");
  const auto shutdown = symbol<ShutdownFn>(library, "nvmlShutdown");
  const auto version = symbol<DriverVersionFn>(library, "nvmlSystemGetDriverVersion");
  if (init == nullptr || shutdown == nullptr || version == nullptr || init() != 0) return {};
  char text[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  const bool ok = version(text, sizeof text - 1) == 0;
  (void)shutdown();
  return ok ? std::string(text) : std::string();
}

}  // namespace

// Read once per process: NVML's start-up takes milliseconds, and every run's environment asks
// (a driver does not change under a running process).
std::string nvidia_driver_version() {
  static const std::string version = read_driver_version();
  return version;
}

}  // namespace neurobench::detail
