// SPDX-License-Identifier: Apache-2.0
// ProcessGroup in a build without the distributed component (NEUROBENCH_WITH_DISTRIBUTED):
// connecting says that the component is missing and what it needs, so that a sharded launch
// (torchrun, srun, mpirun) fails on every rank with a clear error (exit 2).
#include <neurobench/distributed.hpp>

#include <neurobench/components.hpp>

namespace neurobench {

struct ProcessGroup::Impl {
  RankInfo info;
};

ProcessGroup::ProcessGroup(const RankInfo& info, const DistributedOptions& /*options*/)
    : impl_(new Impl{info}) {
  require_component("distributed", "a sharded run (" + std::to_string(info.world_size) +
                                       " processes started by " + info.launcher + ")");
}

ProcessGroup::~ProcessGroup() = default;

const RankInfo& ProcessGroup::info() const { return impl_->info; }

std::vector<std::string> ProcessGroup::all_gather(const std::string& /*bytes*/,
                                                  const std::string& /*stage*/) {
  require_component("distributed", "exchanging metric states between the ranks");
  return {};
}

}  // namespace neurobench
