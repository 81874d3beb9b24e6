// SPDX-License-Identifier: Apache-2.0
// The per-layer profile (RunOptions::profile): its layers, shapes, operations and sparsity
// against the metrics of the same run, its structure, and its outputs (JSON, CSV, the table,
// the HTML report). No timing claim: the times are only checked to add up.
#include <neurobench/benchmark.hpp>

#include <numeric>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/config.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>
#include <neurobench/reporters/profile.hpp>
#include <neurobench/reporters/results.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "support.hpp"

using neurobench::Benchmark;
using neurobench::DataLoader;
using neurobench::Json;
using neurobench::MetricSet;
using neurobench::Results;
using neurobench::RunOptions;
using neurobench::TensorDataset;
using neurobench::TorchScriptModel;
using neurobench::TorchScriptOptions;
using neurobench::test::fixture;
namespace keys = neurobench::metrics::keys;

namespace {

struct ProfiledRun {
  std::string model;  // under tests/fixtures
  bool stepwise = false;
  torch::Tensor data;
  torch::Tensor targets;
  std::vector<std::string> workload = {"SynapticOperations", "ActivationSparsityByLayer"};
  std::vector<std::string> activation_types;  // empty: the defaults
  std::vector<std::string> post;
  int64_t batch_size = 4;
};

Results run_profiled(const ProfiledRun& s, RunOptions ro = {}) {
  TorchScriptOptions o;
  o.stepwise = s.stepwise;
  auto model = std::make_shared<TorchScriptModel>(fixture(s.model), o);
  auto data = std::make_shared<TensorDataset>(s.data, s.targets);
  neurobench::LoaderOptions lo;
  lo.batch_size = s.batch_size;
  std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
  for (const auto& name : s.post) post.push_back(neurobench::post_processors().create(name));
  auto layers = Benchmark::default_layers();
  if (!s.activation_types.empty()) layers.activation_types = s.activation_types;
  Benchmark bench(model, DataLoader(data, lo), {}, std::move(post),
                  MetricSet::from_names({}, s.workload), layers);
  ro.quiet = true;
  ro.profile.enabled = true;
  ro.profile.warmup = 1;
  ro.profile.runs = 3;
  Results r = bench.run(ro);
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  REQUIRE(r.profile.is_object());
  return r;
}

ProfiledRun profile_conv(bool spikes) {
  torch::manual_seed(3);
  ProfiledRun s;
  s.model = "models/conv_scripted.pt";  // conv 1->2 (3x3, stride 2, pad 1), ReLU, Linear 8->3
  s.data =
      spikes ? (torch::rand({10, 1, 4, 4}) > 0.5).to(torch::kFloat) : torch::randn({10, 1, 4, 4});
  s.targets = torch::randint(0, 3, {10}, torch::kLong);
  return s;
}

std::vector<std::string> profile_names(const Json& profile) {
  std::vector<std::string> names;
  for (const auto& row : profile["layers"]) names.push_back(row["layer"].get<std::string>());
  return names;
}

double profile_sum(const Json& profile, const char* key) {
  double sum = 0;
  for (const auto& row : profile["layers"]) {
    if (row[key].is_number()) sum += row[key].get<double>();
  }
  return sum;
}

}  // namespace

TEST_CASE("the profile lists every module in execution order with its output shape", "[profile]") {
  ProfiledRun s;
  s.model = "models/mlp_scripted.pt";  // fc1, relu, block1.seq.{0,1}, block2.seq.{0,1}, head
  s.data = torch::randn({9, 4});
  s.targets = torch::randn({9, 3});
  const Results r = run_profiled(s);
  const Json& p = r.profile;
  // The containers (Block, Sequential) too, each before the modules it calls: kind "other".
  CHECK(profile_names(p) == std::vector<std::string>{"fc1", "relu", "block1", "block1.seq",
                                                     "block1.seq.0", "block1.seq.1", "block2",
                                                     "block2.seq", "block2.seq.0", "block2.seq.1",
                                                     "head"});
  const std::vector<std::string> types = {"Linear", "ReLU", "Block", "Sequential",
                                          "Linear", "ReLU", "Block", "Sequential",
                                          "Linear", "ReLU", "Linear"};
  for (std::size_t i = 0; i < types.size(); ++i) {
    const Json& row = p["layers"][i];
    INFO(row.dump());
    CHECK(row["type"] == types[i]);
    const std::string kind = types[i] == "Linear" ? "connection"
                             : types[i] == "ReLU" ? "activation"
                                                  : "other";
    CHECK(row["kind"] == kind);
    // The timed runs use the loader's batch size (4): full batches only.
    CHECK(row["output_shape"] == Json::array({4, i + 1 == types.size() ? 3 : 6}));
    CHECK(row["calls_per_run"].get<double>() == 1.0);
    CHECK(row["time_per_call_s"].get<double>() >= 0);
    // Other modules count nothing: no operations, no sparsity.
    CHECK(row["dense_ops"].is_null() == (kind != "connection"));
    CHECK(row["activation_sparsity"].is_null() == (kind != "activation"));
  }
  CHECK(p["batch_size"] == 4);
  CHECK(p["runs"] == 3);
  CHECK(p["samples"] == 9);
}

TEST_CASE(
    "the profile's operations add up to SynapticOperations of the same run and its "
    "sparsity is ActivationSparsityByLayer's",
    "[profile]") {
  const bool spikes = GENERATE(false, true);
  const Results r = run_profiled(profile_conv(spikes));
  const Json& p = r.profile;
  REQUIRE(profile_names(p) == std::vector<std::string>{"conv", "relu", "fc"});
  // Dense by hand: conv's 2x2 outputs per channel see 4, 6, 6 and 9 of the 4x4 input's pixels
  // through their 3x3 windows (padding is not counted): 25 x 2 channels = 50; fc 8 x 3 = 24.
  CHECK(p["layers"][0]["dense_ops"].get<double>() == 50.0);
  CHECK(p["layers"][2]["dense_ops"].get<double>() == 24.0);
  const Json& ops = r.values["SynapticOperations"];
  CHECK(profile_sum(p, "dense_ops") == Approx(ops[keys::kDense].get<double>()).epsilon(1e-12));
  CHECK(profile_sum(p, "effective_macs") ==
        Approx(ops[keys::kEffectiveMACs].get<double>()).epsilon(1e-12));
  CHECK(profile_sum(p, "effective_acs") ==
        Approx(ops[keys::kEffectiveACs].get<double>()).epsilon(1e-12));
  // Spikes into the convolution: its operations are accumulates.
  CHECK((p["layers"][0]["effective_acs"].get<double>() > 0) == spikes);
  CHECK(p["layers"][1]["activation_sparsity"] == r.values["ActivationSparsityByLayer"]["relu"]);
  CHECK(p["layers"][0]["activation_sparsity"].is_null());
  CHECK(p["layers"][1]["dense_ops"].is_null());
}

TEST_CASE("the profile of a step-wise spiking network counts each timestep's call", "[profile]") {
  torch::manual_seed(11);
  ProfiledRun s;
  s.model = "models/snn_noreset.pt";  // fc1 3->5, lif1 (Leaky), fc2 5->2, lif2
  s.stepwise = true;
  s.data = torch::rand({6, 5, 3}) * 3;  // 5 timesteps
  s.targets = torch::randint(0, 2, {6}, torch::kLong);
  s.activation_types = {"Leaky"};
  s.post = {"ChooseMaxCount"};
  s.batch_size = 3;
  const Results r = run_profiled(s);
  const Json& p = r.profile;
  const Json& ops = r.values["SynapticOperations"];
  CHECK(profile_sum(p, "effective_acs") ==
        Approx(ops[keys::kEffectiveACs].get<double>()).epsilon(1e-12));
  CHECK(profile_sum(p, "dense_ops") == Approx(ops[keys::kDense].get<double>()).epsilon(1e-12));
  for (const auto& row : p["layers"]) {
    INFO(row.dump());
    CHECK(row["calls_per_run"].get<double>() == 5.0);
    if (row["kind"] == "activation") {
      CHECK(row["activation_sparsity"] ==
            r.values["ActivationSparsityByLayer"][row["layer"].get<std::string>()]);
      CHECK(row["output_shape"][0] == 3);
    }
  }
}

TEST_CASE("the profile of an inlined model names its layers by operator", "[profile]") {
  ProfiledRun s;
  s.model = "models/mlp_frozen.pt";
  s.data = torch::randn({8, 4});
  s.targets = torch::randn({8, 3});
  const Results r = run_profiled(s);
  const Json& p = r.profile;
  REQUIRE(p["layers"].size() == 7);
  CHECK(p["layers"][0]["type"] == "aten::linear");
  CHECK(p["layers"][1]["type"] == "aten::relu");
  CHECK(profile_sum(p, "dense_ops") ==
        Approx(r.values["SynapticOperations"][keys::kDense].get<double>()).epsilon(1e-12));
  for (const auto& row : p["layers"]) CHECK(row["calls_per_run"].get<double>() == 1.0);
}

TEST_CASE("the profile's times add up to the profiled forward call", "[profile]") {
  const Results r = run_profiled(profile_conv(false));
  const Json& p = r.profile;
  const double forward = p["profiled_forward_s"].get<double>();
  CHECK(forward > 0);
  CHECK(p["plain_forward_s"].get<double>() > 0);
  CHECK(p["layers_s"].get<double>() + p["other_s"].get<double>() == Approx(forward));
  CHECK(profile_sum(p, "time_per_run_s") == Approx(p["layers_s"].get<double>()));
  CHECK(profile_sum(p, "share") == Approx(p["layers_s"].get<double>() / forward));
  CHECK(p["overhead"].get<double>() == Approx(forward / p["plain_forward_s"].get<double>() - 1));
  for (const auto& row : p["layers"]) {
    CHECK(row["time_per_call_s"].get<double>() ==
          Approx(row["time_per_run_s"].get<double>() / row["calls_per_run"].get<double>()));
  }
}

TEST_CASE("the profile leaves the timing pass and a run without it as they were", "[profile]") {
  ProfiledRun s = profile_conv(false);
  s.workload = {"Latency"};  // the workload pass is skipped; the profile still counts
  RunOptions ro;
  ro.timing.warmup = 1;
  ro.timing.runs = 4;
  const Results r = run_profiled(s, ro);
  CHECK(r.run["timing"]["runs_done"] == 4);
  CHECK(r.values["Latency"].is_object());
  CHECK(r.profile["layers"][0]["dense_ops"].get<double>() == 50.0);
  CHECK(r.profile["samples"] == 10);

  // Without the option: no profile, none in the results document.
  auto model = std::make_shared<TorchScriptModel>(fixture(s.model));
  Benchmark plain(model, DataLoader(std::make_shared<TensorDataset>(s.data, s.targets)), {}, {},
                  MetricSet::from_names({}, {"SynapticOperations"}));
  RunOptions quiet;
  quiet.quiet = true;
  const Results without = plain.run(quiet);
  CHECK(without.profile.is_null());
  CHECK_FALSE(neurobench::results_document(without)["_run"].contains("profile"));
}

TEST_CASE("profile options out of range are a UsageError naming them", "[profile]") {
  neurobench::ProfileOptions o;
  o.runs = 0;
  REQUIRE_THROWS_AS(o.validate(), neurobench::UsageError);
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("'runs'"));
  o.runs = 1;
  o.warmup = -1;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("'warmup'"));
  neurobench::BenchmarkConfig c;
  c.model = "m.pt";
  c.data = "d.npz";
  c.profile_csv = "layers.csv";
  REQUIRE_THROWS_AS(c.validate(), neurobench::UsageError);
  REQUIRE_THROWS_WITH(c.validate(), Catch::Contains("'profile_csv' (--profile-csv)"));
  c.profile = true;
  CHECK_NOTHROW(c.validate());
  CHECK(c.run_options().profile.enabled);
}

TEST_CASE("the profile is written in the results, as CSV, in the table and in the report",
          "[profile]") {
  const Results r = run_profiled(profile_conv(false));
  const Json doc = neurobench::results_document(r);
  REQUIRE(doc["_run"]["profile"]["layers"].size() == 3);

  const std::string csv = neurobench::render_profile_csv(r);
  CHECK(csv.rfind(
            "order,layer,kind,type,output_shape,calls_per_run,time_per_call_s,time_per_run_s,share,"
            "dense_ops,effective_macs,effective_acs,activation_sparsity\n0,conv,connection,Conv2d,"
            "4x2x2x2,1.0,",
            0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);
  CHECK_THAT(csv, Catch::Contains("\n1,relu,activation,ReLU,4x2x2x2,1.0,"));
  CHECK(neurobench::render_csv(r).find("_run.profile") == std::string::npos);  // its own file

  const std::string table = neurobench::render_table(r);
  CHECK_THAT(table, Catch::Contains("per-layer profile"));
  CHECK_THAT(table, Catch::Contains("with layer clocks"));
  CHECK_THAT(table, Catch::Contains("\n(rest of forward)  "));  // other_s, the last row

  const neurobench::RunResults read =
      neurobench::parse_run_results(nlohmann::ordered_json::parse(doc.dump()), "cnn", "cnn.json");
  const std::string html = neurobench::render_html_report({read});
  CHECK_THAT(html, Catch::Contains("<section id=\"profile\">"));
  CHECK_THAT(html, Catch::Contains("<tr data-layer=\"conv\""));
  CHECK_THAT(html, Catch::Contains("id=\"svg-profile-0\""));
  CHECK_THAT(html, Catch::Contains("<tr data-layer=\"(rest of forward)\""));
  CHECK_THAT(neurobench::render_markdown_report({read}),
             Catch::Contains("**Per-layer profile: cnn**") &&
                 Catch::Contains("\n| conv | connection | Conv2d | 4x2x2x2 | 1 | ") &&
                 Catch::Contains("\n| (rest of forward) | rest |"));

  // A results file without a profile (every file written before it) has no such section.
  Json old = doc;
  old["_run"].erase("profile");
  const std::string plain = neurobench::render_html_report(
      {neurobench::parse_run_results(nlohmann::ordered_json::parse(old.dump()), "old", "o")});
  CHECK(plain.find("id=\"profile\"") == std::string::npos);
  CHECK(neurobench::render_profile_table(nullptr).empty());
  CHECK_THROWS_AS(neurobench::render_profile_table(Json::object()), neurobench::InputError);
}

TEST_CASE("run --profile prints the profile and writes it as JSON and CSV", "[profile][cli]") {
  using neurobench::test::q;
  const neurobench::test::TempDir dir;
  const std::string args = "run --model " + q(fixture("core/classifier.pt")) + " --data " +
                           q(fixture("core/classifier.npz")) +
                           " --batch-size 4 --quiet --metrics Latency --runs 2 --warmup 1";
  const auto r = neurobench::test::run_cli(args + " --profile --profile-runs 2 --json " +
                                           q(dir / "r.json") + " --profile-csv " +
                                           q(dir / "layers.csv"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("per-layer profile") && Catch::Contains("with layer clocks"));
  const auto doc = nlohmann::ordered_json::parse(neurobench::test::read_file(dir / "r.json"));
  const auto& profile = doc["_run"]["profile"];
  REQUIRE(profile["layers"].is_array());
  CHECK(profile["runs"] == 2);
  const std::string csv = neurobench::test::read_file(dir / "layers.csv");
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) ==
        profile["layers"].size() + 1);

  // The CSV needs the profile: refused before the run, nothing written.
  const auto refused = neurobench::test::run_cli(args + " --profile-csv " + q(dir / "x.csv"));
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("--profile"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.csv"));
}
