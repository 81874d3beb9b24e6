// SPDX-License-Identifier: Apache-2.0
#include <neurobench/environment.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#ifndef NEUROBENCH_VERSION
#define NEUROBENCH_VERSION "0.0.0"
#endif

namespace neurobench {

std::string loaded_blas_library() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.rfind("libblas.so", 0) == 0 || name.rfind("libopenblas", 0) == 0 ||
        name.rfind("libmkl_rt", 0) == 0 || name.rfind("libblis", 0) == 0) {
      std::error_code ec;
      const auto resolved = std::filesystem::canonical(path, ec);
      return ec ? path : resolved.string();
    }
  }
  return {};
}

bool reference_blas_in_use() {
  const std::string lib = loaded_blas_library();
  // Debian's reference BLAS lives in .../blas/libblas.so.3; OpenBLAS, BLIS and MKL elsewhere.
  return lib.find("/blas/libblas.so") != std::string::npos;
}

const char* version() { return NEUROBENCH_VERSION; }

}  // namespace neurobench
