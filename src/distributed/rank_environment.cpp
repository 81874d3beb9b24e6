// SPDX-License-Identifier: Apache-2.0
// Which process of a sharded run this is, from the variables torchrun, Open MPI's mpirun and
// Slurm's srun set (docs/distributed.md).
#include <cerrno>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include <neurobench/distributed.hpp>

namespace neurobench {

namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// The integer in `name`, from `low` to `high`; throws UsageError naming the variable.
int integer(const char* name, const std::string& text, long low, const std::string& launcher,
            long high = 1000000) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0' || errno == ERANGE || value < low ||
      value > high) {
    throw UsageError(fmt::format("{}='{}' ({}): expected an integer from {} to {}", name, text,
                                 launcher, low, high));
  }
  return static_cast<int>(value);
}

std::optional<int> optional_integer(const char* name, long low, const std::string& launcher) {
  const auto text = variable(name);
  if (!text) return std::nullopt;
  return integer(name, *text, low, launcher);
}

int required_integer(const char* name, long low, const std::string& launcher, const char* why) {
  const auto text = variable(name);
  if (!text) {
    throw UsageError(
        fmt::format("{} is not set: {} ({}; see docs/distributed.md)", name, why, launcher));
  }
  return integer(name, *text, low, launcher);
}

// The variables of one launcher.
struct Names {
  const char* launcher;
  const char* rank;
  const char* world_size;
  const char* local_rank;
  const char* local_world_size;  // nullptr: not given by this launcher
};

constexpr Names kTorchrun{"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"};
constexpr Names kOpenMpi{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                         "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"};
constexpr Names kSlurm{"slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", nullptr};

// The launcher whose world size variable is set, torchrun's first.
const Names* launcher_in_environment() {
  for (const Names* n : {&kTorchrun, &kOpenMpi, &kSlurm}) {
    if (variable(n->world_size)) return n;
  }
  return nullptr;
}

std::unique_ptr<RankInfo> read(const Names& n) {
  auto info = std::make_unique<RankInfo>();
  info->launcher = n.launcher;
  const std::string launcher = fmt::format("set by {}", n.launcher);
  info->world_size = required_integer(n.world_size, 1, launcher, "the number of processes");
  // One process needs no rank; more need each theirs.
  info->rank = info->world_size == 1 && !variable(n.rank)
                   ? 0
                   : required_integer(n.rank, 0, launcher,
                                      fmt::format("{} is {}, so each process needs its rank",
                                                  n.world_size, info->world_size)
                                          .c_str());
  if (info->rank >= info->world_size) {
    throw UsageError(fmt::format("{}={} is not below {}={} ({}): ranks go from 0 to {}", n.rank,
                                 info->rank, n.world_size, info->world_size, launcher,
                                 info->world_size - 1));
  }
  info->local_rank = optional_integer(n.local_rank, 0, launcher).value_or(0);
  if (n.local_world_size != nullptr) {
    info->local_world_size = optional_integer(n.local_world_size, 1, launcher).value_or(0);
  }
  if (n.launcher == std::string("torchrun")) {
    info->launcher_holds_store = variable("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
    info->attempt = variable("TORCHELASTIC_RESTART_COUNT").value_or("0");
  }
  if (info->world_size == 1) return info;
  const std::string why = fmt::format(
      "with {} processes, every rank must find the rendezvous store rank 0 holds{}",
      info->world_size,
      n.launcher == std::string("torchrun") ? ""
                                            : "; export MASTER_ADDR and MASTER_PORT before "
                                              "launching");
  const auto addr = variable("MASTER_ADDR");
  if (!addr || addr->empty()) {
    throw UsageError(fmt::format("MASTER_ADDR is not set: {} (see docs/distributed.md)", why));
  }
  info->master_addr = *addr;
  const auto port = variable("MASTER_PORT");
  if (!port) {
    throw UsageError(fmt::format("MASTER_PORT is not set: {} (see docs/distributed.md)", why));
  }
  info->master_port = integer("MASTER_PORT", *port, 1, "the rendezvous store's TCP port", 65535);
  return info;
}

}  // namespace

DistributedMode distributed_mode_from_string(const std::string& text) {
  if (text == "auto") return DistributedMode::Auto;
  if (text == "on") return DistributedMode::On;
  if (text == "off") return DistributedMode::Off;
  throw UsageError(fmt::format("distributed mode '{}': expected auto, on or off", text));
}

std::unique_ptr<RankInfo> rank_from_environment(DistributedMode mode) {
  if (mode == DistributedMode::Off) return nullptr;
  const Names* names = launcher_in_environment();
  if (names == nullptr) {
    // A RANK without a WORLD_SIZE is a launch line gone wrong, not a plain run.
    for (const char* rank : {kTorchrun.rank, kOpenMpi.rank}) {
      if (variable(rank)) {
        throw UsageError(
            fmt::format("{} is set but {} is not: a sharded run needs both (see "
                        "docs/distributed.md)",
                        rank, rank == kTorchrun.rank ? "WORLD_SIZE" : "OMPI_COMM_WORLD_SIZE"));
      }
    }
    if (mode == DistributedMode::On) {
      throw UsageError(
          "--distributed on: no launcher describes the run (none of WORLD_SIZE, "
          "OMPI_COMM_WORLD_SIZE or SLURM_STEP_NUM_TASKS is set; see docs/distributed.md)");
    }
    return nullptr;
  }
  std::unique_ptr<RankInfo> info = read(*names);
  if (mode == DistributedMode::Auto && info->world_size == 1) return nullptr;
  return info;
}

c10::Device rank_device(const c10::Device& asked, const RankInfo& rank) {
  if (!asked.is_cuda() || asked.has_index()) return asked;
  return c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(rank.local_rank));
}

}  // namespace neurobench
