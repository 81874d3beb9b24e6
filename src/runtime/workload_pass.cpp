// SPDX-License-Identifier: Apache-2.0
#include <iostream>
#include <map>

#include <fmt/format.h>

#include <neurobench/metrics/builtin.hpp>

#include "metrics/layer_probe.hpp"
#include "runtime/run_state.hpp"
#include "util/non_finite.hpp"
#include "util/progress.hpp"

namespace neurobench::detail {

namespace {

// One batch: pre-processed, inferred with the probe's hooks, post-processed, and given to
// each metric that has not failed; `first`: the pass's first batch (ready_model_for_batch).
// Returns the batch's size before pre-processing.
int64_t run_batch(const PassInput& in, const std::vector<WorkloadMetric*>& metrics,
                  const std::map<const WorkloadMetric*, std::string>& names, std::size_t b,
                  bool first, const RunOptions& options, RunState& state) {
  Batch batch = in.loader.batch(b);
  const int64_t batch_size = batch.size();  // before pre-processing, as the reference
  const double weight =
      static_cast<double>(batch_size) / static_cast<double>(in.loader.dataset().size());
  batch = to_device(std::move(batch), in.device, b);
  const torch::Tensor given_targets = batch.targets;
  batch = pre_process(in.pre, std::move(batch), b);
  if (options.targets_from_loader) batch.targets = given_targets;
  for (WorkloadMetric* m : metrics) m->begin_batch();
  ready_model_for_batch(in.model, batch, first, b);
  const torch::Tensor preds = post_process(in.post, infer(in.model, batch), b);
  const WorkloadInput input{in.model, preds, batch};
  for (WorkloadMetric* m : metrics) {
    const std::string& name = names.at(m);
    if (state.failed(name)) continue;
    state.guard(name, [&] {
      m->add_batch(input, weight);
      if (options.verbose) {
        Json shown = m->shown_after_batch();
        encode_non_finite(shown);  // NaN as "NaN", not as a failed metric's null
        std::cerr << fmt::format("batch {}: {} = {}\n", b, name, shown.dump());
      }
    });
  }
  return batch_size;
}

// EnergyEstimate reads the counts of a SynapticOperations of the same run instead of counting
// the same layer events twice, while this lives; then the counts become its own.
class EnergyCountSharing {
 public:
  explicit EnergyCountSharing(const std::vector<WorkloadMetric*>& metrics) {
    const metrics::SynapticOperations* counted = nullptr;
    for (WorkloadMetric* m : metrics) {
      if (counted == nullptr) counted = dynamic_cast<const metrics::SynapticOperations*>(m);
    }
    if (counted == nullptr) return;
    for (WorkloadMetric* m : metrics) {
      if (auto* energy = dynamic_cast<metrics::EnergyEstimate*>(m)) {
        energy->share_synaptic_operations(counted);
        sharing_.push_back(energy);
      }
    }
    counted_ = counted;
  }
  ~EnergyCountSharing() {
    for (metrics::EnergyEstimate* e : sharing_) {
      try {
        e->share_synaptic_operations(nullptr);
      } catch (...) {  // a destructor must not throw; the run reports its own error
      }
    }
  }
  EnergyCountSharing(const EnergyCountSharing&) = delete;
  EnergyCountSharing& operator=(const EnergyCountSharing&) = delete;
  // The SynapticOperations whose counts `m` reads, or nullptr.
  [[nodiscard]] const WorkloadMetric* source_of(const WorkloadMetric* m) const {
    for (const metrics::EnergyEstimate* e : sharing_) {
      if (e == m) return counted_;
    }
    return nullptr;
  }

 private:
  const metrics::SynapticOperations* counted_ = nullptr;
  std::vector<metrics::EnergyEstimate*> sharing_;
};

}  // namespace

void workload_pass(const PassInput& in, const std::vector<std::unique_ptr<WorkloadMetric>>& metrics,
                   const RunOptions& options, RunState& state) {
  // PeakMemory reports the device's peak during this pass (CUDA).
  reset_device_peak_memory(in.device);
  std::vector<WorkloadMetric*> active;
  std::map<const WorkloadMetric*, std::string> names;
  for (const auto& m : metrics) {
    active.push_back(m.get());
    names[m.get()] = m->name();
    state.guard(names[m.get()], [&] { m->begin_run(); });
  }
  const EnergyCountSharing sharing(active);
  {
    LayerProbe probe(in.model, in.layers, active,
                     [&](WorkloadMetric& m, const std::string& message) {
                       state.fail(names[&m], message);
                     });
    for (const auto& w : probe.warnings()) state.results.warnings.push_back(w);
    // A sharded run's rank runs its own contiguous shard of the batches.
    const BatchRange range = shard_of(in.loader.num_batches(), in.shard, in.shards);
    Progress progress(!options.quiet && options.progress != ProgressMode::Off, range.size(),
                      "batches", /*stops=*/false, options.progress == ProgressMode::Lines);
    for (std::size_t b = range.first; b < range.end; ++b) {
      stop_if_requested([&] {
        return fmt::format("during the workload pass, after {} of {} batches", b - range.first,
                           range.size());
      });
      state.results.samples += run_batch(in, active, names, b, b == range.first, options, state);
      ++state.results.batches;
      progress.update(b - range.first + 1);
    }
  }  // the probe's hooks are removed here, before any timing pass
  // The values now, before a timing pass (PeakMemory reads the workload's peak).
  for (WorkloadMetric* m : active) {
    const std::string& name = names[m];
    // Counts read from a metric that failed are not counts.
    if (const WorkloadMetric* source = sharing.source_of(m);
        source != nullptr && !state.failed(name) && state.failed(names[source])) {
      state.fail(name, fmt::format("{}: its synaptic operations come from {}, which failed", name,
                                   names[source]));
    }
    if (state.failed(name)) continue;
    state.guard(name, [&] { state.results.values[name] = m->run_value(); });
  }
}

}  // namespace neurobench::detail
