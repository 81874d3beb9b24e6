// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the tests of sharded runs share: the launchers' variables set for a test and put back
// afterwards, a free loopback port, and a rank's description with its store on that loopback.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include <neurobench/distributed.hpp>

namespace neurobench::test {

// Sets the launchers' variables of a test (every one unset first) and puts the environment back
// afterwards.
class LauncherEnvironment {
 public:
  explicit LauncherEnvironment(const std::map<std::string, std::string>& values) {
    for (const char* name : kNames) {
      const char* old = std::getenv(name);
      saved_[name] = old == nullptr ? std::nullopt : std::optional<std::string>(old);
      ::unsetenv(name);
    }
    for (const auto& [name, value] : values) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~LauncherEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  LauncherEnvironment(const LauncherEnvironment&) = delete;
  LauncherEnvironment& operator=(const LauncherEnvironment&) = delete;

 private:
  static constexpr const char* kNames[] = {"RANK",
                                           "WORLD_SIZE",
                                           "LOCAL_RANK",
                                           "LOCAL_WORLD_SIZE",
                                           "MASTER_ADDR",
                                           "MASTER_PORT",
                                           "OMPI_COMM_WORLD_RANK",
                                           "OMPI_COMM_WORLD_SIZE",
                                           "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "OMPI_COMM_WORLD_LOCAL_SIZE",
                                           "SLURM_PROCID",
                                           "SLURM_STEP_NUM_TASKS",
                                           "SLURM_LOCALID",
                                           "SLURM_NTASKS",
                                           "TORCHELASTIC_USE_AGENT_STORE",
                                           "TORCHELASTIC_RESTART_COUNT"};
  std::map<std::string, std::optional<std::string>> saved_;
};

inline int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t length = sizeof a;
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::getsockname(s, reinterpret_cast<sockaddr*>(&a), &length) == 0);
  ::close(s);
  return ntohs(a.sin_port);
}

// Rank `rank` of `world`, its store at 127.0.0.1:`port`.
inline neurobench::RankInfo rank_info(int rank, int world, int port) {
  neurobench::RankInfo info;
  info.rank = rank;
  info.world_size = world;
  info.master_addr = "127.0.0.1";
  info.master_port = port;
  info.launcher = "test";
  return info;
}

}  // namespace neurobench::test
