// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace neurobench {

/// The BLAS library this process has loaded (its resolved path), or empty when none is
/// loaded yet. LibTorch on Debian calls whichever BLAS the system provides.
[[nodiscard]] std::string loaded_blas_library();

/// True when the loaded BLAS is the slow reference implementation (Debian's `libblas3`),
/// which is 10-15x slower than OpenBLAS on Linear layers.
[[nodiscard]] bool reference_blas_in_use();

/// The project version, e.g. "0.1.0".
[[nodiscard]] const char* version();

}  // namespace neurobench
