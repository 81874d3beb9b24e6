// SPDX-License-Identifier: Apache-2.0
#include <neurobench/fscil.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "metrics/builtin_synaptic_operations.hpp"
#include "support.hpp"

namespace {

using neurobench::Batch;
using neurobench::FscilOptions;
using neurobench::TensorDataset;
using neurobench::TorchScriptModel;

// A scripted Linear (class `Linear`, so that it is a connection layer) of `in` to `out`.
torch::jit::Module fscil_linear(int64_t in, int64_t out, bool bias) {
  // Its own compilation unit: several classes called Linear, each with its own forward.
  torch::jit::Module m(c10::QualifiedName("Linear"),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.register_parameter("weight", torch::randn({out, in}), false);
  if (bias) {
    m.register_parameter("bias", torch::randn({out}), false);
    m.define("def forward(self, x):\n    return torch.linear(x, self.weight, self.bias)\n");
  } else {
    m.define("def forward(self, x):\n    return torch.linear(x, self.weight)\n");
  }
  return m;
}

// features(x) = relu(hidden(x)) of 4 inputs and 6 features; forward = output(features(x)) of
// 8 classes. Without `features_method`, the method is called `embed` instead.
torch::jit::Module fscil_net(uint64_t seed, bool features_method = true, bool readout_bias = true) {
  torch::manual_seed(seed);
  torch::jit::Module relu("ReLU");
  relu.define("def forward(self, x):\n    return torch.relu(x)\n");
  torch::jit::Module net("FscilNet");
  net.register_module("hidden", fscil_linear(4, 6, true));
  net.register_module("act", relu);
  net.register_module("output", fscil_linear(6, 8, readout_bias));
  const std::string name = features_method ? "features" : "embed";
  // C++-compiled methods call submodules by their forward (modules have no __call__ there).
  net.define("def " + name +
             "(self, x):\n    return self.act.forward(self.hidden.forward(x))\n"
             "def forward(self, x):\n    return self.output.forward(self." +
             name + "(x))\n");
  return net;
}

// A batch of `per_class` samples of each class in `classes`, shot-major as a support set.
Batch fscil_support(const std::vector<int64_t>& classes, int64_t per_class, uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<int64_t> targets;
  for (int64_t s = 0; s < per_class; ++s)
    targets.insert(targets.end(), classes.begin(), classes.end());
  Batch b;
  b.data = torch::randn({static_cast<int64_t>(targets.size()), 4});
  b.targets = torch::tensor(targets, torch::kLong);
  return b;
}

// NeuroBench's arithmetic for one class of a (batch, features) tensor, written out again.
std::pair<torch::Tensor, torch::Tensor> fscil_expected_row(const torch::Tensor& features,
                                                           const torch::Tensor& targets,
                                                           int64_t c) {
  const torch::Tensor rows = (targets == c).nonzero().squeeze(1);
  const torch::Tensor f = features.index_select(0, rows);
  torch::Tensor mean, bias;
  if (f.dim() == 2) {
    mean = torch::sum(f, at::IntArrayRef{0}) / rows.size(0);
    bias = -torch::matmul(mean, mean);
  } else {
    mean = torch::sum(f, at::IntArrayRef{0, 1}) / rows.size(0);
    bias = -torch::matmul(mean, mean) / f.size(1);
  }
  return {2 * mean, bias};
}

torch::Tensor fscil_param(const TorchScriptModel& model, const std::string& module,
                          const std::string& name) {
  return model.module().attr(module).toModule().attr(name).toTensor();
}

}  // namespace

TEST_CASE(
    "write_prototypes writes 2 * mean and -mean . mean of each class's features into the "
    "readout, in place",
    "[fscil]") {
  TorchScriptModel model(fscil_net(1));
  const torch::Tensor weight = fscil_param(model, "output", "weight");
  const torch::Tensor before = weight.clone();
  const Batch support = fscil_support({5, 2, 7}, 3, 2);
  const auto classes = neurobench::write_prototypes(model, support, FscilOptions{});
  CHECK(classes == std::vector<int64_t>{5, 2, 7});
  // The same tensor, changed where it lies: every clone of the module sees it.
  CHECK(fscil_param(model, "output", "weight").data_ptr() == weight.data_ptr());
  torch::jit::Module m = model.module();
  const torch::Tensor features = m.run_method("features", support.data).toTensor();
  for (int64_t c : classes) {
    const auto [w, b] = fscil_expected_row(features, support.targets, c);
    CHECK(weight[c].equal(w));
    CHECK(fscil_param(model, "output", "bias")[c].equal(b));
  }
  for (int64_t c : {0, 1, 3, 4, 6}) CHECK(weight[c].equal(before[c]));
}

TEST_CASE(
    "write_prototypes sums timestep features over the timesteps and divides the bias by "
    "them (NeuroBench's spiking variant)",
    "[fscil]") {
  torch::jit::Module net("SpikingNet");
  net.register_module("readout", fscil_linear(3, 4, true));
  net.define(
      "def features(self, x):\n    return x\n"
      "def forward(self, x):\n    return self.readout.forward(x).sum(1)\n");
  TorchScriptModel model(net);
  Batch support;
  support.data = (torch::rand({4, 5, 3}) > 0.5).to(torch::kFloat);  // (batch, timesteps, features)
  support.targets = torch::tensor({1, 3, 1, 3}, torch::kLong);
  FscilOptions options;
  options.readout = "readout";
  (void)neurobench::write_prototypes(model, support, options);
  for (int64_t c : {1, 3}) {
    const auto [w, b] = fscil_expected_row(support.data, support.targets, c);
    CHECK(fscil_param(model, "readout", "weight")[c].equal(w));
    CHECK(fscil_param(model, "readout", "bias")[c].equal(b));
  }
}

TEST_CASE("a model without the features method is an InputError naming the method",
          "[fscil][errors]") {
  TorchScriptModel model(fscil_net(1, /*features_method=*/false), {}, "net.pt");
  const torch::Tensor before = fscil_param(model, "output", "weight").clone();
  REQUIRE_THROWS_AS(neurobench::check_fscil_model(model, FscilOptions{}), neurobench::InputError);
  REQUIRE_THROWS_WITH(neurobench::check_fscil_model(model, FscilOptions{}),
                      Catch::Contains("net.pt: no TorchScript method 'features'"));
  REQUIRE_THROWS_WITH(neurobench::write_prototypes(model, fscil_support({1}, 2, 3), FscilOptions{}),
                      Catch::Contains("no TorchScript method 'features'"));
  CHECK(fscil_param(model, "output", "weight").equal(before));  // nothing written
  FscilOptions embed;
  embed.features = "embed";
  // The readout has 8 rows: 100 base classes (the default) cannot be, 8 can.
  REQUIRE_THROWS_AS(neurobench::check_fscil_model(model, embed), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::check_fscil_model(model, embed),
                      "fscil.base_classes: 100 base classes but readout 'output' of net.pt has "
                      "8 rows (weight [8, 6]), one per class");
  embed.base_classes = 8;
  CHECK_NOTHROW(neurobench::check_fscil_model(model, embed));
}

TEST_CASE("a readout that is missing, has no bias or another width is an InputError naming it",
          "[fscil][errors]") {
  TorchScriptModel model(fscil_net(1));
  FscilOptions missing;
  missing.readout = "head";
  REQUIRE_THROWS_AS(neurobench::check_fscil_model(model, missing), neurobench::InputError);
  REQUIRE_THROWS_WITH(
      neurobench::check_fscil_model(model, missing),
      Catch::Contains("no module 'head'") && Catch::Contains("hidden, act, output"));
  TorchScriptModel no_bias(fscil_net(1, true, /*readout_bias=*/false));
  REQUIRE_THROWS_WITH(neurobench::check_fscil_model(no_bias, FscilOptions{}),
                      Catch::Contains("readout 'output' has no bias"));
  FscilOptions hidden;
  hidden.readout = "hidden";  // takes 4 inputs, the features are 6 wide
  REQUIRE_THROWS_WITH(neurobench::write_prototypes(model, fscil_support({1}, 2, 3), hidden),
                      Catch::Contains("gives 6 features but readout 'hidden' takes 4"));
  REQUIRE_THROWS_WITH(neurobench::write_prototypes(model, fscil_support({9}, 2, 3), FscilOptions{}),
                      Catch::Contains("class 9 has no row in readout 'output' of 8 classes"));
}

TEST_CASE(
    "weights written between runs reach the cached instrumented module and every metric: "
    "no stale cache",
    "[fscil][hooks]") {
  const auto data = std::make_shared<TensorDataset>(torch::randn({10, 4}),
                                                    torch::randint(0, 8, {10}, torch::kLong));
  const auto run = [&](const std::shared_ptr<TorchScriptModel>& model) {
    std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
    post.push_back(std::make_unique<neurobench::processors::Argmax>());
    neurobench::Benchmark bench(
        model, neurobench::DataLoader(data), {}, std::move(post),
        neurobench::MetricSet::from_names(
            {"ConnectionSparsity", "ParameterCount"},
            {"SynapticOperations", "ActivationSparsity", "ClassificationAccuracy"}));
    neurobench::RunOptions options;
    options.quiet = true;
    return bench.run(options);
  };
  // Prototypes of features with zeros (ReLU): rows of the readout gain zero weights, which
  // change ConnectionSparsity and the effective synaptic operations.
  Batch support = fscil_support({0, 1, 2, 3, 4, 5, 6, 7}, 1, 4);
  auto model = std::make_shared<TorchScriptModel>(fscil_net(1));
  const auto first = run(model);  // instruments the module and caches the instrumented clone
  const torch::Tensor weight = fscil_param(*model, "output", "weight");
  const auto key_before = neurobench::metrics::synaptic::key_of(weight);
  (void)neurobench::write_prototypes(*model, support, FscilOptions{});
  // The version counter the weight caches of SynapticOperations key on moved.
  CHECK_FALSE(neurobench::metrics::synaptic::key_of(weight) == key_before);
  const auto after = run(model);

  auto fresh = std::make_shared<TorchScriptModel>(fscil_net(1));
  (void)neurobench::write_prototypes(*fresh, support, FscilOptions{});
  const auto expected = run(fresh);
  CHECK(after.values == expected.values);
  CHECK(after.values["ConnectionSparsity"] != first.values["ConnectionSparsity"]);
  CHECK(after.values["SynapticOperations"]["Effective_MACs"] !=
        first.values["SynapticOperations"]["Effective_MACs"]);
  CHECK(model->forward(data->data()).equal(fresh->forward(data->data())));
}

TEST_CASE(
    "run_fscil masks unseen classes, writes each session's prototypes and averages the "
    "sessions",
    "[fscil]") {
  auto model = std::make_shared<TorchScriptModel>(fscil_net(3));
  {
    // Unseen classes score highest without the mask: only the mask keeps them out.
    torch::NoGradGuard guard;
    fscil_param(*model, "output", "bias").slice(0, 4).fill_(1000.0);
  }
  torch::manual_seed(5);
  const auto base_test = std::make_shared<TensorDataset>(torch::randn({12, 4}),
                                                         torch::randint(0, 4, {12}, torch::kLong));
  const Batch train = fscil_support({0, 1, 2, 3}, 3, 6);
  const auto base_train = std::make_shared<TensorDataset>(train.data, train.targets);
  std::vector<neurobench::FscilSession> sessions;
  std::vector<torch::Tensor> query_data, query_targets;
  for (int64_t s = 0; s < 2; ++s) {
    const std::vector<int64_t> classes = {4 + 2 * s, 5 + 2 * s};
    const Batch support = fscil_support(classes, 2, 10 + s);
    const Batch query = fscil_support(classes, 3, 20 + s);
    query_data.push_back(query.data);
    query_targets.push_back(query.targets);
    sessions.push_back(
        {"s" + std::to_string(s + 1),
         std::make_shared<TensorDataset>(support.data, support.targets),
         std::make_shared<TensorDataset>(torch::cat(query_data), torch::cat(query_targets)),
         classes});
  }
  neurobench::BenchmarkConfig config;
  config.batch_size = 5;
  config.quiet = true;
  config.workload_metrics = {"ClassificationAccuracy"};
  FscilOptions options;
  options.base_classes = 4;
  std::vector<int64_t> progress;
  const neurobench::FscilResults r = neurobench::run_fscil(
      model, {base_test, base_train, sessions}, config, options,
      [&](const neurobench::FscilSessionResult& s) { progress.push_back(s.session); });
  CHECK(progress == std::vector<int64_t>{0, 1, 2});
  REQUIRE(r.sessions.size() == 3);
  CHECK(r.base_prototypes == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(r.sessions[1].classes == 6);
  CHECK(r.sessions[2].all.samples == 12 + 12);
  CHECK_FALSE(r.sessions[0].new_classes_only.has_value());
  REQUIRE(r.sessions[2].new_classes_only.has_value());
  CHECK(r.sessions[2].new_classes_only->samples == 12);

  // Session 0 by hand: a fresh model with the base prototypes, its argmax over classes 0-3.
  TorchScriptModel by_hand(fscil_net(3));
  (void)neurobench::write_prototypes(by_hand, train, options);
  const torch::Tensor logits = by_hand.forward(base_test->data()).slice(1, 0, 4);
  const double expected = logits.argmax(1).eq(base_test->targets()).sum().item<double>() / 12.0;
  CHECK(r.sessions[0].all.values["ClassificationAccuracy"].get<double>() ==
        Approx(expected).epsilon(1e-6));  // per-batch float32 accuracies, as NeuroBench
  // The readout's rows of session 2's classes are its support's prototypes.
  const Batch last = fscil_support({6, 7}, 2, 11);
  torch::jit::Module m = model->module();
  const torch::Tensor features = m.run_method("features", last.data).toTensor();
  CHECK(fscil_param(*model, "output", "weight")[7].equal(
      fscil_expected_row(features, last.targets, 7).first));
  double sum = 0.0;
  for (const auto& s : r.sessions) sum += s.all.values["ClassificationAccuracy"].get<double>();
  CHECK(r.means()["ClassificationAccuracy"].get<double>() == Approx(sum / 3).epsilon(1e-15));
  CHECK(r.mean_new_classes_accuracy().has_value());
  CHECK(r.ok());
  const neurobench::Json doc = neurobench::fscil_results_document(r);
  CHECK(doc["_fscil"]["sessions"].size() == 3);
  CHECK(doc.contains("FscilNewClassesAccuracy"));
  CHECK(doc["_metrics"]["FscilNewClassesAccuracy"]["unit"] == "fraction");
  CHECK(doc.contains("_metrics"));
}

TEST_CASE("run_fscil refuses post-processors and a config without ClassificationAccuracy",
          "[fscil][errors]") {
  auto model = std::make_shared<TorchScriptModel>(fscil_net(3));
  const auto test =
      std::make_shared<TensorDataset>(torch::randn({4, 4}), torch::zeros({4}, torch::kLong));
  const torch::Tensor before = fscil_param(*model, "output", "weight").clone();
  neurobench::BenchmarkConfig config;
  config.workload_metrics = {"ActivationSparsity"};
  FscilOptions options;
  options.base_classes = 4;
  REQUIRE_THROWS_WITH(neurobench::run_fscil(model, {test, test, {}}, config, options),
                      Catch::Contains("must include ClassificationAccuracy"));
  config.workload_metrics = {"ClassificationAccuracy"};
  config.post = {"Argmax"};
  REQUIRE_THROWS_AS(neurobench::run_fscil(model, {test, test, {}}, config, options),
                    neurobench::UsageError);
  CHECK(fscil_param(*model, "output", "weight").equal(before));  // refused before any prototype
}

TEST_CASE("an FSCIL config is refused by key: no fscil block, unknown keys, draws and seed",
          "[fscil][config][errors]") {
  using neurobench::FscilConfig;
  using neurobench::Json;
  const Json base = Json::parse(R"({
    "model": "m.pt",
    "dataset": {"kind": "mswc", "path": "data", "subset": "base", "procedure": "testing"},
    "workload": ["ClassificationAccuracy"],
    "fscil": {"seed": 3}
  })");
  CHECK_NOTHROW(FscilConfig::from_json(base).validate());
  Json j = base;
  j.erase("fscil");
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j, {}, "c.json"),
                      Catch::Contains("c.json: no 'fscil' object"));
  j = base;
  j["fscil"]["shots"] = 5;
  REQUIRE_THROWS_AS(FscilConfig::from_json(j), neurobench::UsageError);
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j), Catch::Contains("unknown key 'fscil.shots'"));
  j = base;
  j["fscil"]["draws"] = "d.json";
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j).validate(),
                      Catch::Contains("'fscil.draws' and 'fscil.seed' are both given"));
  j["fscil"].erase("seed");
  j["fscil"]["k_shot"] = 3;
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j), Catch::Contains("come from the draws file"));
  j = base;
  j["fscil"].erase("seed");
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j).validate(),
                      Catch::Contains("give 'fscil.draws' (a draws file) or 'fscil.seed'"));
  j = base;
  j["fscil"]["base_classes"] = 0;
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j), Catch::Contains("'fscil.base_classes': 0"));
  j = base;
  j["dataset"] = "wisdm:x.npz";
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j).validate(),
                      Catch::Contains("must be the MSWC release's base test set"));
  j = base;
  j["post"] = {"Argmax"};
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j).validate(),
                      Catch::Contains("'post' must be empty"));
  j = base;
  j["fscil"]["k_shot"] = 0;
  REQUIRE_THROWS_WITH(FscilConfig::from_json(j), Catch::Contains("'fscil.k_shot': 0"));
}

TEST_CASE(
    "neurobench fscil with a model without the features method exits 2 naming the "
    "method and writes nothing",
    "[fscil][cli][errors]") {
  neurobench::test::TempDir dir;
  fscil_net(1, /*features_method=*/false).save((dir / "net.pt").string());
  neurobench::test::write_bytes(dir / "fscil.json", R"({
    "model": "net.pt",
    "dataset": {"kind": "mswc", "path": "release", "subset": "base", "procedure": "testing"},
    "workload": ["ClassificationAccuracy"],
    "fscil": {"seed": 3, "write_draws": "draws.json"}
  })");
  const auto r = neurobench::test::run_cli("fscil " + neurobench::test::q(dir / "fscil.json") +
                                           " --json " + neurobench::test::q(dir / "out.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("no TorchScript method 'features'"));
  CHECK(neurobench::test::names_in(dir.path()) == std::vector<std::string>{"fscil.json", "net.pt"});
}

TEST_CASE("neurobench fscil --plugin loads the library before the config is checked",
          "[fscil][cli][extensions]") {
  neurobench::test::TempDir dir;
  fscil_net(1, /*features_method=*/false).save((dir / "net.pt").string());
  // TestDataSum comes from the test plugin library (tests/extensions/data_sum_metric.cpp).
  neurobench::test::write_bytes(dir / "fscil.json", R"({
    "model": "net.pt",
    "dataset": {"kind": "mswc", "path": "release", "subset": "base", "procedure": "testing"},
    "workload": ["ClassificationAccuracy", "TestDataSum"],
    "fscil": {"seed": 3}
  })");
  const std::string command = "fscil " + neurobench::test::q(dir / "fscil.json") + " --json " +
                              neurobench::test::q(dir / "out.json");
  auto r = neurobench::test::run_cli(command);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("TestDataSum"));
  // With the library, the metric is known: the run gets as far as the model's missing method.
  r = neurobench::test::run_cli(command + " --plugin " +
                                neurobench::test::q(NEUROBENCH_TEST_EXTENSIONS));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, !Catch::Contains("TestDataSum") &&
                        Catch::Contains("no TorchScript method 'features'"));
  CHECK(neurobench::test::names_in(dir.path()) == std::vector<std::string>{"fscil.json", "net.pt"});
}
