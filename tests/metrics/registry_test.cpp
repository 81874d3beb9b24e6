// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/metric.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/processors/processors.hpp>

namespace {

// A user's own metric, registered in one line (as in docs/writing-a-metric.md).
class SpikeCount final : public neurobench::AccumulatedMetric {
 public:
  void reset() override { spikes_ = 0; }
  void update(const neurobench::WorkloadInput& input) override {
    spikes_ += input.preds.count_nonzero().item<int64_t>();
  }
  [[nodiscard]] neurobench::Json compute() const override { return spikes_; }

 private:
  int64_t spikes_ = 0;
};
NEUROBENCH_REGISTER_METRIC(SpikeCount, "number of non-zero predictions");

class WeightBytes final : public neurobench::StaticMetric {
 public:
  [[nodiscard]] neurobench::Json compute(const neurobench::NeuroBenchModel& model,
                                         const neurobench::LayerSetup&) const override {
    return static_cast<int64_t>(model.parameters().size());
  }
};
NEUROBENCH_REGISTER_METRIC(WeightBytes, "number of parameter tensors");

}  // namespace

TEST_CASE("an unknown metric name is a UsageError that names it", "[metrics][registry]") {
  const auto& metrics = neurobench::workload_metrics();
  REQUIRE_THROWS_AS(metrics.create("Acuracy"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(metrics.create("Acuracy"), Catch::Contains("Acuracy") &&
                                                     Catch::Contains("ClassificationAccuracy"));
}

TEST_CASE("metric names are found ignoring case and underscores", "[metrics][registry]") {
  const auto& metrics = neurobench::workload_metrics();
  REQUIRE(metrics.contains("classification_accuracy"));
  REQUIRE(metrics.contains("CLASSIFICATIONACCURACY"));
  REQUIRE(metrics.contains("synaptic-operations"));
  REQUIRE(neurobench::static_metrics().contains("connection_sparsity"));
  REQUIRE_FALSE(neurobench::static_metrics().contains("classification_accuracy"));
}

TEST_CASE("create returns a fresh object each time", "[metrics][registry]") {
  const auto& metrics = neurobench::workload_metrics();
  auto a = metrics.create("MSE");
  auto b = metrics.create("MSE");
  REQUIRE(a.get() != b.get());
  REQUIRE(a->name() == "MSE");
}

TEST_CASE("a user's metric registered with the macro is found by name in its family",
          "[metrics][registry]") {
  REQUIRE(neurobench::workload_metrics().contains("SpikeCount"));
  REQUIRE(neurobench::workload_metrics().contains("spike_count"));
  REQUIRE_FALSE(neurobench::static_metrics().contains("SpikeCount"));
  REQUIRE(neurobench::static_metrics().contains("WeightBytes"));
  auto m = neurobench::workload_metrics().create("spike_count");
  REQUIRE(m->name() == "SpikeCount");
  const auto* entry = neurobench::workload_metrics().find("SpikeCount");
  REQUIRE(entry->description == "number of non-zero predictions");
}

TEST_CASE("registering a name twice is a UsageError", "[metrics][registry]") {
  neurobench::Registry<neurobench::WorkloadMetric> r("workload metric");
  const auto mse = [] { return std::make_unique<neurobench::metrics::MSE>(); };
  const auto named = [](const char* name) {
    neurobench::PluginDescription d;
    d.name = name;
    return d;
  };
  r.add(named("Thing"), mse);
  REQUIRE_THROWS_AS(r.add(named("thing"), mse), neurobench::UsageError);
  REQUIRE_THROWS_WITH(r.add(named("THING"), mse), Catch::Contains("already registered"));
  REQUIRE_THROWS_AS(r.add(named("_"), mse), neurobench::UsageError);
  REQUIRE_THROWS_AS(
      r.add(named("Other"), neurobench::Registry<neurobench::WorkloadMetric>::Factory{}),
      neurobench::UsageError);
}

TEST_CASE("every built-in metric and processor is listed with a description",
          "[metrics][registry]") {
  for (const char* name : {"Footprint", "ParameterCount", "ConnectionSparsity"}) {
    REQUIRE(neurobench::static_metrics().find(name) != nullptr);
    REQUIRE_FALSE(neurobench::static_metrics().find(name)->description.empty());
  }
  for (const char* name : {"ClassificationAccuracy", "MSE", "SMAPE", "R2", "ActivationSparsity",
                           "ActivationSparsityByLayer", "SynapticOperations", "MembraneUpdates",
                           "NeuronOperations"}) {
    REQUIRE(neurobench::workload_metrics().find(name) != nullptr);
    REQUIRE_FALSE(neurobench::workload_metrics().find(name)->description.empty());
  }
  REQUIRE(neurobench::post_processors().contains("choose_max_count"));
  REQUIRE(neurobench::post_processors().contains("Aggregate"));
}

TEST_CASE("registry keys drop case, underscores, dashes and spaces", "[metrics][registry]") {
  REQUIRE(neurobench::registry_key("Synaptic_Operations") == "synapticoperations");
  REQUIRE(neurobench::registry_key("synaptic-operations ") == "synapticoperations");
  REQUIRE(neurobench::detail::short_type_name(typeid(neurobench::metrics::SMAPE).name()) ==
          "SMAPE");
}
