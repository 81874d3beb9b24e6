// SPDX-License-Identifier: Apache-2.0
#include <neurobench/distributed.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <thread>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>
#include <neurobench/model/model.hpp>

#include "runtime/run_state.hpp"
#include "distributed/launcher_environment.hpp"
#include "support.hpp"

using neurobench::DistributedMode;
using neurobench::rank_from_environment;

using neurobench::test::free_port;
using neurobench::test::rank_info;
using neurobench::test::LauncherEnvironment;

namespace {

using Vars = std::map<std::string, std::string>;

// Mean of the batch's targets as a plain metric: per-batch values that a merge must weight.
class TargetMean final : public neurobench::WorkloadMetric {
 public:
  neurobench::Json operator()(const neurobench::WorkloadInput& in) override {
    return in.batch.targets.to(torch::kDouble).mean().item<double>() / 3.0;
  }
};

// An accumulated metric that does not export its state.
class Private final : public neurobench::AccumulatedMetric {
 public:
  void reset() override { n_ = 0; }
  void update(const neurobench::WorkloadInput& in) override { n_ += in.batch.size(); }
  [[nodiscard]] neurobench::Json compute() const override { return n_; }

 private:
  int64_t n_ = 0;
};

neurobench::Results run_benchmark(std::shared_ptr<neurobench::ProcessGroup> group) {
  auto model = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("core/classifier.pt"));
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
  neurobench::LoaderOptions lo;
  lo.batch_size = 3;
  neurobench::MetricSet metrics = neurobench::MetricSet::from_names(
      {"Footprint"}, {"ClassificationAccuracy", "ActivationSparsity", "ActivationSparsityByLayer",
                      "SynapticOperations", "EnergyEstimate", "DenseMACs", "Throughput"});
  metrics.workload_metrics.push_back(std::make_unique<TargetMean>());
  metrics.workload_metrics.push_back(std::make_unique<Private>());
  neurobench::RunOptions o;
  o.quiet = true;
  o.timing.runs = 2;
  o.timing.warmup = 0;
  o.group = std::move(group);
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {}, std::move(metrics));
  return bench.run(o);
}

}  // namespace

TEST_CASE("rank_from_environment reads torchrun's variables", "[distributed]") {
  LauncherEnvironment env({{"RANK", "1"},
                   {"WORLD_SIZE", "4"},
                   {"LOCAL_RANK", "1"},
                   {"LOCAL_WORLD_SIZE", "2"},
                   {"MASTER_ADDR", "node0"},
                   {"MASTER_PORT", "29500"},
                   {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                   {"TORCHELASTIC_RESTART_COUNT", "2"}});
  const auto info = rank_from_environment(DistributedMode::Auto);
  REQUIRE(info != nullptr);
  CHECK(info->rank == 1);
  CHECK(info->world_size == 4);
  CHECK(info->local_rank == 1);
  CHECK(info->local_world_size == 2);
  CHECK(info->master_addr == "node0");
  CHECK(info->master_port == 29500);
  CHECK(info->launcher == "torchrun");
  CHECK(info->launcher_holds_store);
  CHECK(info->attempt == "2");
  CHECK(rank_from_environment(DistributedMode::Off) == nullptr);
}

TEST_CASE("rank_from_environment reads Open MPI's and Slurm's variables", "[distributed]") {
  {
    LauncherEnvironment env({{"OMPI_COMM_WORLD_RANK", "3"},
                     {"OMPI_COMM_WORLD_SIZE", "8"},
                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                     {"MASTER_ADDR", "10.0.0.1"},
                     {"MASTER_PORT", "1234"}});
    const auto info = rank_from_environment(DistributedMode::Auto);
    REQUIRE(info != nullptr);
    CHECK(info->launcher == "openmpi");
    CHECK(info->rank == 3);
    CHECK(info->world_size == 8);
    CHECK(info->local_world_size == 2);
    CHECK_FALSE(info->launcher_holds_store);
  }
  {
    LauncherEnvironment env({{"SLURM_PROCID", "5"},
                     {"SLURM_STEP_NUM_TASKS", "6"},
                     {"SLURM_LOCALID", "1"},
                     {"MASTER_ADDR", "n1"},
                     {"MASTER_PORT", "29400"}});
    const auto info = rank_from_environment(DistributedMode::Auto);
    REQUIRE(info != nullptr);
    CHECK(info->launcher == "slurm");
    CHECK(info->rank == 5);
    CHECK(info->world_size == 6);
    CHECK(info->local_rank == 1);
  }
}

TEST_CASE("rank_from_environment: a plain run, or a clear error naming the variable",
          "[distributed]") {
  {
    LauncherEnvironment env(Vars{});
    CHECK(rank_from_environment(DistributedMode::Auto) == nullptr);
    REQUIRE_THROWS_WITH(rank_from_environment(DistributedMode::On),
                        Catch::Contains("WORLD_SIZE, OMPI_COMM_WORLD_SIZE or "
                                        "SLURM_STEP_NUM_TASKS"));
  }
  {
    LauncherEnvironment env(Vars{{"WORLD_SIZE", "1"}});
    CHECK(rank_from_environment(DistributedMode::Auto) == nullptr);
  }
  {
    LauncherEnvironment env(Vars{{"RANK", "0"}});
    REQUIRE_THROWS_WITH(rank_from_environment(DistributedMode::Auto),
                        Catch::Contains("RANK is set but WORLD_SIZE is not"));
  }
  const std::map<std::string, std::string> good{
      {"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"}};
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> bad{
      {{{"RANK", "x"}}, "RANK='x'"},
      {{{"RANK", "2"}}, "RANK=2 is not below WORLD_SIZE=2"},
      {{{"RANK", "-1"}}, "RANK='-1'"},
      {{{"WORLD_SIZE", "0"}}, "WORLD_SIZE='0'"},
      {{{"MASTER_PORT", "70000"}}, "MASTER_PORT='70000'"},
      {{{"MASTER_ADDR", ""}}, "MASTER_ADDR is not set"}};
  for (const auto& [changes, message] : bad) {
    auto values = good;
    for (const auto& [k, v] : changes) values[k] = v;
    LauncherEnvironment env(values);
    REQUIRE_THROWS_AS(rank_from_environment(DistributedMode::Auto), neurobench::UsageError);
    REQUIRE_THROWS_WITH(rank_from_environment(DistributedMode::Auto), Catch::Contains(message));
  }
  auto no_port = good;
  no_port.erase("MASTER_PORT");
  LauncherEnvironment env(no_port);
  REQUIRE_THROWS_WITH(rank_from_environment(DistributedMode::Auto),
                      Catch::Contains("MASTER_PORT is not set"));
  REQUIRE_THROWS_WITH(neurobench::distributed_mode_from_string("yes"),
                      Catch::Contains("expected auto, on or off"));
}

TEST_CASE("shard_of cuts batches into contiguous shards of nearly equal size", "[distributed]") {
  using neurobench::detail::shard_of;
  for (std::size_t count : {0U, 1U, 3U, 7U, 100U}) {
    for (int shards : {1, 2, 3, 4, 7}) {
      std::size_t next = 0;
      for (int r = 0; r < shards; ++r) {
        const auto range = shard_of(count, r, shards);
        REQUIRE(range.first == next);
        REQUIRE(range.size() <= count / shards + 1);
        REQUIRE(range.size() + 1 >= count / shards + (count % shards != 0 ? 1 : 0));
        next = range.end;
      }
      REQUIRE(next == count);
    }
  }
}

TEST_CASE("tensor_state brings tensors back bit for bit", "[distributed]") {
  for (const auto& t :
       {torch::randn({3, 2}), torch::randn({4}, torch::kDouble).select(0, 1),
        torch::arange(6, torch::kLong).reshape({2, 3}).t(), torch::zeros({0, 2}),
        torch::tensor({std::nanf(""), 1.0f, -INFINITY}), torch::ones({2}, torch::kBool)}) {
    const neurobench::Json state = neurobench::tensor_state(t);
    // through CBOR, as the ranks send it
    const torch::Tensor back = neurobench::tensor_from_state(
        neurobench::Json::from_cbor(neurobench::Json::to_cbor(state)), "test");
    REQUIRE(back.scalar_type() == t.scalar_type());
    REQUIRE(back.sizes() == t.sizes());
    REQUIRE(back.equal(t) == t.equal(t));  // NaN != NaN: compare the bytes instead
    if (t.numel() > 0) {
      REQUIRE(std::memcmp(back.data_ptr(), t.contiguous().data_ptr(),
                          static_cast<std::size_t>(t.numel()) * t.element_size()) == 0);
    }
  }
  REQUIRE_THROWS_AS(neurobench::tensor_from_state(neurobench::Json{{"dtype", "Float"}}, "R2"),
                    neurobench::MetricError);
  neurobench::Json short_bytes = neurobench::tensor_state(torch::ones({3}));
  short_bytes["shape"] = {4};
  REQUIRE_THROWS_WITH(neurobench::tensor_from_state(short_bytes, "R2"),
                      Catch::Contains("R2") && Catch::Contains("4 elements in 12 bytes"));
}

TEST_CASE("a benchmark sharded over two processes' worth of threads equals one run",
          "[distributed]") {
  const neurobench::Results one = run_benchmark(nullptr);
  const int port = free_port();
  auto rank = [&](int r) {
    auto group = std::make_shared<neurobench::ProcessGroup>(rank_info(r, 2, port));
    return run_benchmark(group);
  };
  auto second = std::async(std::launch::async, rank, 1);
  const neurobench::Results zero = rank(0);
  const neurobench::Results first = second.get();
  for (const auto* sharded : {&zero, &first}) {
    for (const auto& [name, value] : one.values.items()) {
      if (name == "Throughput" || name == "Private") continue;
      INFO(name);
      REQUIRE(sharded->values[name] == value);  // bit for bit
    }
    REQUIRE(sharded->samples == one.samples);
    REQUIRE(sharded->batches == one.batches);
    const auto& d = sharded->run["distributed"];
    REQUIRE(d["world_size"] == 2);
    REQUIRE(d["ranks"].size() == 2);
    REQUIRE(d["ranks"][1]["batches"] == neurobench::Json::array({2, 4}));
    // Throughput: the ranks' rates added; each rank's own in the metadata
    const double sum = d["ranks"][0]["timing"]["Throughput"]["samples_per_s"].get<double>() +
                       d["ranks"][1]["timing"]["Throughput"]["samples_per_s"].get<double>();
    REQUIRE(sharded->values["Throughput"]["samples_per_s"].get<double>() == Approx(sum));
    // An accumulated metric that keeps its state to itself fails, saying why; the others run.
    REQUIRE(sharded->values["Private"].is_null());
    REQUIRE(sharded->failures.size() == 1);
    REQUIRE_THAT(sharded->failures[0].message, Catch::Contains("cannot run sharded"));
  }
  REQUIRE(one.values["Private"] == 10);
}

TEST_CASE("a sharded run refuses the per-layer profile, naming the option", "[distributed]") {
  const int port = free_port();
  auto rank = [&](int r) -> std::string {
    const auto group = std::make_shared<neurobench::ProcessGroup>(rank_info(r, 2, port));
    auto model = std::make_shared<neurobench::TorchScriptModel>(
        neurobench::test::fixture("core/classifier.pt"));
    auto data = std::make_shared<neurobench::TensorDataset>(
        neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
    neurobench::Benchmark bench(model, neurobench::DataLoader(data), {}, {},
                                neurobench::MetricSet::from_names({}, {"SynapticOperations"}));
    neurobench::RunOptions o;
    o.quiet = true;
    o.profile.enabled = true;
    o.group = group;
    try {
      (void)bench.run(o);
    } catch (const neurobench::UsageError& e) {
      return e.what();
    }
    return "no error";
  };
  auto second = std::async(std::launch::async, rank, 1);
  const std::string zero = rank(0);
  const std::string first = second.get();
  for (const auto& message : {zero, first}) {
    CHECK_THAT(message, Catch::Contains("(--profile)") && Catch::Contains("sharded run"));
  }
}

TEST_CASE("a rank that does not join stops with an error naming it", "[distributed]") {
  neurobench::DistributedOptions o;
  o.timeout = std::chrono::milliseconds(1500);
  REQUIRE_THROWS_WITH(
      neurobench::ProcessGroup(rank_info(0, 2, free_port()), o),
      Catch::Contains("1 of 2 processes joined") && Catch::Contains("rank 1 did not"));
}

TEST_CASE(
    "merge_state adds a shard's terms in order and refuses a malformed state, naming the "
    "metric",
    "[distributed]") {
  using neurobench::Json;
  TargetMean plain;
  plain.begin_run();
  plain.merge_state(Json{{"terms", {{0.1, 0.3}, {0.2, 0.7}}}});
  plain.merge_state(Json{{"terms", Json::array()}});  // a rank without batches
  REQUIRE(plain.run_value().get<double>() == (0.0 + 0.1 * 0.3) + 0.2 * 0.7);
  REQUIRE(plain.export_state()["terms"].size() == 2);
  REQUIRE_THROWS_WITH(plain.merge_state(Json::object()),
                      Catch::Contains("a shard's state has no 'terms' array"));
  REQUIRE_THROWS_WITH(plain.merge_state(Json{{"terms", {{1.0, 0.5}, {1.0}}}}),
                      Catch::Contains("a shard's state holds a malformed term"));
  // a state refused leaves the metric as it was
  REQUIRE(plain.run_value().get<double>() == (0.0 + 0.1 * 0.3) + 0.2 * 0.7);
  REQUIRE(plain.export_state()["terms"].size() == 2);

  Private own;
  REQUIRE_FALSE(own.mergeable());
  REQUIRE_THROWS_WITH(own.export_state(),
                      Catch::Contains("keeps state across batches and does not export it"));
  REQUIRE_THROWS_AS(own.merge_state(Json::object()), neurobench::MetricError);

  neurobench::metrics::DenseMACs macs;
  macs.reset();
  REQUIRE_THROWS_WITH(macs.merge_state(Json{{"macs", 10}}),
                      Catch::Contains("DenseMACs") && Catch::Contains("no integer 'samples'"));
  macs.merge_state(Json{{"macs", 10}, {"samples", 2}});
  REQUIRE(macs.compute()["MACs"].get<double>() == 5.0);
  neurobench::metrics::NeuronOperations neurons;
  neurons.reset();
  // The effective count is a whole number of operations, counted as an integer.
  REQUIRE_THROWS_WITH(
      neurons.merge_state(Json{{"effective", "x"}}),
      Catch::Contains("NeuronOperations") && Catch::Contains("no integer 'effective'"));
  REQUIRE_THROWS_WITH(neurons.merge_state(Json{{"effective", 4}, {"dense", "x"}}),
                      Catch::Contains("NeuronOperations") && Catch::Contains("no number 'dense'"));
  neurobench::metrics::R2 r2;
  r2.reset();
  REQUIRE_THROWS_WITH(r2.merge_state(Json{{"preds", Json::array({1})}, {"targets", Json::array()}}),
                      Catch::Contains("R2: a shard's state needs as many 'preds' as 'targets'"));
  neurobench::metrics::ActivationSparsityByLayer layers;
  layers.reset();
  REQUIRE_THROWS_WITH(
      layers.merge_state(Json{{"layers", {{"relu", 4, 1}, {"relu", 1}}}}),
      Catch::Contains("ActivationSparsityByLayer") && Catch::Contains("malformed layer"));
  REQUIRE(layers.compute().empty());  // the good layer before the bad one was not kept
  const Json good = neurobench::tensor_state(torch::ones({2, 2}));
  REQUIRE_THROWS_AS(
      r2.merge_state(Json{{"preds", {good, Json::object()}}, {"targets", {good, good}}}),
      neurobench::MetricError);
  REQUIRE(r2.compute() == 0.0);  // no batch kept
}

TEST_CASE("in a sharded run --device cuda is each rank's own GPU, and cuda:N is GPU N",
          "[distributed][device]") {
  neurobench::RankInfo rank;
  rank.rank = 5;
  rank.world_size = 8;
  rank.local_rank = 1;
  const auto cuda = c10::Device(c10::DeviceType::CUDA);
  CHECK(neurobench::rank_device(cuda, rank) == c10::Device(c10::DeviceType::CUDA, 1));
  CHECK(neurobench::rank_device(c10::Device(c10::DeviceType::CUDA, 3), rank) ==
        c10::Device(c10::DeviceType::CUDA, 3));
  CHECK(neurobench::rank_device(c10::kCPU, rank) == c10::Device(c10::kCPU));
  CHECK(neurobench::rank_device(c10::Device(c10::DeviceType::Lazy), rank).type() ==
        c10::DeviceType::Lazy);
}
