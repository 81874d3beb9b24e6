// SPDX-License-Identifier: Apache-2.0
// `neurobench run` on SIGINT and SIGTERM: it stops after the batch in progress, writes no
// results file, says what it interrupted, and exits 130 or 143.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <neurobench/io/npz.hpp>

#include "support.hpp"

extern char** environ;

namespace fs = std::filesystem;
using neurobench::test::fixture;
using neurobench::test::names_in;
using neurobench::test::read_file;
using neurobench::test::TempDir;

namespace {

// The command line started in the background, its stdout and stderr going to files.
class Child {
 public:
  Child(const std::vector<std::string>& args, const fs::path& logs)
      : out_(logs / "stdout"), err_(logs / "stderr") {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child starts with SIGINT and SIGTERM at their default action and unblocked, whatever
    // the test runner had (a background job of a shell ignores SIGINT).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    std::vector<std::string> all = {NEUROBENCH_CLI};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int error =
        posix_spawn(&pid_, NEUROBENCH_CLI, &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) pid_ = -1;
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }

  /// Waits until stderr holds `text`, at most `seconds`; false if it never came (or the
  /// program ended first).
  bool wait_for_stderr(const std::string& text, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (read_file(err_).find(text) != std::string::npos) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = status;
        pid_ = -1;
        return read_file(err_).find(text) != std::string::npos;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  void signal(int number) {
    if (pid_ > 0) ::kill(pid_, number);
  }

  /// Waits for the program's end, at most `seconds` (then kills it); its raw wait status.
  int wait(double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (pid_ > 0 && std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = status;
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status_;
  }

  [[nodiscard]] std::string err() const { return read_file(err_); }

 private:
  fs::path out_;
  fs::path err_;
  pid_t pid_ = -1;
  int status_ = -1;
};

}  // namespace

TEST_CASE("SIGINT stops run after the current batch, writes no results and exits 130",
          "[cli][signals]") {
  const TempDir dir;
  const TempDir logs;
  // 200,000 samples in batches of one: the workload pass outlasts the test's reaction.
  const int64_t n = 200000;
  neurobench::save_npz(dir / "big.npz", {{"data", torch::randn({n, 4})},
                                         {"targets", torch::zeros({n}, torch::kLong)}});
  Child child(
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
  Child child({"run", "--model", fixture("core/classifier.pt").string(), "--data",
               fixture("core/classifier.npz").string(), "--batch-size", "4", "--workload",
               "ClassificationAccuracy,Latency", "--runs", "0", "--min-time", "30", "--verbose",
               "--json", (dir / "out.json").string()},
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
