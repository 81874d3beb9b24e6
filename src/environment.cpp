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

}  // namespace neurobench
