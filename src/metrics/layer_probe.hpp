// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <neurobench/metrics/metric.hpp>

#include "metrics/device_tally.hpp"

namespace neurobench::detail {

/// Connects a model's hooks to the metrics that observe layer events, for one run. Metric
/// exceptions inside a hook are caught and reported through `on_failure`; the failed metric
/// receives no further events.
class LayerProbe {
 public:
  using FailureSink = std::function<void(WorkloadMetric& metric, const std::string& message)>;

  LayerProbe(NeuroBenchModel& model, const LayerSetup& setup,
             std::vector<WorkloadMetric*> metrics, FailureSink on_failure);
  ~LayerProbe();
  LayerProbe(const LayerProbe&) = delete;
  LayerProbe& operator=(const LayerProbe&) = delete;

  /// What was searched for and not found, worded for a user.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void hook_activation_modules(const LayerSetup& setup, const std::vector<ModuleInfo>& modules);
  void hook_activation_operators(const LayerSetup& setup);
  void dispatch_activation(const ActivationCall& call);
  void dispatch_connection(const ConnectionCall& call);
  void dispatch_operator(const OperatorCall& call);
  void dispatch_operator_output(const OperatorCall& call);
  void dispatch_operator_to(
      const std::vector<std::pair<WorkloadMetric*, std::vector<std::string>>>& metrics,
      const OperatorCall& call);
  void fail(WorkloadMetric& metric, const std::string& message);

  NeuroBenchModel& model_;
  std::vector<WorkloadMetric*> activation_metrics_;
  std::vector<WorkloadMetric*> connection_metrics_;
  // Metrics observing kOperators, each with the operators it asked for.
  std::vector<std::pair<WorkloadMetric*, std::vector<std::string>>> operator_metrics_;
  // Metrics observing kOperatorOutputs, likewise; their operators are hooked after they run.
  std::vector<std::pair<WorkloadMetric*, std::vector<std::string>>> operator_output_metrics_;
  std::vector<WorkloadMetric*> failed_;
  FailureSink on_failure_;
  std::vector<HookHandle> handles_;
  std::vector<std::string> warnings_;
  std::vector<std::pair<std::string, torch::Tensor>> mem_before_;  // by layer path
  std::map<std::string, std::string, std::less<>> reset_mechanisms_;  // by layer path
  std::map<std::string, bool, std::less<>> state_given_;  // recurrent cells, by layer path
  // On a device, what the hook metrics count of a batch is counted there at once.
  DeviceTally tally_;
  TallyScope tally_scope_{tally_};
};

/// Operators of connection layers, as TorchScript graphs call them.
[[nodiscard]] const std::vector<std::string>& connection_operators();

/// The operators that stand for these activation classes in an inlined (frozen) model, as the
/// probe hooks them; classes no operator stands for are left out.
[[nodiscard]] std::vector<std::string> activation_operators_of(
    const std::vector<std::string>& types);

}  // namespace neurobench::detail
