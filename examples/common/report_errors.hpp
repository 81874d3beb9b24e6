// SPDX-License-Identifier: Apache-2.0
// The example programs' error handling: one message on stderr, and the exit status of the
// `neurobench` command (2 for bad usage or input, 1 for anything else that failed).
#pragma once

#include <exception>
#include <iostream>

#include <c10/util/Exception.h>

#include <neurobench/errors.hpp>

namespace neurobench::examples {

/// Runs `body` and returns its exit status, or reports what it threw and returns 2 or 1.
template <class Body>
int report_errors(Body&& body) {
  try {
    return body();
  } catch (const neurobench::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const neurobench::UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace neurobench::examples
