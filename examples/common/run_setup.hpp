// SPDX-License-Identifier: Apache-2.0
// What the bundled examples do around a benchmark: the clock, the warning about a slow BLAS,
// and opening a data set by kind.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/environment.hpp>

namespace neurobench::examples {

/// Seconds of wall time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Warns on stderr, unless `quiet`, when the reference BLAS is loaded (runs will be slow).
inline void warn_if_reference_blas(bool quiet) {
  if (!quiet && neurobench::reference_blas_in_use()) {
    fmt::print(stderr, "warning: the reference BLAS is loaded ({}); expect slow runs\n",
               neurobench::loaded_blas_library());
  }
}

/// Opens the data set `spec` names, its progress bar shown unless `quiet`. Throws as
/// DatasetKinds::open().
inline std::shared_ptr<neurobench::Dataset> open_dataset(const neurobench::DatasetSpec& spec,
                                                         bool quiet) {
  neurobench::DatasetOpenOptions open;
  open.quiet = quiet;
  return neurobench::dataset_kinds().open(spec, open);
}

}  // namespace neurobench::examples
