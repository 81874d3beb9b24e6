// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>
#include <string>

namespace neurobench {

/// Base of every exception neurobench throws on purpose.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Bad input: a missing or corrupt file, a missing array, a wrong dtype or shape.
struct InputError : Error {
  using Error::Error;
};

/// Bad usage: an unknown name, an invalid option, a call out of order.
struct UsageError : Error {
  using Error::Error;
};

/// One metric failed during a run; the message starts with the metric's name.
struct MetricError : Error {
  using Error::Error;
};

}  // namespace neurobench
