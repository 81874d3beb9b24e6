// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/metric_info.hpp>

#include <vector>

#include <catch2/catch.hpp>

#include "reporters/report_support.hpp"

using neurobench::Better;

TEST_CASE("every known metric key has a unit and a better direction", "[report]") {
  struct Case {
    const char* key;
    const char* unit;
    Better better;
  };
  const std::vector<Case> cases = {
      {"ClassificationAccuracy", "fraction", Better::Higher},
      {"Footprint", "bytes", Better::Lower},
      {"ModelFileSize", "bytes", Better::Lower},
      {"ConnectionSparsity", "fraction", Better::Higher},
      {"ActivationSparsity", "fraction", Better::Higher},
      {"ActivationSparsityByLayer.block1.relu", "fraction", Better::Higher},
      {"SMAPE", "%", Better::Lower},
      {"MSE", "", Better::Lower},
      {"R2", "", Better::Higher},
      {"SynapticOperations.Effective_MACs", "ops/sample", Better::Lower},
      {"SynapticOperations.Dense", "ops/sample", Better::Lower},
      {"NeuronOperations.Effective Neuron Ops", "ops/sample", Better::Lower},
      {"MembraneUpdates", "updates/sample", Better::Lower},
      {"DenseMACs.MACs", "MACs/sample", Better::Lower},
      {"Latency.batch_p90_ms", "ms", Better::Lower},
      {"Latency.sample_mean_ms", "ms", Better::Lower},
      {"Latency.batch_std_ms", "ms", Better::None},
      {"Latency.runs", "count", Better::None},
      {"Latency.warmup_runs", "count", Better::None},
      {"Latency.batch_size", "samples", Better::None},
      {"InferenceTime.batch_median_ms", "ms", Better::Lower},
      {"Throughput.samples_per_s", "samples/s", Better::Higher},
      {"Throughput.seconds", "s", Better::None},
      {"StartupTime.total_ms", "ms", Better::Lower},
      {"PeakMemory.peak_rss_bytes", "bytes", Better::Lower},
      {"MyMetric", "", Better::None},
      {"MyMetric.latency_ms", "", Better::None},
  };
  for (const auto& c : cases) {
    INFO(c.key);
    const auto info = neurobench::metric_info(c.key);
    REQUIRE(info.unit == c.unit);
    REQUIRE(info.better == c.better);
  }
  REQUIRE(neurobench::to_string(Better::Higher) == "higher");
}
