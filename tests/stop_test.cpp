// SPDX-License-Identifier: Apache-2.0
#include <neurobench/stop.hpp>

#include <signal.h>

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "support.hpp"

using neurobench::Benchmark;
using neurobench::Interrupted;

namespace {

// Clears the global stop request after each test, whatever happens.
struct ClearStop {
  ClearStop() { neurobench::clear_stop_request(); }
  ~ClearStop() { neurobench::clear_stop_request(); }
};

// The classifier fixture (10 samples) in batches of one, with a post-processor that requests a
// stop on its `stop_at`-th call, as another thread or a signal handler would between batches.
Benchmark benchmark_stopping_at(int stop_at, int signal, neurobench::MetricSet metrics) {
  auto model = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("core/classifier.pt"));
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
  neurobench::LoaderOptions loader;
  loader.batch_size = 1;
  auto calls = std::make_shared<int>(0);
  std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
  post.push_back(neurobench::make_post_processor([calls, stop_at, signal](const torch::Tensor& p) {
    if (++*calls == stop_at) neurobench::request_stop(signal);
    return p;
  }));
  return Benchmark(model, neurobench::DataLoader(data, loader), {}, std::move(post),
                   std::move(metrics));
}

neurobench::RunOptions quiet_stop_run() {
  neurobench::RunOptions o;
  o.quiet = true;
  return o;
}

std::string message_of(Benchmark& bench, const neurobench::RunOptions& options, int& signal) {
  try {
    (void)bench.run(options);
  } catch (const Interrupted& e) {
    signal = e.signal();
    return e.what();
  }
  return "(not interrupted)";
}

}  // namespace

TEST_CASE("a stop requested during the workload pass ends the run after the current batch",
          "[stop]") {
  const ClearStop clear;
  Benchmark bench = benchmark_stopping_at(
      3, SIGINT, neurobench::MetricSet::from_names({}, {"ClassificationAccuracy"}));
  int signal = -1;
  CHECK(message_of(bench, quiet_stop_run(), signal) ==
        "interrupted by SIGINT during the workload pass, after 3 of 10 batches");
  CHECK(signal == SIGINT);
  CHECK(neurobench::stop_requested());
  CHECK(neurobench::stop_signal() == SIGINT);
}

TEST_CASE("a stop requested during the timing pass ends it after the current run", "[stop]") {
  const ClearStop clear;
  // Only a timing metric: no workload pass, so the second call is the second warm-up run.
  Benchmark bench = benchmark_stopping_at(2, 0, neurobench::MetricSet::from_names({}, {"Latency"}));
  neurobench::RunOptions options = quiet_stop_run();
  options.timing.warmup = 5;
  int signal = -1;
  CHECK(message_of(bench, options, signal) ==
        "interrupted on request (request_stop()) during the timing pass, after 2 of 5 warm-up "
        "runs");
  CHECK(signal == 0);
}

TEST_CASE("a run started while a stop is requested throws at once, and runs once it is cleared",
          "[stop]") {
  const ClearStop clear;
  Benchmark bench = benchmark_stopping_at(
      -1, 0, neurobench::MetricSet::from_names({"ParameterCount"}, {"ClassificationAccuracy"}));
  neurobench::request_stop(SIGTERM);
  neurobench::request_stop(SIGINT);  // the first signal counts
  int signal = -1;
  CHECK(message_of(bench, quiet_stop_run(), signal) ==
        "interrupted by SIGTERM before the run started");
  CHECK(signal == SIGTERM);
  neurobench::clear_stop_request();
  CHECK_FALSE(neurobench::stop_requested());
  const auto results = bench.run(quiet_stop_run());
  CHECK(results.ok());
  CHECK(results.batches == 10);
}

TEST_CASE("Interrupted exits 130, or 128 plus the signal that asked", "[stop][errors]") {
  using neurobench::describe_error;
  using neurobench::ErrorKind;
  const auto by_term = describe_error(std::make_exception_ptr(Interrupted("stopped", SIGTERM)));
  CHECK(by_term.kind == ErrorKind::Interrupted);
  CHECK(by_term.message == "stopped");
  CHECK(by_term.exit_status == 143);
  const auto by_int = describe_error(std::make_exception_ptr(Interrupted("stopped", SIGINT)));
  CHECK(by_int.exit_status == 130);
  const auto by_code = describe_error(std::make_exception_ptr(Interrupted("stopped", 0)));
  CHECK(by_code.exit_status == neurobench::kExitInterrupted);
  CHECK(neurobench::exit_status_for(ErrorKind::Interrupted) == 130);
}

TEST_CASE("throw_if_stop_requested throws only when a stop was requested", "[stop]") {
  const ClearStop clear;
  CHECK_NOTHROW(neurobench::throw_if_stop_requested("in my loop"));
  neurobench::request_stop();
  REQUIRE_THROWS_AS(neurobench::throw_if_stop_requested("in my loop"), Interrupted);
  REQUIRE_THROWS_WITH(neurobench::throw_if_stop_requested("in my loop"),
                      "interrupted on request (request_stop()) in my loop");
}

namespace {

// Puts back the actions of SIGINT and SIGTERM when a test has changed them.
struct SavedSignalActions {
  struct sigaction interrupt {};
  struct sigaction terminate {};
  SavedSignalActions() {
    sigaction(SIGINT, nullptr, &interrupt);
    sigaction(SIGTERM, nullptr, &terminate);
  }
  ~SavedSignalActions() {
    sigaction(SIGINT, &interrupt, nullptr);
    sigaction(SIGTERM, &terminate, nullptr);
  }
};

void set_action(int signal, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
}

bool has_action(int signal, void (*handler)(int)) {
  struct sigaction action {};
  sigaction(signal, nullptr, &action);
  return action.sa_handler == handler;
}

}  // namespace

TEST_CASE(
    "stop_on_signals turns the first SIGINT into a stop request, then restores the "
    "default action",
    "[stop]") {
  const ClearStop clear;
  const SavedSignalActions saved;
  set_action(SIGINT, SIG_DFL);
  set_action(SIGTERM, SIG_DFL);
  neurobench::stop_on_signals();
  REQUIRE_FALSE(has_action(SIGINT, SIG_DFL));  // else the raise below would end the tests
  REQUIRE_FALSE(has_action(SIGTERM, SIG_DFL));
  REQUIRE(::raise(SIGINT) == 0);  // delivered to this thread before raise returns
  CHECK(neurobench::stop_requested());
  CHECK(neurobench::stop_signal() == SIGINT);
  // A second signal would end the program at once.
  CHECK(has_action(SIGINT, SIG_DFL));
  CHECK(has_action(SIGTERM, SIG_DFL));
}

TEST_CASE("stop_on_signals leaves a signal ignored when it was ignored", "[stop]") {
  const SavedSignalActions saved;
  set_action(SIGINT, SIG_IGN);
  set_action(SIGTERM, SIG_DFL);
  neurobench::stop_on_signals();
  CHECK(has_action(SIGINT, SIG_IGN));
  CHECK_FALSE(has_action(SIGTERM, SIG_DFL));
}
