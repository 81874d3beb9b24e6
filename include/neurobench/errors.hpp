// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <exception>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

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

/// A metric cannot be measured on this machine (no sensor, no permission to read it): not a
/// failure. A run records its value as null, says why in `_run.unavailable` (metric name ->
/// reason) and in a warning, and does not list it among the failures (docs/metrics.md,
/// "Unavailable values"). The message starts with the metric's name.
struct MetricUnavailable : MetricError {
  using MetricError::MetricError;
};

/// A run stopped on request before it had results: request_stop() was called
/// (<neurobench/stop.hpp>), or a signal arrived in a program that called stop_on_signals()
/// (`neurobench run` on SIGINT or SIGTERM). The message says what was interrupted and how far
/// it got: `interrupted by SIGINT during the workload pass, after 3 of 100 batches`.
struct Interrupted : Error {
  /// `signal` is the signal's number (SIGINT, SIGTERM), 0 for a request from code.
  Interrupted(const std::string& message, int signal) : Error(message), signal_(signal) {}
  /// The signal that asked for the stop, 0 for request_stop() from code.
  [[nodiscard]] int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

/// Exit status of a program that computed every metric.
inline constexpr int kExitOk = 0;
/// Exit status when a metric failed (the others were computed): a Results with failures, or
/// a MetricError that stopped the program.
inline constexpr int kExitMetricFailed = 1;
/// Exit status when an error stopped the program before it had results: bad usage, bad input,
/// an error from LibTorch, or any other exception.
inline constexpr int kExitError = 2;

/// Exit status of a program stopped by Interrupted from code (request_stop()) or by SIGINT: as
/// a shell reports a program killed by SIGINT, 128 + 2. A stop on another signal exits with
/// 128 + its number (SIGTERM: 143); see describe_error().
inline constexpr int kExitInterrupted = 130;

/// What kind of exception stopped a program, as describe_error() sorts them.
enum class ErrorKind {
  Usage,        ///< UsageError: an unknown name, an invalid option.
  Input,        ///< InputError: a missing or corrupt file, a wrong shape.
  Metric,       ///< MetricError: a metric failed.
  Interrupted,  ///< Interrupted: stopped on request or by a signal.
  LibTorch,     ///< c10::Error: LibTorch refused an operation (not wrapped by neurobench).
  OutOfMemory,  ///< std::bad_alloc.
  Other,        ///< Any other std::exception (a neurobench::Error of no finer kind included).
  Unknown,      ///< An exception that is not a std::exception.
};

/// The exit status for an error of `kind`: kExitMetricFailed for ErrorKind::Metric,
/// kExitInterrupted for ErrorKind::Interrupted, kExitError for every other kind (docs/cli.md,
/// "Exit status").
[[nodiscard]] int exit_status_for(ErrorKind kind);

/// An exception told to a user: its kind, a one-line message and the exit status.
struct ErrorReport {
  ErrorKind kind = ErrorKind::Unknown;  ///< What was thrown.
  /// The exception's message, without LibTorch's C++ backtrace, safe to print: control
  /// characters escaped (line breaks and tabs kept), cut after 4000 characters with a note of
  /// how many bytes were left out.
  std::string message;
  /// exit_status_for(kind); for an Interrupted with a signal, 128 + the signal's number.
  int exit_status = kExitError;
};

/// Describes an exception for the user: `what()` for ours and other standard exceptions,
/// `what_without_backtrace()` for LibTorch's, "out of memory" for std::bad_alloc, and
/// "unknown error (not a std::exception)" for anything else.
/// Throws UsageError when `error` is null.
///
/// ```cpp
/// try { run(); } catch (...) {
///   const neurobench::ErrorReport r = neurobench::describe_error(std::current_exception());
///   std::cerr << "error: " << r.message << "\n";
///   return r.exit_status;
/// }
/// ```
[[nodiscard]] ErrorReport describe_error(const std::exception_ptr& error);

/// Runs `body` and returns its exit status; when it throws, writes `error: MESSAGE` and a
/// newline to `err` and returns the exit status describe_error() gives. The `neurobench`
/// command and the example programs run their work through it.
///
/// ```cpp
/// int main() { return neurobench::report_errors([] { return run_benchmark(); }, std::cerr); }
/// ```
[[nodiscard]] int report_errors(const std::function<int()>& body, std::ostream& err);

}  // namespace neurobench
NEUROBENCH_API_END
