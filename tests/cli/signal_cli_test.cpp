// SPDX-License-Identifier: Apache-2.0
// `neurobench run` on SIGINT and SIGTERM: it stops after the batch in progress, writes no
// results file, says what it interrupted, and exits 130 or 143.
#include <signal.h>
#include <sys/wait.h>
#include <torch/script.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <neurobench/io/npz.hpp>

#include "cli/background_cli.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::test::BackgroundCli;
using neurobench::test::fixture;
using neurobench::test::names_in;
using neurobench::test::read_file;
using neurobench::test::TempDir;

namespace {}  // namespace

TEST_CASE("SIGINT stops run after the current batch, writes no results and exits 130",
          "[cli][signals]") {
  const TempDir dir;
  const TempDir logs;
  // 200,000 samples in batches of one: the workload pass outlasts the test's reaction.
  const int64_t n = 200000;
  neurobench::save_npz(dir / "big.npz", {{"data", torch::randn({n, 4})},
                                         {"targets", torch::zeros({n}, torch::kLong)}});
  BackgroundCli child(
      {"run", "--model", fixture("core/classifier.pt").string(), "--data",
       (dir / "big.npz").string(), "--batch-size", "1", "--workload", "ClassificationAccuracy",
       "--verbose", "--json", (dir / "out.json").string(), "--csv", (dir / "out.csv").string()},
      logs.path());
  REQUIRE(child.started());
  // --verbose prints a line per batch: the run is under way once the first one is there.
  REQUIRE(child.wait_for_stderr("batch 0: ", 120));
  child.signal(SIGINT);
  const int status = child.wait(120);
  const std::string err = child.err();
  INFO(err.substr(err.size() > 2000 ? err.size() - 2000 : 0));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_THAT(err,
             Catch::Contains("error: interrupted by SIGINT during the workload pass, after ") &&
                 Catch::Contains(" of 200000 batches: no results written"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"big.npz"});  // no result, no temporary
}

TEST_CASE("SIGTERM stops run during the timing pass, writes no results and exits 143",
          "[cli][signals]") {
  const TempDir dir;
  const TempDir logs;
  // Three batches of workload, then timed runs for at least 30 s: the signal comes first.
  BackgroundCli child({"run", "--model", fixture("core/classifier.pt").string(), "--data",
                       fixture("core/classifier.npz").string(), "--batch-size", "4", "--workload",
                       "ClassificationAccuracy,Latency", "--runs", "0", "--min-time", "30",
                       "--verbose", "--json", (dir / "out.json").string()},
                      logs.path());
  REQUIRE(child.started());
  REQUIRE(child.wait_for_stderr("batch 2: ", 120));  // the last batch of the workload pass
  child.signal(SIGTERM);
  const int status = child.wait(120);
  const std::string err = child.err();
  INFO(err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK_THAT(err, Catch::Contains("error: interrupted by SIGTERM") &&
                      Catch::Contains("timing pass") && Catch::Contains("no results written"));
  CHECK(names_in(dir.path()).empty());
}
