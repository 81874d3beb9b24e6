// SPDX-License-Identifier: Apache-2.0
// Metrics that describe themselves: units, directions and keys declared with the class,
// options checked against what a metric declares, namespaced classes in the macro.
#include <neurobench/metrics/description.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/processors/processors.hpp>

using neurobench::Better;
using neurobench::Json;
using neurobench::MetricDescription;

namespace lab::inner {

// A metric in a namespace, described by a static describe(), with options.
class ThresholdRate final : public neurobench::WorkloadMetric {
 public:
  explicit ThresholdRate(const Json& options)
      : threshold_(options.at("threshold").get<double>()),
        scale_(options.at("scale").get<int64_t>()) {}
  static MetricDescription describe() {
    return MetricDescription("fraction of predictions above a threshold, scaled")
        .with_unit("fraction")
        .higher_is_better()
        .with_option("threshold", "number", 0.5, "counts predictions above this")
        .with_option("scale", "integer", 1, "multiplies the fraction");
  }
  [[nodiscard]] Json operator()(const neurobench::WorkloadInput& input) override {
    return (input.preds > threshold_).to(torch::kFloat).mean().item<double>() *
           static_cast<double>(scale_);
  }
  [[nodiscard]] double threshold() const { return threshold_; }

 private:
  double threshold_;
  int64_t scale_;
};

// A static metric described on its registration line, with keys.
class TensorCounts final : public neurobench::StaticMetric {
 public:
  [[nodiscard]] Json compute(const neurobench::NeuroBenchModel& model,
                             const neurobench::LayerSetup& /*layers*/) const override {
    return {{"parameters", static_cast<int64_t>(model.parameters().size())}, {"other", 1}};
  }
};

// A post-processor registered with the processor macro.
class Negate final : public neurobench::PostProcessor {
 public:
  [[nodiscard]] torch::Tensor operator()(const torch::Tensor& preds) override { return -preds; }
};

}  // namespace lab::inner

NEUROBENCH_REGISTER_METRIC(lab::inner::ThresholdRate);
NEUROBENCH_REGISTER_METRIC(lab::inner::TensorCounts,
                           MetricDescription("tensors of the model")
                               .with_unit("tensors")
                               .lower_is_better()
                               .with_key("other", "", Better::None, "a constant"));
NEUROBENCH_REGISTER_PROCESSOR(lab::inner::Negate, "negates the predictions");

TEST_CASE("a namespaced metric registers under its class name with its description",
          "[metrics][description]") {
  const auto* rate = neurobench::workload_metrics().find("ThresholdRate");
  REQUIRE(rate != nullptr);
  CHECK(rate->kind == "workload");
  CHECK(rate->value.unit == "fraction");
  CHECK(rate->value.better == Better::Higher);
  CHECK(rate->source == "program");
  REQUIRE(rate->options.size() == 2);
  const auto* counts = neurobench::find_metric("tensor_counts");
  REQUIRE(counts != nullptr);
  CHECK(counts->kind == "static");
  CHECK(counts->describe_key("parameters").unit == "tensors");
  CHECK(counts->describe_key("parameters").better == Better::Lower);
  CHECK(counts->describe_key("other").better == Better::None);
  CHECK(neurobench::post_processors().find("Negate")->source == "program");
  CHECK(neurobench::post_processors().find("Argmax")->source == "built-in");
}

TEST_CASE("options are checked against the metric's declaration and defaults filled in",
          "[metrics][description]") {
  const auto& metrics = neurobench::workload_metrics();
  auto plain = metrics.create("ThresholdRate");
  CHECK(dynamic_cast<lab::inner::ThresholdRate&>(*plain).threshold() == 0.5);
  auto set = metrics.create("ThresholdRate", {{"threshold", 0.25}});
  CHECK(dynamic_cast<lab::inner::ThresholdRate&>(*set).threshold() == 0.25);
  CHECK_NOTHROW(metrics.create("ThresholdRate", {{"scale", 2.0}}));  // integral float
  REQUIRE_THROWS_WITH(metrics.create("ThresholdRate", {{"treshold", 1}}),
                      Catch::Contains("'ThresholdRate' has no option 'treshold'") &&
                          Catch::Contains("threshold, scale"));
  REQUIRE_THROWS_WITH(metrics.create("ThresholdRate", {{"threshold", "high"}}),
                      Catch::Contains("option 'threshold' must be a number") &&
                          Catch::Contains("\"high\""));
  REQUIRE_THROWS_WITH(metrics.create("ThresholdRate", {{"scale", 1.5}}),
                      Catch::Contains("option 'scale' must be an integer"));
  REQUIRE_THROWS_WITH(metrics.create("ThresholdRate", Json::array({1})),
                      Catch::Contains("options must be an object"));
  REQUIRE_THROWS_WITH(metrics.create("MSE", {{"anything", 1}}),
                      Catch::Contains("'MSE' takes no options"));
}

TEST_CASE("MetricSet::from_specs records the options each metric ran with",
          "[metrics][description]") {
  const auto set = neurobench::MetricSet::from_specs(
      {{"TensorCounts", Json::object()}},
      {{"threshold_rate", {{"threshold", 0.1}}}, {"MSE", Json::object()}});
  CHECK(set.order == std::vector<std::string>{"TensorCounts", "ThresholdRate", "MSE"});
  CHECK(set.options == Json{{"ThresholdRate", {{"threshold", 0.1}, {"scale", 1}}}});
  REQUIRE_THROWS_WITH(
      neurobench::MetricSet::from_specs({}, {{"ThresholdRate", {{"bad", 1}}}}),
      Catch::Contains("has no option 'bad'"));
  REQUIRE_THROWS_WITH(neurobench::MetricSet::from_specs({}, {{"NoSuchMetric", Json::object()}}),
                      Catch::Contains("unknown workload metric 'NoSuchMetric'") &&
                          Catch::Contains("Latency"));
}

TEST_CASE("built-in metrics describe themselves as the report always showed them",
          "[metrics][description]") {
  const auto info = [](const char* metric, const char* key) {
    return neurobench::find_metric(metric)->describe_key(key);
  };
  CHECK(info("Footprint", "").unit == "bytes");
  CHECK(info("ClassificationAccuracy", "").better == Better::Higher);
  CHECK(info("DenseMACs", "MACs").unit == "MACs/sample");
  CHECK(info("SynapticOperations", "Effective_ACs").better == Better::Lower);
  CHECK(info("ActivationSparsityByLayer", "block.relu").unit == "fraction");
  CHECK(info("Latency", "batch_p90_ms").better == Better::Lower);
  CHECK(info("Latency", "batch_std_ms").better == Better::None);
  CHECK(info("Latency", "runs").unit == "count");
  CHECK(info("Throughput", "samples_per_s").better == Better::Higher);
  CHECK(info("PeakMemory", "growth_bytes").unit == "bytes");
  for (const auto* m : neurobench::all_metrics()) {
    INFO(m->name);
    CHECK_FALSE(m->description.empty());
    CHECK_FALSE(m->kind.empty());
  }
}

TEST_CASE("every built-in metric has a unit and a direction where one makes sense",
          "[metrics][description]") {
  // R2 is a coefficient of determination: a number with no unit.
  const std::vector<std::string> unitless = {"R2"};
  // Keys with no unit: a 0/1 flag.
  const std::vector<std::string> unitless_keys = {"peak_since_process_start"};
  // What the hardware did is neither better nor worse when higher: a clock, a utilisation.
  const std::vector<std::string> directionless = {"Utilisation", "Clock"};
  std::size_t builtins = 0;
  for (const auto* m : neurobench::all_metrics()) {
    if (m->source != "built-in") continue;
    ++builtins;
    INFO(m->name);
    const bool has_direction =
        std::find(directionless.begin(), directionless.end(), m->name) == directionless.end();
    CHECK((m->value.better != Better::None) == has_direction);
    const bool has_unit = std::find(unitless.begin(), unitless.end(), m->name) == unitless.end();
    CHECK(m->value.unit.empty() != has_unit);
    for (const auto& [key, value] : m->keys) {
      INFO(key);
      const bool key_has_unit =
          std::find(unitless_keys.begin(), unitless_keys.end(), key) == unitless_keys.end();
      CHECK(value.unit.empty() != key_has_unit);
    }
  }
  // Every metric that ships is built in (a metric missing from the registry shows here); add a
  // new built-in to the list.
  const std::vector<std::string> shipped = {"Footprint",
                                            "ParameterCount",
                                            "ConnectionSparsity",
                                            "ModelFileSize",
                                            "ClassificationAccuracy",
                                            "MSE",
                                            "SMAPE",
                                            "R2",
                                            "ActivationSparsity",
                                            "ActivationSparsityByLayer",
                                            "SynapticOperations",
                                            "DenseMACs",
                                            "MembraneUpdates",
                                            "NeuronOperations",
                                            "PeakMemory",
                                            "CocoMap",
                                            "EnergyEstimate",
                                            "MemoryEstimate",
                                            "Latency",
                                            "InferenceTime",
                                            "Throughput",
                                            "StartupTime",
                                            "Energy",
                                            "Utilisation",
                                            "Clock",
                                            "Temperature"};
  for (const auto& name : shipped) {
    INFO(name);
    const auto* m = neurobench::find_metric(name);
    REQUIRE(m != nullptr);
    CHECK(m->source == "built-in");
  }
  CHECK(builtins >= shipped.size());
  CHECK(neurobench::find_metric("MSE")->value.unit == "squared target units");
  CHECK(neurobench::find_metric("Throughput")->value.unit == "samples/s");
  CHECK(neurobench::find_metric("Throughput")->value.better == Better::Higher);
}

TEST_CASE("a description goes to JSON and back", "[metrics][description]") {
  MetricDescription d = MetricDescription("ops").with_unit("ops/sample").lower_is_better();
  d.with_key("MACs", "MACs/sample", Better::Lower, "multiply-accumulates");
  d.kind = "workload";
  d.source = "/x/libm.so";
  const Json j = d.to_json();
  CHECK(j["better"] == "lower");
  CHECK(j["keys"]["MACs"]["unit"] == "MACs/sample");
  const MetricDescription back = MetricDescription::from_json(j, "Ops", "r.json");
  CHECK(back.to_json() == j);
  CHECK(back.name == "Ops");
  REQUIRE_THROWS_WITH(MetricDescription::from_json({{"better", "up"}}, "Ops", "r.json"),
                      Catch::Contains("r.json: _metrics.Ops") && Catch::Contains("'up'"));
  REQUIRE_THROWS_WITH(MetricDescription::from_json({{"unit", 3}}, "Ops", "r.json"),
                      Catch::Contains("'unit' is not a string"));
  REQUIRE_THROWS_WITH(MetricDescription::from_json(Json::array(), "Ops", "r.json"),
                      Catch::Contains("not an object"));
}
