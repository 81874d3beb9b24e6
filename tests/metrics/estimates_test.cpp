// SPDX-License-Identifier: Apache-2.0
// EnergyEstimate and MemoryEstimate (docs/deployment-metrics.md) on the small networks of
// tests/fixtures/energy/make_energy_models.py: the expected values are computed by hand in the
// comments from the weights set there.
#include <neurobench/metrics/builtin.hpp>

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/reporters/html_report.hpp>

#include "reporters/report_support.hpp"
#include "support.hpp"

using neurobench::Json;
using neurobench::MetricSpec;
using neurobench::test::fixture;

namespace {

neurobench::Results estimates_run(const std::string& model_file, const torch::Tensor& data,
                                  const std::vector<MetricSpec>& workload) {
  auto model = std::make_shared<neurobench::TorchScriptModel>(fixture("energy/" + model_file));
  auto dataset = std::make_shared<neurobench::TensorDataset>(data, torch::zeros({data.size(0)}));
  neurobench::LoaderOptions options;
  options.batch_size = data.size(0);
  neurobench::Benchmark bench(model, neurobench::DataLoader(dataset, options), {}, {},
                              neurobench::MetricSet::from_specs({}, workload));
  neurobench::RunOptions run_options;
  run_options.quiet = true;
  neurobench::Results r = bench.run(run_options);
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  return r;
}

// Two samples; fc1 reads features (0, 2) of the first and (2, 3) of the second.
torch::Tensor estimates_dense_input() {
  return torch::tensor({{1.f, 0.f, 2.f, 0.f}, {0.f, 0.f, 3.f, 1.f}});
}
// Two samples of spikes; fc1 reads features (0, 2) and (1, 2, 3).
torch::Tensor estimates_spike_input() {
  return torch::tensor({{1.f, 0.f, 1.f, 0.f}, {0.f, 1.f, 1.f, 1.f}});
}

double estimates_key(const neurobench::Results& r, const char* metric, const char* key) {
  return r.values.at(metric).at(key).get<double>();
}

}  // namespace

// Dense MLP: fc1's non-zero weights per input feature are 2, 2, 2, 1, so it makes 2 + 2 = 4 MACs
// on the first sample and 2 + 1 = 3 on the second. Its outputs are [3, 0, 3] and [3, 0, 4]
// after the ReLU (6 elements, 4 non-zero). fc2 (2, 1, 1 per input) reads features 0 and 2 of
// each: 3 MACs per sample. MACs: (4 + 3 + 3 + 3) / 2 = 6.5 per sample; no ACs, no neurons.
TEST_CASE("EnergyEstimate of a dense MLP is its MACs times 4.6 pJ", "[metrics][estimates]") {
  const auto r = estimates_run("dense_mlp.pt", estimates_dense_input(),
                               {"SynapticOperations", "EnergyEstimate"});
  REQUIRE(estimates_key(r, "SynapticOperations", "Effective_MACs") == 6.5);
  CHECK(estimates_key(r, "EnergyEstimate", "MACs_J") == Approx(6.5 * 4.6e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "ACs_J") == 0.0);
  CHECK(estimates_key(r, "EnergyEstimate", "Neuron_Ops_J") == 0.0);
  CHECK(estimates_key(r, "EnergyEstimate", "Total_J") == Approx(29.9e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Total_mWh") == Approx(29.9e-12 / 3.6));
  // Without the memory option, no memory keys: a missing cost is not a zero cost.
  CHECK_FALSE(r.values.at("EnergyEstimate").contains("Weight_Memory_J"));
}

// With memory = sram (5 pJ per 32-bit word): 6.5 weight reads per sample; the ReLU writes 6
// elements and 4 non-zeros are read, (6 + 4) / 2 = 5 words per sample; no neuron state.
TEST_CASE("EnergyEstimate of a dense MLP with SRAM accesses adds 5 pJ per word",
          "[metrics][estimates]") {
  const auto r = estimates_run("dense_mlp.pt", estimates_dense_input(),
                               {MetricSpec("EnergyEstimate", Json{{"memory", "sram"}})});
  CHECK(estimates_key(r, "EnergyEstimate", "Weight_Memory_J") == Approx(6.5 * 5e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Activation_Memory_J") == Approx(5 * 5e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "State_Memory_J") == 0.0);
  CHECK(estimates_key(r, "EnergyEstimate", "Total_J") == Approx(29.9e-12 + 11.5 * 5e-12));
}

// Spiking MLP, one step: fc1 makes 2 + 2 = 4 ACs on the first sample, 2 + 2 + 1 = 5 on the
// second; its outputs [2, 0, 2] and [1, 1, 3] are lif1's membrane potentials (mem starts at 0),
// which spikes where above 1: [1, 0, 1] and [0, 0, 1] (6 elements, 3 non-zero). fc2 reads them:
// 2 + 1 = 3 and 1 ACs; lif2's potentials [1, 3] and [0, 1] spike as [0, 1] and [0, 0] (4
// elements, 1 non-zero). ACs: (4 + 5 + 3 + 1) / 2 = 6.5 per sample. Membrane updates: 6 + 4 =
// 10, neuron operations 10 x 4 (Leaky, subtract) = 40: 5 and 20 per sample.
TEST_CASE("EnergyEstimate of a spiking MLP splits ACs and neuron operations",
          "[metrics][estimates]") {
  const auto r = estimates_run("spiking_mlp.pt", estimates_spike_input(),
                               {"SynapticOperations", "NeuronOperations", "EnergyEstimate"});
  REQUIRE(estimates_key(r, "SynapticOperations", "Effective_ACs") == 6.5);
  REQUIRE(estimates_key(r, "NeuronOperations", "Effective Neuron Ops") == 20.0);
  CHECK(estimates_key(r, "EnergyEstimate", "MACs_J") == 0.0);
  CHECK(estimates_key(r, "EnergyEstimate", "ACs_J") == Approx(6.5 * 0.9e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Neuron_Ops_J") == Approx(20 * 0.9e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Total_J") == Approx(23.85e-12));
}

// With memory = dram (650 pJ per word): 6.5 weight reads, (10 written + 4 non-zero read) / 2 =
// 7 activation words and 2 x 5 membrane words per sample.
TEST_CASE("EnergyEstimate of a spiking MLP with DRAM accesses counts the membrane state",
          "[metrics][estimates]") {
  const auto r = estimates_run("spiking_mlp.pt", estimates_spike_input(),
                               {MetricSpec("EnergyEstimate", Json{{"memory", "dram"}})});
  CHECK(estimates_key(r, "EnergyEstimate", "Weight_Memory_J") == Approx(6.5 * 650e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Activation_Memory_J") == Approx(7 * 650e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "State_Memory_J") == Approx(10 * 650e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Total_J") == Approx(23.85e-12 + 23.5 * 650e-12));
}

// EnergyEstimate counts with SynapticOperations', NeuronOperations' and MembraneUpdates' own
// code on the same layer events: asking for those metrics too must not change its value. A
// step-wise spiking network (5 timesteps, batches of 4 then 2) and the dense MLP, with memory
// accesses so that every part of the estimate is counted.
TEST_CASE("EnergyEstimate is the same with and without the counting metrics beside it",
          "[metrics][estimates]") {
  const MetricSpec energy("EnergyEstimate", Json{{"memory", "sram"}});
  const std::vector<MetricSpec> counters = {"SynapticOperations", "NeuronOperations",
                                            "MembraneUpdates", "ActivationSparsity"};
  auto run = [](const std::string& model_file, bool stepwise, const torch::Tensor& data,
                int64_t batch, const std::vector<MetricSpec>& workload) {
    neurobench::TorchScriptOptions o;
    o.stepwise = stepwise;
    auto model = std::make_shared<neurobench::TorchScriptModel>(fixture(model_file), o);
    auto dataset = std::make_shared<neurobench::TensorDataset>(data, torch::zeros({data.size(0)}));
    neurobench::LoaderOptions lo;
    lo.batch_size = batch;
    auto layers = neurobench::Benchmark::default_layers();
    layers.activation_types.push_back("Leaky");
    neurobench::Benchmark bench(model, neurobench::DataLoader(dataset, lo), {}, {},
                                neurobench::MetricSet::from_specs({}, workload), layers);
    neurobench::RunOptions ro;
    ro.quiet = true;
    const neurobench::Results r = bench.run(ro);
    for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
    REQUIRE(r.ok());
    return r;
  };
  torch::manual_seed(5);
  const torch::Tensor spikes = (torch::rand({6, 5, 3}) > 0.4).to(torch::kFloat) * 3;
  for (const bool spiking : {true, false}) {
    INFO((spiking ? "spiking" : "dense"));
    const std::string file = spiking ? "models/snn_noreset.pt" : "energy/dense_mlp.pt";
    const torch::Tensor data = spiking ? spikes : torch::randn({6, 4});
    const auto alone = run(file, spiking, data, 4, {energy});
    std::vector<MetricSpec> both = counters;
    both.push_back(energy);
    const auto beside = run(file, spiking, data, 4, both);
    // The same value to the last bit, and that of the counts the metrics beside it report.
    CHECK(alone.values.at("EnergyEstimate") == beside.values.at("EnergyEstimate"));
    const Json& ops = beside.values.at("SynapticOperations");
    CHECK(beside.values.at("EnergyEstimate").at("MACs_J").get<double>() ==
          Approx(ops.at("Effective_MACs").get<double>() * 4.6e-12));
    CHECK(beside.values.at("EnergyEstimate").at("ACs_J").get<double>() ==
          Approx(ops.at("Effective_ACs").get<double>() * 0.9e-12));
    CHECK((ops.at(spiking ? "Effective_ACs" : "Effective_MACs").get<double>() > 0));
  }
}

TEST_CASE("EnergyEstimate reads a shared SynapticOperations' counts, then keeps them",
          "[metrics][estimates]") {
  using neurobench::metrics::EnergyEstimate;
  using neurobench::metrics::SynapticOperations;
  SynapticOperations counted;
  counted.reset();
  // 13 MACs and 4 ACs over 2 samples, as a shard's state gives them.
  counted.merge_state(Json{{"macs", 13}, {"acs", 4}, {"dense", 40}, {"samples", 2}});
  EnergyEstimate energy;
  energy.reset();
  energy.share_synaptic_operations(&counted);
  const Json shared = energy.compute();
  CHECK(shared.at("MACs_J").get<double>() == Approx(6.5 * 4.6e-12));
  CHECK(shared.at("ACs_J").get<double>() == Approx(2 * 0.9e-12));
  CHECK(energy.export_state().at("synaptic") == counted.export_state());
  // Merging while it reads another metric's counts would count them twice: refused.
  CHECK_THROWS_AS(energy.merge_state(energy.export_state()), neurobench::MetricError);
  // The end of the sharing: the counts are its own, whatever happens to the other metric.
  energy.share_synaptic_operations(nullptr);
  counted.reset();
  CHECK(energy.compute() == shared);
  EnergyEstimate merged;
  merged.reset();
  merged.merge_state(energy.export_state());
  CHECK(merged.compute() == shared);
}

TEST_CASE("EnergyEstimate takes another table and single energies from its options",
          "[metrics][estimates]") {
  // int8: MAC 0.2 + 0.1 pJ; the dense MLP's 6.5 MACs per sample.
  auto r = estimates_run("dense_mlp.pt", estimates_dense_input(),
                         {MetricSpec("EnergyEstimate", Json{{"table", "horowitz45_int8"}})});
  CHECK(estimates_key(r, "EnergyEstimate", "Total_J") == Approx(6.5 * 0.3e-12));
  // The spiking MLP with an AC of 0.03 pJ (Horowitz's 8-bit add) and the table's neuron op.
  r = estimates_run("spiking_mlp.pt", estimates_spike_input(),
                    {MetricSpec("EnergyEstimate", Json{{"pj", Json{{"ac", 0.03}}}})});
  CHECK(estimates_key(r, "EnergyEstimate", "ACs_J") == Approx(6.5 * 0.03e-12));
  CHECK(estimates_key(r, "EnergyEstimate", "Neuron_Ops_J") == Approx(20 * 0.9e-12));
  // The options the run used are recorded with the results: the table is named there.
  CHECK(r.metrics.at("EnergyEstimate").at("options").at("table") == "horowitz45_fp32");
  CHECK(r.metrics.at("EnergyEstimate").at("options").at("pj").at("ac") == 0.03);
  const auto& fp16 = neurobench::metrics::EnergyEstimate::table("horowitz45_fp16");
  CHECK(fp16.mac_pj == Approx(1.5));
  CHECK(fp16.ac_pj == Approx(0.4));
}

TEST_CASE("EnergyEstimate refuses an unknown table, memory or energy naming it",
          "[metrics][estimates]") {
  using neurobench::metrics::EnergyEstimate;
  REQUIRE_THROWS_AS(EnergyEstimate(Json{{"table", "horowitz45_fp64"}}), neurobench::UsageError);
  REQUIRE_THROWS_WITH(EnergyEstimate(Json{{"table", "horowitz45_fp64"}}),
                      Catch::Contains("horowitz45_fp64") && Catch::Contains("horowitz45_int8"));
  REQUIRE_THROWS_WITH(EnergyEstimate(Json{{"memory", "flash"}}),
                      Catch::Contains("'memory'") && Catch::Contains("flash"));
  REQUIRE_THROWS_WITH(EnergyEstimate(Json{{"pj", Json{{"mult", 1.0}}}}),
                      Catch::Contains("'mult'") && Catch::Contains("neuron_op"));
  REQUIRE_THROWS_WITH(EnergyEstimate(Json{{"pj", Json{{"mac", -1.0}}}}),
                      Catch::Contains("'mac'") && Catch::Contains(">= 0"));
}

TEST_CASE("EnergyEstimate merges shards into the single process's value", "[metrics][estimates]") {
  using neurobench::metrics::EnergyEstimate;
  // Two runs of the spiking MLP, one of them taking the other's state: twice the counts over
  // twice the samples, the same energies per sample.
  const auto r = estimates_run("spiking_mlp.pt", estimates_spike_input(),
                               {MetricSpec("EnergyEstimate", Json{{"memory", "sram"}})});
  EnergyEstimate a(Json{{"memory", "sram"}});
  EnergyEstimate b(Json{{"memory", "sram"}});
  a.reset();
  b.reset();
  // A state as a shard writes it: the counts over two samples.
  const Json state = {{"synaptic", {{"macs", 0}, {"acs", 13}, {"dense", 0}, {"samples", 2}}},
                      {"neurons", {{"effective", 40}, {"dense", 40.0}, {"samples", 2}}},
                      {"membrane", {{"updates", 10}, {"samples", 2}}},
                      {"activation_elements", 10},
                      {"activation_nonzeros", 4},
                      {"samples", 2}};
  a.merge_state(state);
  a.merge_state(state);
  CHECK(a.compute().at("Total_J").get<double>() ==
        Approx(r.values.at("EnergyEstimate").at("Total_J").get<double>()));
  b.merge_state(a.export_state());
  CHECK(b.compute() == a.compute());
  REQUIRE_THROWS_WITH(b.merge_state(Json{{"synaptic", Json::object()}}),
                      Catch::Contains("EnergyEstimate") && Catch::Contains("'neurons'"));
}

// Residual CNN, per sample, float32: the input (1, 4, 4) = 16 elements; conv1 -> a (2, 4, 4) =
// 32; relu1 -> skip 32; conv2 -> c 32; relu2 -> y 32; y + skip -> z 32; flatten (a view of z);
// fc -> 3. Alive at each operator: conv1 16 + 32 = 48; relu1 32 + 32 = 64; conv2 skip + c =
// 64; relu2 skip + c + y = 96; add skip + y + z = 96; flatten z = 32; fc z + 3 = 35. The peak,
// 96 elements, is at relu2 and the add, where the residual connection keeps skip alive
// (without it: 64). 96 x 4 bytes = 384 bytes = 0.375 KB; int8: 96 bytes.
// Flash: conv1 18 + 2, conv2 36 + 2, fc 96 + 3 = 157 elements = 628 bytes (float32); int8:
// 150 weight bytes + 7 biases x 4 = 178 bytes.
TEST_CASE("MemoryEstimate of a CNN with a residual connection keeps the skip alive",
          "[metrics][estimates]") {
  torch::manual_seed(3);
  const torch::Tensor images = torch::randn({2, 1, 4, 4});
  auto r = estimates_run("residual_cnn.pt", images, {"MemoryEstimate"});
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_Activations_KB") == 384.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_State_KB") == 0.0);
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_KB") == 384.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "Flash_KB") == 628.0 / 1024);
  r = estimates_run("residual_cnn.pt", images,
                    {MetricSpec("MemoryEstimate", Json{{"precision", "int8"}})});
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_KB") == 96.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "Flash_KB") == 178.0 / 1024);
}

// Dense MLP: x 4 and fc1's output 3 (7) at fc1; 3 + 3 at the ReLU; 3 + 2 at fc2: the peak is
// 7 elements = 28 bytes per sample. Flash: 12 + 6 weights = 72 bytes.
// Spiking MLP: 4 + 3 at fc1; lif1 reads fc1's output and makes 3 spikes (6); fc2 3 + 2; lif2
// 2 + 2: 7 elements = 28 bytes, plus the membrane potentials 3 + 2 = 5 x 4 bytes = 20 bytes.
// Flash: 18 weights and the neurons' beta and threshold (4 scalars), not `mem`: 88 bytes.
TEST_CASE("MemoryEstimate adds the spiking layers' membrane potentials to the RAM",
          "[metrics][estimates]") {
  auto r = estimates_run("dense_mlp.pt", estimates_dense_input(), {"MemoryEstimate"});
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_KB") == 28.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "Flash_KB") == 72.0 / 1024);
  r = estimates_run("spiking_mlp.pt", estimates_spike_input(), {"MemoryEstimate"});
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_Activations_KB") == 28.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_State_KB") == 20.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "RAM_KB") == 48.0 / 1024);
  CHECK(estimates_key(r, "MemoryEstimate", "Flash_KB") == 88.0 / 1024);
}

TEST_CASE("MemoryEstimate refuses an unknown precision and merges the first shard's value",
          "[metrics][estimates]") {
  using neurobench::metrics::MemoryEstimate;
  REQUIRE_THROWS_AS(MemoryEstimate(Json{{"precision", "int4"}}), neurobench::UsageError);
  REQUIRE_THROWS_WITH(MemoryEstimate(Json{{"precision", "int4"}}),
                      Catch::Contains("'precision'") && Catch::Contains("int4"));
  MemoryEstimate a;
  a.reset();
  const Json value = {
      {"Flash_KB", 1.0}, {"RAM_KB", 2.0}, {"RAM_Activations_KB", 2.0}, {"RAM_State_KB", 0.0}};
  a.merge_state(Json{{"value", value}});
  CHECK(a.compute() == value);
  a.merge_state(Json{{"value", {{"Flash_KB", 9.0}}}});  // later shards do not replace it
  CHECK(a.compute() == value);
  REQUIRE_THROWS_WITH(a.merge_state(Json::array()), Catch::Contains("MemoryEstimate"));
}

TEST_CASE("the HTML report stacks EnergyEstimate's split, a dense and a spiking run side by side",
          "[metrics][estimates][report]") {
  const auto dense = neurobench::test::run_of("dense", R"({"EnergyEstimate": {"MACs_J": 2.99e-11,
      "ACs_J": 0, "Neuron_Ops_J": 0, "Total_J": 2.99e-11, "Total_mWh": 8.3e-12}})");
  const auto spiking = neurobench::test::run_of("spiking", R"({"EnergyEstimate": {"MACs_J": 0,
      "ACs_J": 5.85e-12, "Neuron_Ops_J": 1.8e-11, "Total_J": 2.385e-11, "Total_mWh": 6.6e-12}})");
  const std::string html = neurobench::render_html_report({dense, spiking});
  const std::string chart = neurobench::test::section(html, "chart-energy");
  // One part for the dense run (MACs), two for the spiking one (ACs, neuron operations); zeros
  // draw nothing. The totals are below 1 nJ, so the axis is in pJ.
  CHECK(neurobench::test::count(chart, "<rect class=\"bar\"") == 3);
  CHECK_THAT(chart, Catch::Contains("data-run=\"spiking\" data-part=\"neuron operations\""));
  CHECK_THAT(chart, Catch::Contains("pJ per sample (estimate)"));
  // Reports without the metric have no energy chart.
  const auto other = neurobench::test::run_of("other", R"({"Footprint": 1})");
  CHECK_THAT(neurobench::render_html_report({other}), !Catch::Contains("chart-energy"));
}
