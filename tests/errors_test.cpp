// SPDX-License-Identifier: Apache-2.0
// One mapping from exceptions to messages and exit statuses (errors.hpp, docs/cli.md).
#include <neurobench/errors.hpp>

#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include <c10/util/Exception.h>
#include <catch2/catch.hpp>

using neurobench::describe_error;
using neurobench::ErrorKind;
using neurobench::ErrorReport;

namespace {
template <class E>
ErrorReport described(const E& e) {
  return describe_error(std::make_exception_ptr(e));
}

// A c10::Error as LibTorch throws it, with its backtrace.
std::exception_ptr libtorch_error() {
  try {
    TORCH_CHECK(false, "Expected all tensors to be on the same device");
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}
}  // namespace

TEST_CASE("bad usage and bad input exit 2 with the exception's message", "[errors]") {
  const ErrorReport usage = described(neurobench::UsageError("unknown metric 'Acuracy'"));
  CHECK(usage.kind == ErrorKind::Usage);
  CHECK(usage.message == "unknown metric 'Acuracy'");
  CHECK(usage.exit_status == 2);
  const ErrorReport input = described(neurobench::InputError("net.pt: no such model file"));
  CHECK(input.kind == ErrorKind::Input);
  CHECK(input.message == "net.pt: no such model file");
  CHECK(input.exit_status == 2);
}

TEST_CASE("a metric error exits 1, the status of a failed metric", "[errors]") {
  const ErrorReport r = described(neurobench::MetricError("SMAPE: no targets"));
  CHECK(r.kind == ErrorKind::Metric);
  CHECK(r.message == "SMAPE: no targets");
  CHECK(r.exit_status == neurobench::kExitMetricFailed);
  CHECK(r.exit_status == 1);
}

TEST_CASE("a LibTorch error exits 2 with its message and without its backtrace", "[errors]") {
  const std::exception_ptr e = libtorch_error();
  REQUIRE(e);
  const ErrorReport r = describe_error(e);
  CHECK(r.kind == ErrorKind::LibTorch);
  CHECK(r.exit_status == 2);
  CHECK_THAT(r.message, Catch::Contains("Expected all tensors to be on the same device"));
  CHECK_THAT(r.message, !Catch::Contains("Exception raised from"));
}

TEST_CASE("running out of memory exits 2 and says so", "[errors]") {
  const ErrorReport r = described(std::bad_alloc());
  CHECK(r.kind == ErrorKind::OutOfMemory);
  CHECK(r.exit_status == 2);
  CHECK_THAT(r.message, Catch::StartsWith("out of memory"));
}

TEST_CASE("any other exception exits 2 with its message", "[errors]") {
  const ErrorReport standard = described(std::runtime_error("disk full"));
  CHECK(standard.kind == ErrorKind::Other);
  CHECK(standard.message == "disk full");
  CHECK(standard.exit_status == 2);
  // Our base class, when no finer kind applies.
  const ErrorReport ours = described(neurobench::Error("the saved module predicts differently"));
  CHECK(ours.kind == ErrorKind::Other);
  CHECK(ours.exit_status == 2);
  const ErrorReport unknown = describe_error(std::make_exception_ptr(42));
  CHECK(unknown.kind == ErrorKind::Unknown);
  CHECK(unknown.exit_status == 2);
  CHECK_THAT(unknown.message, Catch::Contains("not a std::exception"));
}

TEST_CASE("every kind has the exit status of the table in docs/cli.md", "[errors]") {
  CHECK(neurobench::exit_status_for(ErrorKind::Usage) == neurobench::kExitError);
  CHECK(neurobench::exit_status_for(ErrorKind::Input) == neurobench::kExitError);
  CHECK(neurobench::exit_status_for(ErrorKind::Metric) == neurobench::kExitMetricFailed);
  CHECK(neurobench::exit_status_for(ErrorKind::LibTorch) == neurobench::kExitError);
  CHECK(neurobench::exit_status_for(ErrorKind::OutOfMemory) == neurobench::kExitError);
  CHECK(neurobench::exit_status_for(ErrorKind::Other) == neurobench::kExitError);
  CHECK(neurobench::exit_status_for(ErrorKind::Unknown) == neurobench::kExitError);
  CHECK(neurobench::kExitOk == 0);
  CHECK(neurobench::kExitError == 2);
}

TEST_CASE("describing no exception is a UsageError", "[errors]") {
  REQUIRE_THROWS_AS(describe_error(nullptr), neurobench::UsageError);
  REQUIRE_THROWS_WITH(describe_error(nullptr), Catch::Contains("no exception"));
}

TEST_CASE("report_errors passes the body's status through, or reports what it threw",
          "[errors]") {
  std::ostringstream err;
  CHECK(neurobench::report_errors([] { return 1; }, err) == 1);
  CHECK(err.str().empty());
  CHECK(neurobench::report_errors(
            []() -> int { throw neurobench::InputError("d.npz: no array 'data'"); }, err) == 2);
  CHECK(err.str() == "error: d.npz: no array 'data'\n");
  err.str("");
  CHECK(neurobench::report_errors([]() -> int { throw 7; }, err) == 2);
  CHECK_THAT(err.str(), Catch::StartsWith("error: unknown error"));
}
