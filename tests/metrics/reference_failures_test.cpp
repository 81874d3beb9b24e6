// SPDX-License-Identifier: Apache-2.0
// What neurobench_cpp needs of the harness to give NeuroBench's numbers where NeuroBench's own
// code reads a list input or fails part-way (docs/python.md): a model called on [x, (h, c)]
// (Batch::input), SynapticOperations' per_layer option with NeuroBench's failures, a module used
// at several places listed once, and a network's state read and set between runs. The fixtures
// and NeuroBench's numbers: tests/fixtures/reference_failures/make_models.py.
#include <neurobench/metrics/builtin.hpp>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/model/model.hpp>

#include "support.hpp"

using neurobench::Json;

namespace rf {

const Json& expected(const std::string& name) {
  static const Json all = [] {
    std::ifstream in(neurobench::test::fixture("reference_failures/expected.json"));
    return Json::parse(in);
  }();
  return all.at(name);
}

torch::Tensor array(const std::string& name) {
  for (const auto& a :
       neurobench::load_npz(neurobench::test::fixture("reference_failures/data.npz"))) {
    if (a.first == name) return a.second;
  }
  FAIL("data.npz has no array " << name);
  return {};
}

std::shared_ptr<neurobench::TorchScriptModel> model(const std::string& name) {
  return std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("reference_failures/" + name + ".pt"));
}

// NeuroBench's simple_LSTM input: [x, (h, c)] with states of ones, as the fixture's script
// builds it in a pre-processor.
class WithState final : public neurobench::PreProcessor {
 public:
  neurobench::Batch operator()(const neurobench::Batch& batch) override {
    neurobench::Batch out = batch;
    const int64_t n = batch.data.size(0);
    const auto state = c10::ivalue::Tuple::create({torch::ones({n, 5}), torch::ones({n, 5})});
    out.input = std::make_shared<const c10::IValue>(
        c10::ivalue::Tuple::create({batch.data, c10::IValue(state)}));
    return out;
  }
};

neurobench::Results run(std::shared_ptr<neurobench::NeuroBenchModel> m, const torch::Tensor& x,
                        std::vector<std::unique_ptr<neurobench::PreProcessor>> pre,
                        neurobench::MetricSet metrics, const neurobench::RunOptions& options = {}) {
  auto data = std::make_shared<neurobench::TensorDataset>(x, torch::zeros({x.size(0)}));
  neurobench::LoaderOptions loader;
  loader.batch_size = 2;
  neurobench::Benchmark bench(std::move(m), neurobench::DataLoader(data, loader), std::move(pre),
                              {}, std::move(metrics));
  neurobench::RunOptions quiet = options;
  quiet.quiet = true;
  return bench.run(quiet);
}

neurobench::MetricSet per_layer_synops() {
  return neurobench::MetricSet::from_specs({}, {{"SynapticOperations", {{"per_layer", true}}}});
}

// NeuroBench's SynapticOperations over per_layer's batches: a failing layer ends its batch
// (counts before it kept, samples not) and is never counted again.
Json replay(const Json& per_layer) {
  std::set<std::string> dropped;
  int64_t macs = 0, acs = 0, dense = 0, samples = 0;
  Json value;
  for (const Json& batch : per_layer.at("batches")) {
    bool failed = false;
    for (const Json& layer : batch.at("layers")) {
      const std::string path = layer.at("layer").get<std::string>();
      if (dropped.count(path) != 0) continue;
      macs += layer.at("macs").get<int64_t>();
      acs += layer.at("acs").get<int64_t>();
      dense += layer.at("dense").get<int64_t>();
      if (!layer.at("error").is_null()) {
        dropped.insert(path);
        failed = true;
        break;
      }
    }
    if (failed) {
      value = 0.0;
      continue;
    }
    samples += batch.at("samples").get<int64_t>();
    const auto n = static_cast<double>(samples);
    value = Json{{"Effective_MACs", static_cast<double>(macs) / n},
                 {"Effective_ACs", static_cast<double>(acs) / n},
                 {"Dense", static_cast<double>(dense) / n}};
  }
  return value;
}

// Two results objects hold the same keys and values, in any order.
bool same(const Json& a, const Json& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || b.at(key) != value) return false;
  }
  return true;
}

}  // namespace rf

TEST_CASE("a model called on [x, (h, c)] runs, counted as NeuroBench counts its LSTM cell",
          "[reference_failures][structured]") {
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<rf::WithState>());
  const auto r = rf::run(rf::model("lstm_state"), rf::array("lstm_x"), std::move(pre),
                         neurobench::MetricSet::from_names({}, {"SynapticOperations"}));
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  CHECK(rf::same(r.values["SynapticOperations"], rf::expected("lstm_state")["SynapticOperations"]));
}

TEST_CASE("a model that takes one tensor refuses a structured input, naming the model",
          "[reference_failures][structured]") {
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<rf::WithState>());
  REQUIRE_THROWS_WITH(rf::run(rf::model("gru_stepper"), rf::array("seq_x"), std::move(pre),
                              neurobench::MetricSet::from_names({}, {"SynapticOperations"})),
                      Catch::Contains("gru_stepper.pt: forward failed on a batch of"));
}

TEST_CASE("per_layer: a GRU cell called without a state fails as NeuroBench's count does",
          "[reference_failures][per_layer]") {
  const auto r = rf::run(rf::model("gru_stepper"), rf::array("seq_x"), {}, rf::per_layer_synops());
  REQUIRE(r.ok());
  const Json& value = r.values["SynapticOperations"];
  const Json& first = value["batches"][0];
  CHECK(first["samples"] == 2);
  REQUIRE(first["layers"].size() == 2);
  CHECK(first["layers"][0]["layer"] == "cell");  // module order: the cell, then the readout
  CHECK(first["layers"][0]["error"] ==
        "output with shape [24] doesn't match the broadcast shape [24, 24]");
  CHECK(first["layers"][1]["layer"] == "readout");
  CHECK(first["layers"][1]["error"].is_null());
  CHECK(rf::same(rf::replay(value), rf::expected("gru_stepper")["SynapticOperations"]));
  CHECK_FALSE(neurobench::metrics::SynapticOperations(Json{{"per_layer", true}}).mergeable());
}

TEST_CASE("per_layer: an LSTM layer fails as NeuroBench's count does, the Linear is counted",
          "[reference_failures][per_layer]") {
  const auto r = rf::run(rf::model("lstm_layer"), rf::array("seq_x"), {}, rf::per_layer_synops());
  REQUIRE(r.ok());
  const Json& value = r.values["SynapticOperations"];
  CHECK(value["batches"][0]["layers"][0]["error"] == "exceptions must derive from BaseException");
  CHECK(rf::same(rf::replay(value), rf::expected("lstm_layer")["SynapticOperations"]));
  // Without the option the harness counts the layer itself (docs/recurrent-layers.md).
  const auto own = rf::run(rf::model("lstm_layer"), rf::array("seq_x"), {},
                           neurobench::MetricSet::from_names({}, {"SynapticOperations"}));
  REQUIRE(own.ok());
  CHECK(own.values["SynapticOperations"]["Dense"].get<double>() > 32.0);
}

TEST_CASE("per_layer takes only true or false", "[reference_failures][per_layer]") {
  REQUIRE_THROWS_AS(neurobench::metrics::SynapticOperations(Json{{"per_layer", "yes"}}),
                    neurobench::UsageError);
}

TEST_CASE("a module used at several places is one layer, at its first path",
          "[reference_failures][shared]") {
  auto relu = rf::model("shared_relu");
  std::vector<std::string> paths;
  for (const auto& m : relu->modules()) paths.push_back(m.path);
  CHECK(paths == std::vector<std::string>{"", "0", "1", "2", "4", "6"});
  neurobench::MetricSet metrics =
      neurobench::MetricSet::from_specs({{"Footprint", {}}, {"ConnectionSparsity", {}}},
                                        {{"ActivationSparsityByLayer", {{"keys", "name"}}}});
  const auto r = rf::run(relu, rf::array("relu_x"), {}, std::move(metrics));
  const Json& want = rf::expected("shared_relu");
  CHECK(r.values["ActivationSparsityByLayer"] == want["ActivationSparsityByLayer"]);
  CHECK(r.values["Footprint"] == want["Footprint"]);
  // No connection layer: NeuroBench divides by zero; here the metric fails with the reason.
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].metric == "ConnectionSparsity");
}

TEST_CASE("a network's state is read after a run and set before the next",
          "[reference_failures][state]") {
  // snn_reset.pt: fc1, lif1, fc2, lif2; a membrane `mem` per neuron.
  auto snn = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("models/snn_reset.pt"), neurobench::TorchScriptOptions{true});
  (void)snn->forward(torch::rand({3, 4, 3}));
  bool found = false;
  for (const auto& b : snn->live_buffers()) {
    if (b.name == "lif1.mem") {
      found = true;
      CHECK(b.value.size(0) == 3);  // the last batch's
    }
  }
  CHECK(found);
  snn->set_buffers({{"lif1.mem", torch::ones({7, 5})}});
  int64_t bytes = 0;
  for (const auto& b : snn->buffers()) {
    if (b.name == "lif1.mem") bytes = b.value.numel();
  }
  CHECK(bytes == 35);
  REQUIRE_THROWS_WITH(snn->set_buffers({{"lif1.nothing", torch::ones({1})}}),
                      Catch::Contains("has no buffer 'lif1.nothing'"));
  REQUIRE_THROWS_WITH(snn->set_buffers({{"nope.mem", torch::ones({1})}}),
                      Catch::Contains("has no submodule 'nope'"));
}
