// SPDX-License-Identifier: Apache-2.0
// A sharded run whose rendezvous store misbehaves (docs/distributed.md, "Faults and timeouts"): a
// server that never answers, one that stops answering, one that speaks another protocol, and a
// world too large to list. Each test starts its own server on 127.0.0.1, in a thread.
#include <neurobench/distributed.hpp>

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/stop.hpp>

#include "cli/background_cli.hpp"
#include "distributed/launcher_environment.hpp"
#include "support.hpp"

using neurobench::test::free_port;
using neurobench::test::rank_info;
using neurobench::test::LauncherEnvironment;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A TCP server on 127.0.0.1 that plays a broken rendezvous store, on a thread of its own.
class FakeStore {
 public:
  enum class Kind {
    Silent,          ///< Accepts connections and reads them, never answers.
    Banner,          ///< Sends `banner` to every connection, then nothing.
    ProbeThenQuiet,  ///< Answers the first ADD request of the first connection, then nothing.
  };

  explicit FakeStore(Kind kind, std::string banner = {}) : kind_(kind), banner_(std::move(banner)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listener_ >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &length) == 0);
    REQUIRE(::listen(listener_, 16) == 0);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeStore() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
    for (int fd : connections_) ::close(fd);
    ::close(listener_);
  }
  FakeStore(const FakeStore&) = delete;
  FakeStore& operator=(const FakeStore&) = delete;

  [[nodiscard]] int port() const { return port_; }
  /// True once the first ADD was answered and a connection came after it (c10d's client).
  [[nodiscard]] bool client_connected() const { return client_connected_; }
  /// The connections accepted so far.
  [[nodiscard]] int connections() const { return accepted_; }

 private:
  void serve() {
    std::string request;  // of the first connection
    bool answered = false;
    bool first_closed = false;
    while (!done_) {
      std::vector<pollfd> fds{{listener_, POLLIN, 0}};
      if (!connections_.empty() && !first_closed) fds.push_back({connections_[0], POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
      if ((fds[0].revents & POLLIN) != 0) {
        const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        connections_.push_back(fd);
        ++accepted_;
        if (answered) client_connected_ = true;
        if (kind_ == Kind::Banner) {
          (void)::send(fd, banner_.data(), banner_.size(), MSG_NOSIGNAL);
        }
      }
      if (fds.size() > 1 && (fds[1].revents & POLLIN) != 0) {
        char buffer[256];
        const ssize_t n = ::recv(connections_[0], buffer, sizeof buffer, 0);
        if (n > 0) request.append(buffer, static_cast<std::size_t>(n));
        if (n == 0) first_closed = true;
        // ADD: type 3, key (8-byte length, bytes), delta (8 bytes); the answer: the new value.
        std::uint64_t key_length = 0;
        if (kind_ == Kind::ProbeThenQuiet && !answered && request.size() >= 9 && request[0] == 3) {
          std::memcpy(&key_length, request.data() + 1, 8);
          if (request.size() >= 9 + key_length + 8) {
            (void)::send(connections_[0], request.data() + 9 + key_length, 8, MSG_NOSIGNAL);
            answered = true;
          }
        }
      }
    }
  }

  Kind kind_;
  std::string banner_;
  int listener_ = -1;
  int port_ = 0;
  std::vector<int> connections_;
  std::atomic<bool> done_{false};
  std::atomic<bool> client_connected_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

neurobench::DistributedOptions timeout_of(double seconds) {
  neurobench::DistributedOptions o;
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  return o;
}

// The DistributedError a ProcessGroup of `info` throws, and how long it took.
std::pair<std::string, double> connect_error(const neurobench::RankInfo& info, double timeout_s) {
  const auto start = Clock::now();
  try {
    neurobench::ProcessGroup group(info, timeout_of(timeout_s));
  } catch (const neurobench::DistributedError& e) {
    return {e.what(), seconds_since(start)};
  }
  FAIL("the ProcessGroup connected");
  return {};
}

// The variables of rank `rank` of `world` whose store is at 127.0.0.1:`port`.
std::map<std::string, std::string> rank_variables(int rank, int world, int port) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

// `neurobench run` on a small classifier, with `--distributed-timeout timeout_s`.
std::vector<std::string> store_run_args(const std::string& timeout_s) {
  using neurobench::test::fixture;
  return {"run",
          "--model",
          fixture("core/classifier.pt").string(),
          "--data",
          fixture("core/classifier.npz").string(),
          "--workload",
          "ClassificationAccuracy",
          "--quiet",
          "--distributed-timeout",
          timeout_s};
}

// The lines of `text` that start with "error:".
std::vector<std::string> error_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (text.compare(start, 6, "error:") == 0) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Waits until 127.0.0.1:`port` accepts a connection, at most `seconds`.
bool port_open(int port, double seconds) {
  const auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool open = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    if (open) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

TEST_CASE("a store that accepts but never answers stops a rank at the timeout, naming it",
          "[distributed][store]") {
  const FakeStore silent(FakeStore::Kind::Silent);
  const auto [message, took] = connect_error(rank_info(1, 2, silent.port()), 1.5);
  CHECK_THAT(message, Catch::Contains(fmt::format("127.0.0.1:{}", silent.port())) &&
                          Catch::Contains("did not answer within 1.5 s"));
  CHECK(took >= 1.4);
  CHECK(took < 10);  // not for ever: about the timeout
}

TEST_CASE("a store that stops answering after a rank connected stops it at the timeout",
          "[distributed][store]") {
  // As when rank 0 is stopped (SIGSTOP) after the rank checked its store: c10d's client then
  // waits for an answer with no timeout of its own.
  const FakeStore quiet(FakeStore::Kind::ProbeThenQuiet);
  const auto [message, took] = connect_error(rank_info(1, 2, quiet.port()), 1.5);
  CHECK(quiet.client_connected());
  CHECK_THAT(message, Catch::Contains(fmt::format("127.0.0.1:{}", quiet.port())) &&
                          Catch::Contains("did not answer within 1.5 s while this rank joined"));
  CHECK(took < 10);
}

TEST_CASE("a stop request ends a rank's wait on a store that stopped answering",
          "[distributed][store]") {
  const FakeStore quiet(FakeStore::Kind::ProbeThenQuiet);
  std::thread stopper([&quiet] {
    const auto start = Clock::now();
    while (!quiet.client_connected() && seconds_since(start) < 30) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // blocked in c10d by now
    neurobench::request_stop();
  });
  const auto start = Clock::now();
  std::string message;
  try {
    neurobench::ProcessGroup group(rank_info(1, 2, quiet.port()), timeout_of(60));
  } catch (const neurobench::Interrupted& e) {
    message = e.what();
  } catch (...) {
    stopper.join();
    neurobench::clear_stop_request();
    throw;
  }
  stopper.join();
  neurobench::clear_stop_request();
  CHECK_THAT(message, Catch::Contains("interrupted on request (request_stop()) while"));
  CHECK(seconds_since(start) < 20);  // the stop, not the 60 s timeout
}

TEST_CASE("a store that speaks another protocol is refused, naming its address, without abort",
          "[distributed][store]") {
  // c10d's client reads a length from such a server and allocates it: std::bad_alloc or
  // std::length_error on a thread of its own, and the process aborted.
  for (const auto& [banner, shown] : std::vector<std::pair<std::string, std::string>>{
           {"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n", "'SSH-2.0-OpenSSH_"},
           {std::string(64, '\xff'), "'\\xff\\xff"},
           {"HTTP/1.1 400 Bad Request\r\n\r\n", "'HTTP/1.1 400 Ba"}}) {
    const FakeStore other(FakeStore::Kind::Banner, banner);
    const auto [message, took] = connect_error(rank_info(1, 2, other.port()), 5);
    CHECK_THAT(message, Catch::Contains(fmt::format("127.0.0.1:{}", other.port())) &&
                            Catch::Contains("is not a c10d rendezvous store") &&
                            Catch::Contains(shown));
    CHECK(took < 5);  // said at once
  }
}

TEST_CASE("rank 0 alone in a world of a million ranks gives up at the timeout, in a short message",
          "[distributed][store]") {
  const auto [message, took] = connect_error(rank_info(0, 1000000, free_port()), 1);
  CHECK_THAT(message, Catch::Contains("1 of 1000000 processes joined") &&
                          Catch::Contains("999999 ranks (1, 2, 3, 4, 5, 6, 7, 8 and 999991 "
                                          "more) did not"));
  CHECK(message.size() < 600);
  CHECK(took < 10);  // not one request per rank
}

TEST_CASE("neurobench run exits 2 with one error line when its store never answers",
          "[distributed][store][cli]") {
  const FakeStore silent(FakeStore::Kind::Silent);
  const neurobench::test::TempDir logs;
  const LauncherEnvironment vars(rank_variables(1, 2, silent.port()));
  const auto start = Clock::now();
  neurobench::test::BackgroundCli rank(store_run_args("2"), logs.path());
  REQUIRE(rank.started());
  const int status = rank.wait(60);
  const std::string err = rank.err();
  INFO(err);
  CHECK(neurobench::test::shell_status(status) == 2);
  CHECK(seconds_since(start) < 20);
  const auto errors = error_lines(err);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains(fmt::format("127.0.0.1:{}", silent.port())) &&
                            Catch::Contains("did not answer within 2 s"));
}

TEST_CASE("SIGTERM stops neurobench run waiting on a store that never answers",
          "[distributed][store][cli]") {
  const FakeStore silent(FakeStore::Kind::Silent);
  const neurobench::test::TempDir logs;
  const LauncherEnvironment vars(rank_variables(1, 2, silent.port()));
  neurobench::test::BackgroundCli rank(store_run_args("300"), logs.path());
  REQUIRE(rank.started());
  // Once the store is reached, the rank waits for its answer.
  const auto start = Clock::now();
  while (silent.connections() == 0 && seconds_since(start) < 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(silent.connections() > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  rank.signal(SIGTERM);
  const int status = rank.wait(20);
  const std::string err = rank.err();
  INFO(err);
  CHECK(neurobench::test::shell_status(status) == 143);
  CHECK_THAT(err, Catch::Contains("error: interrupted by SIGTERM"));
}

TEST_CASE("neurobench run exits 2 naming the address when MASTER_PORT speaks another protocol",
          "[distributed][store][cli]") {
  const FakeStore ssh(FakeStore::Kind::Banner, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n");
  const neurobench::test::TempDir logs;
  const LauncherEnvironment vars(rank_variables(1, 2, ssh.port()));
  neurobench::test::BackgroundCli rank(store_run_args("300"), logs.path());
  REQUIRE(rank.started());
  const int status = rank.wait(60);
  const std::string err = rank.err();
  INFO(err);
  CHECK(neurobench::test::shell_status(status) == 2);  // not SIGABRT's 134
  const auto errors = error_lines(err);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains(fmt::format("127.0.0.1:{}", ssh.port())) &&
                            Catch::Contains("is not a c10d rendezvous store"));
  CHECK_THAT(err, !Catch::Contains("terminate called"));
}

TEST_CASE("a rank whose rank 0 is stopped after opening its store exits 2 at the timeout",
          "[distributed][store][cli]") {
  const int port = free_port();
  const neurobench::test::TempDir logs0;
  const neurobench::test::TempDir logs1;
  std::optional<LauncherEnvironment> vars;
  vars.emplace(rank_variables(0, 2, port));
  neurobench::test::BackgroundCli rank0(store_run_args("300"), logs0.path());
  REQUIRE(rank0.started());
  REQUIRE(port_open(port, 60));
  rank0.signal(SIGSTOP);  // killed (SIGKILL) at the end of the test
  vars.emplace(rank_variables(1, 2, port));
  const auto start = Clock::now();
  neurobench::test::BackgroundCli rank1(store_run_args("2"), logs1.path());
  REQUIRE(rank1.started());
  const int status = rank1.wait(60);
  const std::string err = rank1.err();
  INFO(err);
  CHECK(neurobench::test::shell_status(status) == 2);
  CHECK(seconds_since(start) < 20);
  const auto errors = error_lines(err);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains(fmt::format("127.0.0.1:{}", port)) &&
                            Catch::Contains("did not answer within 2 s"));
}

TEST_CASE("a MASTER_ADDR that does not resolve stops a rank within the timeout, naming it",
          "[distributed][store]") {
  neurobench::RankInfo info = rank_info(1, 2, 29500);
  info.master_addr = "no-such-host.invalid";
  const auto [message, took] = connect_error(info, 2);
  CHECK_THAT(message, Catch::Contains("MASTER_ADDR 'no-such-host.invalid'"));
  CHECK(took < 10);
}
