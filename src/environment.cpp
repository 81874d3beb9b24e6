// SPDX-License-Identifier: Apache-2.0
#include <neurobench/environment.hpp>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <torch/version.h>

#include <neurobench/components.hpp>

#ifndef NEUROBENCH_VERSION
#define NEUROBENCH_VERSION "0.0.0"
#endif
#ifndef NEUROBENCH_BUILD_TYPE
#define NEUROBENCH_BUILD_TYPE ""
#endif

namespace neurobench {

namespace detail {
// Defined in the file cmake/GitRevision.cmake generates at build time.
const char* git_commit();
bool git_dirty();
}  // namespace detail

std::string loaded_blas_library() {
  // LibTorch links libblas.so.3 before libopenblas.so.0, so BLAS calls resolve to whatever
  // libblas.so.3 is (an alternative on Debian); report that one when it is mapped.
  std::ifstream maps("/proc/self/maps");
  std::string line, first_other;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string name = std::filesystem::path(path).filename().string();
    const bool blas = name.rfind("libblas.so", 0) == 0;
    const bool other = name.rfind("libopenblas", 0) == 0 || name.rfind("libmkl_rt", 0) == 0 ||
                       name.rfind("libblis", 0) == 0;
    if (!blas && !other) continue;
    std::error_code ec;
    const auto resolved = std::filesystem::canonical(path, ec);
    const std::string found = ec ? path : resolved.string();
    if (blas) return found;
    if (first_other.empty()) first_other = found;
  }
  return first_other;
}

bool reference_blas_in_use() {
  const std::string lib = loaded_blas_library();
  // Debian's reference BLAS lives in .../blas/libblas.so.3; OpenBLAS, BLIS and MKL elsewhere.
  return lib.find("/blas/libblas.so") != std::string::npos;
}

const char* version() { return NEUROBENCH_VERSION; }

namespace {

// A `/proc/self/status` field in bytes (`VmRSS`, `VmHWM`), or -1 when not available.
int64_t status_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) != 0) continue;
    try {
      return std::stoll(line.substr(key.size())) * 1024;  // the kernel reports kB
    } catch (const std::exception&) {
      return -1;
    }
  }
  return -1;
}

}  // namespace

int64_t resident_memory_bytes() { return status_bytes("VmRSS"); }

int64_t peak_resident_memory_bytes() { return status_bytes("VmHWM"); }

bool reset_peak_resident_memory() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();  // the kernel refuses the write itself, so check after it happened
  return clear.good();
}

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  // x86 says "model name"; some ARM kernels only "Hardware" or "CPU part".
  for (const char* key : {"model name", "Hardware", "Processor"}) {
    cpuinfo.clear();
    cpuinfo.seekg(0);
    while (std::getline(cpuinfo, line)) {
      if (line.rfind(key, 0) != 0) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      if (start != std::string::npos) return line.substr(start);
    }
  }
  return "unknown";
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

std::string compiler() {
#if defined(__clang__)
  return fmt::format("Clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

Environment capture_environment(const c10::Device& device) {
  Environment e;
  e.cpu = cpu_model();
  e.cores = available_cpus();
  e.threads = at::get_num_threads();
  e.libtorch = TORCH_VERSION;
  e.libtorch_build = libtorch_build();
  e.cxx_standard = fmt::format("C++{}", __cplusplus / 100 % 100);
  e.components = built_components();
  e.device = device_text(resolved_device(device));
  e.gpu = gpu_info(device);
  e.blas = loaded_blas_library();
  e.build_type = NEUROBENCH_BUILD_TYPE[0] != '\0' ? NEUROBENCH_BUILD_TYPE : "unspecified";
  e.neurobench = NEUROBENCH_VERSION;
  e.git_commit = detail::git_commit();
  e.git_dirty = detail::git_dirty();
  e.compiler = compiler();
  utsname u{};
  if (uname(&u) == 0) e.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) e.hostname = host;
  e.date = utc_now();
  return e;
}

}  // namespace neurobench
