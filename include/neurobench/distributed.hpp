// SPDX-License-Identifier: Apache-2.0
#pragma once

// One benchmark sharded over processes and machines (docs/distributed.md): which process this
// is, from the launcher's environment, and the process group the shards' metric states travel
// through (torch.distributed's c10d, Gloo backend, TCP rendezvous).

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include <neurobench/errors.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A sharded run could not go on: a rank died, hung or failed, or the rendezvous did not
/// happen. No results are made on any rank.
struct DistributedError : Error {
  using Error::Error;
};

/// This process's place in a sharded run, as the launcher described it.
struct RankInfo {
  int rank = 0;        ///< 0 to world_size - 1; rank 0 writes the results (every rank merges them).
  int world_size = 1;  ///< Processes in the run.
  int local_rank = 0;  ///< Rank among the processes on this machine (`--device cuda`: its GPU).
  int local_world_size = 0;  ///< Processes on this machine; 0 when the launcher does not say.
  std::string master_addr;   ///< Host of the rendezvous store (rank 0 or the launcher holds it).
  int master_port = 0;       ///< Its TCP port.
  /// Where the values came from: "torchrun" (`RANK`, `WORLD_SIZE`, ...), "slurm"
  /// (`SLURM_PROCID`, `SLURM_STEP_NUM_TASKS`) or "openmpi" (`OMPI_COMM_WORLD_RANK`, ...).
  std::string launcher;
  /// The launcher holds the rendezvous store itself and every rank connects to it
  /// (torchrun's `TORCHELASTIC_USE_AGENT_STORE=True`); else rank 0 opens it.
  bool launcher_holds_store = false;
  /// Keys of this attempt in the store (torchrun's `TORCHELASTIC_RESTART_COUNT`): a restarted
  /// run does not see the keys of the one before.
  std::string attempt = "0";
};

/// When to shard a run over the processes a launcher started.
enum class DistributedMode {
  Auto,  ///< When `WORLD_SIZE` (torchrun), `OMPI_COMM_WORLD_SIZE` (mpirun) or
         ///< `SLURM_STEP_NUM_TASKS` (srun) says more than one process runs.
  On,    ///< Always: the environment must describe the run (RANK and WORLD_SIZE at least).
  Off,   ///< Never: every process runs the whole benchmark on its own.
};

/// "auto", "on" or "off"; throws UsageError for anything else.
[[nodiscard]] DistributedMode distributed_mode_from_string(const std::string& text);

/// Reads this process's place from the environment (docs/distributed.md lists the variables
/// of each launcher; torchrun's win over Open MPI's, which win over Slurm's). Returns null
/// when the mode is Off, or Auto and no launcher says more than one process runs. Throws
/// UsageError naming the variable when one is missing or malformed (`RANK` not a number,
/// `RANK` not below `WORLD_SIZE`, `MASTER_ADDR` or `MASTER_PORT` unset in a run of more than
/// one process), or when the mode is On and nothing describes a run.
[[nodiscard]] std::unique_ptr<RankInfo> rank_from_environment(DistributedMode mode);

/// The device a rank runs on when `asked` was asked for: `cuda` (no index) is the rank's own
/// GPU, `cuda:LOCAL_RANK`, as torchrun's convention is; any other device (`cuda:N` included)
/// as asked.
[[nodiscard]] c10::Device rank_device(const c10::Device& asked, const RankInfo& rank);

/// How long a rank waits before it gives up on the others (docs/distributed.md).
struct DistributedOptions {
  /// Rendezvous (every rank must connect within it) and each exchange (every rank must reach
  /// the end of its shard within it of the first one that did).
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
};

/// The processes of a sharded run, connected: a c10d TCPStore at `master_addr:master_port` (held
/// by rank 0, or by torchrun) for the rendezvous, and a Gloo process group for the exchanges.
class ProcessGroup {
 public:
  /// Connects to the other ranks. Throws DistributedError naming the store's address when they
  /// do not all connect within the timeout (counting the ranks that did not, and naming up to
  /// eight), when the port cannot be used, when what listens there does not answer within the
  /// timeout (a stopped or hung rank 0) or answers what a c10d store would not (another kind of
  /// server); Interrupted when a stop is requested while it waits (<neurobench/stop.hpp>).
  /// Every wait ends by the timeout, give or take two seconds.
  explicit ProcessGroup(const RankInfo& info, const DistributedOptions& options = {});
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// This process's place.
  [[nodiscard]] const RankInfo& info() const;
  [[nodiscard]] int rank() const { return info().rank; }
  [[nodiscard]] int world_size() const { return info().world_size; }
  /// Every rank's bytes, in rank order, on every rank; `stage` names the exchange in errors.
  /// Throws DistributedError when a rank died before it (naming the ranks that did not reach
  /// it) or did not reach it within the timeout, or the store stopped answering; Interrupted
  /// when a stop is requested while it waits. A stop requested before the call does not end it:
  /// the rank still tells the others that it stopped.
  [[nodiscard]] std::vector<std::string> all_gather(const std::string& bytes,
                                                    const std::string& stage);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neurobench
NEUROBENCH_API_END
