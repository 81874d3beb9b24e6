// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/metric_info.hpp>

#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/metrics/metric.hpp>

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
      {"MSE", "squared target units", Better::Lower},
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

namespace {

// A user's own metrics, described in _metrics as Benchmark writes it: a number, and an object
// whose `total` key has its own unit while per-layer keys take the metric's.
const char* const kDescribed = R"({
    "SpikeRate": 0.1, "LayerSpikes": {"total": 100, "conv1": 40, "block1": {"relu": 60}},
    "Footprint": 1000, "MyMetric": 3, "my.dotted": {"x": 1},
    "_metrics": {
      "SpikeRate": {"kind": "workload", "description": "spikes per neuron per step",
                    "unit": "spikes/step", "better": "lower", "source": "/path/libmine.so"},
      "LayerSpikes": {"unit": "spikes/sample", "better": "none",
                      "keys": {"total": {"unit": "spikes", "better": "lower"},
                               "block1": {"unit": "block spikes", "better": "higher"}}},
      "my": {"unit": "wrong", "better": "higher"},
      "my.dotted": {"unit": "dots", "better": "lower"}}})";

}  // namespace

TEST_CASE("a run's _metrics gives the unit and direction of its metrics and their keys",
          "[report]") {
  const auto run = neurobench::test::run_of("run", kDescribed);
  struct Case {
    const char* key;
    const char* unit;
    Better better;
  };
  const std::vector<Case> cases = {
      {"SpikeRate", "spikes/step", Better::Lower},
      {"LayerSpikes.total", "spikes", Better::Lower},               // a described key
      {"LayerSpikes.conv1", "spikes/sample", Better::None},         // the metric's own
      {"LayerSpikes.block1.relu", "block spikes", Better::Higher},  // nested: its first part
      {"my.dotted.x", "dots", Better::Lower},                       // the longest name wins
      {"Footprint", "bytes", Better::Lower},                        // not described: legacy table
      {"MyMetric", "", Better::None},
      {"SpikeRateX", "", Better::None},  // a name is a whole word
  };
  for (const auto& c : cases) {
    INFO(c.key);
    const auto info = neurobench::metric_info(run, c.key);
    REQUIRE(info.unit == c.unit);
    REQUIRE(info.better == c.better);
  }
  REQUIRE(neurobench::described_metric_info(run, "SpikeRate").has_value());
  REQUIRE_FALSE(neurobench::described_metric_info(run, "Footprint").has_value());
  // The legacy lookup never reads a file's descriptions.
  REQUIRE(neurobench::metric_info("SpikeRate").unit.empty());
  REQUIRE(neurobench::legacy_metric_info("SpikeRate").better == Better::None);
}

TEST_CASE("a run's _metrics wins over the legacy table for built-in metrics too", "[report]") {
  const auto run = neurobench::test::run_of("run", R"({"Footprint": 1, "Latency": {"p_ms": 2},
      "_metrics": {"Footprint": {"unit": "kB", "better": "none"},
                   "Latency": {"unit": "ms", "better": "lower"}}})");
  REQUIRE(neurobench::metric_info(run, "Footprint").unit == "kB");
  REQUIRE(neurobench::metric_info(run, "Footprint").better == Better::None);
  REQUIRE(neurobench::metric_info(run, "Latency.p_ms").better == Better::Lower);
  REQUIRE(neurobench::legacy_metric_info("Latency.p_ms").better == Better::Lower);
  REQUIRE(neurobench::legacy_metric_info("Footprint").unit == "bytes");
}

TEST_CASE("across runs, the first run that describes a metric is used, then the legacy table",
          "[report]") {
  const auto old = neurobench::test::run_of("old", R"({"SpikeRate": 1, "Footprint": 2})");
  const auto higher = neurobench::test::run_of(
      "higher",
      R"({"SpikeRate": 1, "_metrics": {"SpikeRate": {"unit": "a", "better": "higher"}}})");
  const auto lower = neurobench::test::run_of(
      "lower", R"({"SpikeRate": 1, "_metrics": {"SpikeRate": {"unit": "b", "better": "lower"}}})");
  using Runs = std::vector<neurobench::RunResults>;
  REQUIRE(neurobench::metric_info(Runs{old, higher, lower}, "SpikeRate").unit == "a");
  REQUIRE(neurobench::metric_info(Runs{old, lower, higher}, "SpikeRate").better == Better::Lower);
  REQUIRE(neurobench::metric_info(Runs{old}, "SpikeRate").better == Better::None);
  REQUIRE(neurobench::metric_info(Runs{old, higher}, "Footprint").unit == "bytes");
}

TEST_CASE("results files without _metrics keep the legacy table's units and directions",
          "[report]") {
  for (const auto& run : neurobench::test::fixture_runs()) {
    REQUIRE(run.descriptions.empty());
    for (const auto& v : neurobench::flatten_metrics(run.metrics)) {
      INFO(run.label << ": " << v.key);
      const auto info = neurobench::metric_info(run, v.key);
      const auto legacy = neurobench::legacy_metric_info(v.key);
      REQUIRE(info.unit == legacy.unit);
      REQUIRE(info.better == legacy.better);
      REQUIRE(neurobench::metric_info(v.key).unit == legacy.unit);
    }
  }
}

TEST_CASE("the legacy lookup answers what each built-in metric's description says", "[report]") {
  std::size_t builtins = 0;
  for (const auto* m : neurobench::all_metrics()) {
    if (m->source != "built-in") continue;
    ++builtins;
    INFO(m->name);
    const auto value = neurobench::legacy_metric_info(m->name);
    CHECK(value.unit == m->value.unit);
    CHECK(value.better == m->value.better);
    for (const auto& [key, described] : m->keys) {
      INFO(key);
      const auto info = neurobench::legacy_metric_info(m->name + "." + key);
      CHECK(info.unit == described.unit);
      CHECK(info.better == described.better);
    }
  }
  CHECK(builtins >= 22);  // description_test names each one
  // A key the metric does not name (a layer's path) takes the metric's own unit and direction.
  CHECK(neurobench::legacy_metric_info("ActivationSparsityByLayer.block1.relu").unit == "fraction");
  CHECK(neurobench::legacy_metric_info("NeuronOperations.Effective Neuron Ops").better ==
        Better::Lower);
  // Names are exact, as results files write them; registered metrics other than the
  // built-ins are not in the legacy lookup.
  CHECK(neurobench::legacy_metric_info("footprint").unit.empty());
  CHECK(neurobench::legacy_metric_info("Footprint_").unit.empty());
}
