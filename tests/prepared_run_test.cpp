// SPDX-License-Identifier: Apache-2.0
// A benchmark assembled from a config by the library (prepared_run.hpp): the same results and
// `_run` as `neurobench run`, errors that name what is at fault, parts made in memory, and the
// examples of docs/library.md.
#include <neurobench/prepared_run.hpp>

#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/reporters/results.hpp>

#include "datasets/speech_commands_folder.hpp"
#include "support.hpp"

using neurobench::BenchmarkConfig;
using neurobench::PreparedRun;
using neurobench::RunParts;
using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::TempDir;
using OrderedJson = nlohmann::ordered_json;

namespace {

// docs/library.md begin
// What `neurobench run CONFIG --json FILE` writes, from C++: the same results and `_run`.
neurobench::Results run_config(const std::filesystem::path& file) {
  const neurobench::BenchmarkConfig config = neurobench::BenchmarkConfig::read(file);
  neurobench::RunParts parts;
  parts.config_file = file;  // recorded as _run.config, as the command line records it
  neurobench::PreparedRun run = neurobench::PreparedRun::from_config(config, parts);
  return run.run();
}

// A network made in C++ and data in memory; the metrics and `_run` from the config.
neurobench::Results run_in_memory(torch::jit::Module net, torch::Tensor inputs,
                                  torch::Tensor targets) {
  neurobench::BenchmarkConfig config;
  config.static_metrics = {{"ParameterCount"}};
  config.workload_metrics = {{"MSE"}};
  config.quiet = true;
  neurobench::RunParts parts;
  parts.model = std::make_shared<neurobench::TorchScriptModel>(std::move(net));
  parts.data = std::make_shared<neurobench::TensorDataset>(inputs, targets);
  return neurobench::PreparedRun::from_config(config, parts).run();
}
// docs/library.md end

// A results file's contents without `_environment`, which says when and where it was made.
// The results but for the machine and the times of the phases, which two runs do not share.
OrderedJson without_environment(const std::string& text) {
  OrderedJson json = OrderedJson::parse(text);
  json.erase("_environment");
  if (json.contains("_run")) json["_run"].erase("phases");
  return json;
}

// A classifier on an .npz, with a pre- and a post-processor, quiet.
void write_npz_config(const std::filesystem::path& file) {
  std::ofstream(file) << OrderedJson{
      {"model", fixture("core/classifier.pt").string()},
      {"data", fixture("core/classifier.npz").string()},
      {"batch_size", 4},
      {"static", {"Footprint"}},
      {"workload", {"ClassificationAccuracy", "ActivationSparsity"}},
      {"pre", {{{"name", "RateEncoder"}, {"options", {{"num_steps", 1}}}}}},
      {"post", {"Argmax"}},
      {"quiet", true}}.dump(2);
}

// A net that scales its input by a weight of 2: made in C++, no file.
torch::jit::Module scaling_net() {
  torch::jit::Module net("Scale");
  net.register_parameter("weight", torch::full({1}, 2.0), false);
  net.define(R"(
def forward(self, x):
    return x * self.weight
)");
  return net;
}

}  // namespace

TEST_CASE("a run assembled from a config gives the results and _run that neurobench run gives",
          "[prepared_run][cli]") {
  TempDir tmp;
  write_npz_config(tmp / "bench.json");
  const auto cli = run_cli("run " + q(tmp / "bench.json") + " --json " + q(tmp / "cli.json"));
  INFO(cli.err);
  REQUIRE(cli.status == 0);

  const neurobench::Results results = run_config(tmp / "bench.json");
  CHECK(without_environment(neurobench::results_document(results).dump()) ==
        without_environment(read_file(tmp / "cli.json")));
  CHECK(results.run.at("data") == fixture("core/classifier.npz").string());
  CHECK(results.run.at("config") == (tmp / "bench.json").string());
  // Each processor with its options complete, defaults filled in.
  CHECK(results.run.at("pre").at(0).at("name") == "RateEncoder");
  CHECK(results.run.at("pre").at(0).at("options").at("num_steps") == 1);
  CHECK(results.run.at("pre").at(0).at("options").at("seed") == 0);
  CHECK(results.run.at("post") == neurobench::Json::array({"Argmax"}));
  CHECK(results.run.at("stepwise") == false);
}

TEST_CASE("a run assembled from a config records its data set by kind as neurobench run does",
          "[prepared_run][cli][dataset]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "gsc");
  std::ofstream(tmp / "bench.json") << OrderedJson{
      {"model", fixture("speech_commands/clip_classifier.pt").string()},
      {"dataset", {{"kind", "speech-commands"}, {"path", "gsc"}, {"subset", "testing"}}},
      {"batch_size", 2},
      {"metrics", {"ClassificationAccuracy", "Footprint"}},
      {"post", {"Argmax"}},
      {"quiet", true}}.dump(2);
  const auto cli = run_cli("run " + q(tmp / "bench.json") + " --json " + q(tmp / "cli.json"));
  INFO(cli.err);
  REQUIRE(cli.status == 0);

  const neurobench::Results results = run_config(tmp / "bench.json");
  CHECK(without_environment(neurobench::results_document(results).dump()) ==
        without_environment(read_file(tmp / "cli.json")));
  const neurobench::Json& dataset = results.run.at("dataset");
  CHECK(results.run.at("data") == "speech-commands:" + (tmp / "gsc").string());
  CHECK(dataset.at("kind") == "speech-commands");
  CHECK(dataset.at("options") == neurobench::Json{{"subset", "testing"}, {"long_clips", "error"}});
  CHECK(dataset.at("samples") == 3);
}

TEST_CASE("data given to an assembled run stand for the config's data set in _run",
          "[prepared_run][dataset]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "gsc");
  BenchmarkConfig config;
  config.model = fixture("speech_commands/clip_classifier.pt");
  config.dataset = {"speech-commands", tmp / "gsc", {{"subset", "testing"}}};
  config.metrics = {{"ClassificationAccuracy"}};
  config.post = {{"Argmax"}};
  config.quiet = true;
  neurobench::DatasetOpenOptions open;
  open.quiet = true;
  RunParts parts;
  parts.data = neurobench::dataset_kinds().open(config.dataset, open);

  PreparedRun given = PreparedRun::from_config(config, parts);
  CHECK(given.data() == parts.data);
  const neurobench::Results from_parts = given.run();
  const neurobench::Results opened = PreparedRun::from_config(config).run();
  CHECK(from_parts.values == opened.values);
  // The same record, but for the phases' times, and the data's opening timed only when the
  // run opened them itself.
  neurobench::Json parts_run = from_parts.run;
  neurobench::Json opened_run = opened.run;
  CHECK_FALSE(parts_run.at("phases").contains("data_open_s"));
  CHECK(opened_run.at("phases").contains("data_open_s"));
  parts_run.erase("phases");
  opened_run.erase("phases");
  CHECK(parts_run == opened_run);
  CHECK(from_parts.run.at("dataset").at("samples") == 3);
}

TEST_CASE("an assembled run of a model and data made in memory records _run from the config",
          "[prepared_run]") {
  const torch::Tensor inputs = torch::arange(6, torch::kFloat).reshape({3, 2});
  const neurobench::Results results = run_in_memory(scaling_net(), inputs, inputs * 2);
  INFO(results.values.dump());
  REQUIRE(results.ok());
  CHECK(results.values.at("ParameterCount") == 1);
  CHECK(results.values.at("MSE") == 0.0);
  // No file names the data: `_run.data` says what they are.
  CHECK(results.run.at("data") == "tensor dataset");
  CHECK(results.run.at("stepwise") == false);
  CHECK(results.run.at("batch_size") == 64);
  CHECK(results.run.contains("model"));
  CHECK_FALSE(results.run.contains("dataset"));
  CHECK_FALSE(results.run.contains("config"));
  CHECK_FALSE(results.run.contains("pre"));
}

namespace {

// A workload metric of the caller's own: the samples it saw.
class SamplesSeen final : public neurobench::AccumulatedMetric {
 public:
  void reset() override { samples_ = 0; }
  void update(const neurobench::WorkloadInput& input) override { samples_ += input.batch.size(); }
  [[nodiscard]] neurobench::Json compute() const override { return samples_; }
  [[nodiscard]] std::string name() const override { return "SamplesSeen"; }

 private:
  int64_t samples_ = 0;
};

}  // namespace

TEST_CASE("an assembled run takes processors and metrics of the caller's own as parts",
          "[prepared_run]") {
  const torch::Tensor inputs = torch::arange(6, torch::kFloat).reshape({3, 2});
  BenchmarkConfig config;
  config.quiet = true;
  config.pre = {{"doubled"}, {"DeltaEncoder", {{"threshold", 0.5}}}};
  config.post = {{"halved"}};
  RunParts parts;
  parts.model = std::make_shared<neurobench::TorchScriptModel>(scaling_net());
  parts.data = std::make_shared<neurobench::TensorDataset>(inputs.unsqueeze(1), inputs * 2);
  int made = 0;
  parts.pre_processors["doubled"] = [&made] {
    ++made;
    return neurobench::make_pre_processor([](const neurobench::Batch& b) {
      neurobench::Batch out = b;
      out.data = b.data * 2;
      return out;
    });
  };
  parts.post_processors["halved"] = [] {
    return neurobench::make_post_processor([](const torch::Tensor& p) { return p / 2; });
  };
  parts.workload_metrics.push_back([] { return std::make_unique<SamplesSeen>(); });
  // No metric of the config's: the caller's own are enough.
  PreparedRun::check(config, parts);
  const neurobench::Results results = PreparedRun::from_config(config, parts).run();
  INFO(results.values.dump());
  REQUIRE(results.ok());
  CHECK(made == 1);
  CHECK(results.values.at("SamplesSeen") == 3);
  CHECK(results.run.at("pre") == neurobench::Json::parse(
                                     R"([{"name": "doubled"}, {"name": "DeltaEncoder",
                                         "options": {"threshold": 0.5, "off_spikes": true}}])"));
  CHECK(results.run.at("post") == neurobench::Json::parse(R"([{"name": "halved"}])"));
  // Without them a name of the caller's is unknown, and no metric is an error.
  RunParts bare;
  bare.model = parts.model;
  bare.data = parts.data;
  REQUIRE_THROWS_AS(PreparedRun::check(config, bare), neurobench::UsageError);
  config.pre.clear();
  config.post.clear();
  REQUIRE_THROWS_WITH(PreparedRun::check(config, bare), Catch::Contains("no metrics asked for"));
  bare.metrics_optional = true;
  CHECK_NOTHROW(PreparedRun::check(config, bare));
}

TEST_CASE("an assembled run runs with the options it is given instead of the config's",
          "[prepared_run]") {
  BenchmarkConfig config;
  config.model = fixture("core/classifier.pt");
  config.data = fixture("core/classifier.npz");
  config.metrics = {{"Footprint"}};
  RunParts parts;
  parts.options = neurobench::RunOptions{};
  parts.options->quiet = true;
  parts.options->verbose = true;
  PreparedRun run = PreparedRun::from_config(config, parts);
  CHECK(run.options().quiet);
  CHECK(run.options().verbose);
  CHECK(run.data()->size() == 10);
  CHECK(run.run().values["Footprint"].is_number());
}

TEST_CASE("an assembled run names the unknown metric, processor or data set kind",
          "[prepared_run][errors]") {
  BenchmarkConfig config;
  config.model = fixture("core/classifier.pt");
  config.data = fixture("core/classifier.npz");
  config.metrics = {{"Acuracy"}};
  REQUIRE_THROWS_AS(PreparedRun::from_config(config), neurobench::UsageError);
  REQUIRE_THROWS_WITH(
      PreparedRun::from_config(config),
      Catch::Contains("unknown metric 'Acuracy'") && Catch::Contains("ClassificationAccuracy"));
  REQUIRE_THROWS_WITH(PreparedRun::check(config), Catch::Contains("'Acuracy'"));

  config.metrics = {{"Latency", {{"bogus", 1}}}};
  REQUIRE_THROWS_WITH(PreparedRun::from_config(config),
                      Catch::Contains("Latency") && Catch::Contains("bogus"));

  config.metrics = {{"Footprint"}};
  config.post = {{"ArgMaxx"}};
  REQUIRE_THROWS_AS(PreparedRun::from_config(config), neurobench::UsageError);
  REQUIRE_THROWS_WITH(PreparedRun::from_config(config), Catch::Contains("'ArgMaxx'"));

  config.post.clear();
  config.data.clear();
  config.dataset = {"mnist", "somewhere", {}};
  REQUIRE_THROWS_AS(PreparedRun::from_config(config), neurobench::UsageError);
  REQUIRE_THROWS_WITH(PreparedRun::from_config(config),
                      Catch::Contains("unknown data set kind 'mnist'"));

  config.dataset = {};
  config.data = fixture("core/classifier.npz");
  config.metrics.clear();
  REQUIRE_THROWS_WITH(PreparedRun::from_config(config), Catch::Contains("no metrics"));

  config.metrics = {{"Latency"}};
  RunParts parts;
  parts.options = neurobench::RunOptions{};
  parts.options->timing.min_time_s = 100;
  REQUIRE_THROWS_AS(PreparedRun::from_config(config, parts), neurobench::UsageError);
  REQUIRE_THROWS_WITH(PreparedRun::from_config(config, parts),
                      Catch::Contains("min_time (100 s) is more than max_time"));
}

TEST_CASE("an assembled run names the missing model or data file", "[prepared_run][errors]") {
  TempDir tmp;
  BenchmarkConfig config;
  config.model = tmp / "absent.pt";
  config.data = fixture("core/classifier.npz");
  config.metrics = {{"Footprint"}};
  REQUIRE_THROWS_AS(PreparedRun::from_config(config), neurobench::InputError);
  REQUIRE_THROWS_WITH(
      PreparedRun::from_config(config),
      Catch::Contains((tmp / "absent.pt").string()) && Catch::Contains("no such model file"));

  config.model = fixture("core/classifier.pt");
  config.data = tmp / "absent.npz";
  REQUIRE_THROWS_AS(PreparedRun::from_config(config), neurobench::InputError);
  REQUIRE_THROWS_WITH(
      PreparedRun::from_config(config),
      Catch::Contains((tmp / "absent.npz").string()) && Catch::Contains("no such data file"));
}

TEST_CASE("an assembled run without a model or data in the config or its parts is a UsageError",
          "[prepared_run][errors]") {
  BenchmarkConfig config;
  config.metrics = {{"Footprint"}};
  config.data = fixture("core/classifier.npz");
  REQUIRE_THROWS_AS(PreparedRun::check(config), neurobench::UsageError);
  REQUIRE_THROWS_WITH(PreparedRun::check(config), Catch::Contains("no model"));
  RunParts parts;
  parts.model = std::make_shared<neurobench::TorchScriptModel>(scaling_net());
  CHECK_NOTHROW(PreparedRun::check(config, parts));

  config.model = fixture("core/classifier.pt");
  config.data.clear();
  REQUIRE_THROWS_AS(PreparedRun::check(config), neurobench::UsageError);
  REQUIRE_THROWS_WITH(PreparedRun::check(config), Catch::Contains("no data"));

  config.data = fixture("core/classifier.npz");
  config.dataset = {"wisdm", "x.npz", {{"subset", "test"}}};
  REQUIRE_THROWS_WITH(PreparedRun::check(config),
                      Catch::Contains("'data'") && Catch::Contains("'dataset'"));
}

TEST_CASE("the examples of docs/library.md are the code tested here", "[prepared_run][docs]") {
  const std::string source = read_file(__FILE__);
  const std::string begin = "// docs/library.md begin\n";
  const std::string end = "// docs/library.md end\n";
  const auto from = source.find(begin);
  const auto to = source.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  const std::string examples = source.substr(from + begin.size(), to - from - begin.size());
  const std::string docs = read_file(std::filesystem::path(NEUROBENCH_TEST_FIXTURES) / ".." / ".." /
                                     "docs" / "library.md");
  REQUIRE_FALSE(docs.empty());
  // Each example, the blocks between blank lines, is in the page as it is here.
  int found = 0;
  for (std::size_t start = 0; start < examples.size();) {
    const std::size_t blank = examples.find("\n\n", start);
    const std::size_t stop = blank == std::string::npos ? examples.size() : blank + 1;
    const std::string example = examples.substr(start, stop - start);
    CHECK_THAT(docs, Catch::Contains("```cpp\n" + example + "```\n"));
    ++found;
    start = stop + 1;
  }
  CHECK(found == 2);
}
