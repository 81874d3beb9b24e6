// SPDX-License-Identifier: Apache-2.0
// One mapping from exceptions to messages and exit statuses, for the command line and the
// example programs alike.
#include <neurobench/errors.hpp>

#include <new>
#include <ostream>

#include <c10/util/Exception.h>

#include "util/text.hpp"

namespace neurobench {

int exit_status_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Metric:
      return kExitMetricFailed;
    case ErrorKind::Interrupted:
      return kExitInterrupted;
    default:
      return kExitError;
  }
}

namespace {
// Every message may quote what a user gave (a path, a line of a file): the last guard against
// a megabyte line or an escape sequence reaching the terminal.
ErrorReport report(ErrorKind kind, const std::string& message) {
  return ErrorReport{kind, detail::message_text(message), exit_status_for(kind)};
}
}  // namespace

ErrorReport describe_error(const std::exception_ptr& error) {
  if (!error) throw UsageError("describe_error: no exception to describe (a null exception_ptr)");
  // Most derived first: UsageError before Error before std::exception.
  try {
    std::rethrow_exception(error);
  } catch (const Interrupted& e) {
    ErrorReport r = report(ErrorKind::Interrupted, e.what());
    // As a shell reports a program a signal ended: 128 + the signal (SIGTERM: 143).
    if (e.signal() > 0 && e.signal() < 128) r.exit_status = 128 + e.signal();
    return r;
  } catch (const UsageError& e) {
    return report(ErrorKind::Usage, e.what());
  } catch (const InputError& e) {
    return report(ErrorKind::Input, e.what());
  } catch (const MetricError& e) {
    return report(ErrorKind::Metric, e.what());
  } catch (const c10::Error& e) {
    // The full what() of a LibTorch error carries a C++ backtrace meant for its developers.
    return report(ErrorKind::LibTorch, e.what_without_backtrace());
  } catch (const std::bad_alloc& e) {
    return report(ErrorKind::OutOfMemory, std::string("out of memory (") + e.what() + ")");
  } catch (const std::exception& e) {
    return report(ErrorKind::Other, e.what());
  } catch (...) {
    return report(ErrorKind::Unknown, "unknown error (not a std::exception)");
  }
}

int report_errors(const std::function<int()>& body, std::ostream& err) {
  try {
    return body();
  } catch (...) {
    const ErrorReport r = describe_error(std::current_exception());
    err << "error: " << r.message << "\n";
    return r.exit_status;
  }
}

}  // namespace neurobench
