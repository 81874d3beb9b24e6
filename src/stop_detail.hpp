// SPDX-License-Identifier: Apache-2.0
// Stop requests as the passes of a run and the data sets' indexing see them (the public side
// is <neurobench/stop.hpp>).
#pragma once

#include <string>

#include <neurobench/stop.hpp>

namespace neurobench::detail {

/// Throws Interrupted: `interrupted by SIGINT WHERE` (`where`: "during the workload pass, after
/// 3 of 100 batches").
[[noreturn]] void throw_interrupted(const std::string& where);

/// When a stop was requested (request_stop()), throws Interrupted saying where: `where()` gives
/// the words, formatted only then. The passes call it between batches.
template <class Where>
void stop_if_requested(Where&& where) {
  if (stop_requested()) throw_interrupted(where());
}

}  // namespace neurobench::detail
