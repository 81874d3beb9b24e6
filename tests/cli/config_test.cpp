// SPDX-License-Identifier: Apache-2.0
// `neurobench run CONFIG.json`: a benchmark described in a file, flags overriding it.
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;

namespace {
void write_cli_config(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// The classifier's config, with the keys of the JSON object `overrides` replacing or added to
// its own (a key may appear only once in a config).
std::string classifier_config(const std::string& overrides = "{}") {
  auto config = nlohmann::ordered_json::parse(R"({
    "_comment": "keys starting with _ are ignored",
    "model": ")" + fixture("core/classifier.pt").string() + R"(",
    "data": ")" + fixture("core/classifier.npz").string() + R"(",
    "batch_size": 4,
    "static": ["Footprint"],
    "workload": ["ClassificationAccuracy"],
    "quiet": true,
    "outputs": {"json": "results.json"}
  })");
  config.update(nlohmann::ordered_json::parse(overrides));
  return config.dump(2);
}
}  // namespace

TEST_CASE("a config file describes a whole run, outputs are relative to it", "[cli][config]") {
  neurobench::test::TempDir dir;
  write_cli_config(dir / "bench.json", classifier_config());
  const auto r = run_cli("run " + q(dir / "bench.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto values = nlohmann::json::parse(neurobench::test::read_file(dir / "results.json"));
  REQUIRE(values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  REQUIRE(values.contains("Footprint"));
}

TEST_CASE("flags after the config override it", "[cli][config]") {
  neurobench::test::TempDir dir;
  write_cli_config(dir / "bench.json", classifier_config());
  const auto r = run_cli("run " + q(dir / "bench.json") + " --workload MSE --json " +
                         q(dir / "other.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_FALSE(std::filesystem::exists(dir / "results.json"));
  const auto values = nlohmann::json::parse(neurobench::test::read_file(dir / "other.json"));
  REQUIRE(values.contains("MSE"));
  REQUIRE_FALSE(values.contains("ClassificationAccuracy"));
}

TEST_CASE("config errors name the file and the key and exit 2", "[cli][config]") {
  neurobench::test::TempDir dir;
  struct Case {
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {classifier_config(R"({"batchsize": 3})"), "'batchsize'"},
      {classifier_config(R"({"batch_size": "4"})"),
       "'batch_size': \"4\" is not an integer; expected an integer from 1 to 2147483647"},
      {classifier_config(R"({"stepwise": 1})"), "'stepwise' must be true or false"},
      {classifier_config(R"({"threads": 4294967297})"), "'threads': 4294967297 is out of range"},
      {classifier_config(R"({"warmup": 1e12})"), "'warmup': 1000000000000.0 is out of range"},
      {classifier_config(R"({"workload": "MSE"})"), "'workload' must be a list of names"},
      {R"({"model": "m.pt", "outputs": {"xml": "a.xml"}})", "'outputs.xml'"},
      {R"({"data": "d.npz"})", "--model is required"},
      {"[1, 2]", "must be a JSON object"},
      {"{not json", "not valid JSON"},
      {R"({"model": "m.pt", "warmup": 1, "warmup": 5})",
       "the key \"warmup\" is given twice in the top-level object"},
  };
  for (const auto& c : cases) {
    write_cli_config(dir / "bad.json", c.text);
    const auto r = run_cli("run " + q(dir / "bad.json"));
    INFO(c.text << "\nstderr: " << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains(c.says));
    if (c.says.rfind("--model", 0) != 0) REQUIRE_THAT(r.err, Catch::Contains("bad.json"));
  }
  const auto missing = run_cli("run " + q(dir / "missing.json"));
  REQUIRE(missing.status == 2);
  REQUIRE_THAT(missing.err, Catch::Contains("missing.json"));
}

TEST_CASE("a config's metric may be an object with a name", "[cli][config]") {
  neurobench::test::TempDir dir;
  write_cli_config(
      dir / "bench.json",
      classifier_config(R"({"workload": [{"name": "ClassificationAccuracy"}, "MSE"]})"));
  const auto r = run_cli("run " + q(dir / "bench.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto values = nlohmann::json::parse(neurobench::test::read_file(dir / "results.json"));
  REQUIRE(values.contains("ClassificationAccuracy"));
  REQUIRE(values.contains("MSE"));
}

TEST_CASE("a metric's options reach the metric set, options it does not take exit 2",
          "[cli][config]") {
  neurobench::test::TempDir dir;
  // Footprint declares no options: asking for one is bad usage, from a flag or a config.
  const auto flag = run_cli("run --model " + q(fixture("core/classifier.pt")) + " --data " +
                            q(fixture("core/classifier.npz")) + " --static Footprint:bits=8 -q");
  INFO(flag.err);
  CHECK(flag.status == 2);
  CHECK_THAT(flag.err, Catch::Contains("Footprint"));
  write_cli_config(
      dir / "bench.json",
      classifier_config(R"({"static": [{"name": "Footprint", "options": {"bits": 8}}]})"));
  const auto config = run_cli("run " + q(dir / "bench.json"));
  INFO(config.err);
  CHECK(config.status == 2);
  CHECK_THAT(config.err, Catch::Contains("Footprint"));
  CHECK_FALSE(std::filesystem::exists(dir / "results.json"));
}

TEST_CASE("a badly formed metric on the command line exits 2 naming the flag and the form",
          "[cli][config]") {
  const std::string model_and_data = "run --model " + q(fixture("core/classifier.pt")) +
                                     " --data " + q(fixture("core/classifier.npz")) + " -q ";
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"--metrics Footprint:", "--metrics: metric 'Footprint:': no options after ':'"},
      {"--workload MSE:k", "--workload: metric 'MSE:k': option 'k' has no value"},
      {"--static :k=v", "--static: metric ':k=v': no metric name"},
      {"--metrics Footprint,k=1", "option 'k=1' follows no metric with options"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(model_and_data + c.args);
    INFO(c.args << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(c.says));
  }
}

TEST_CASE("a config's metric in the command line's form is refused with the config's form",
          "[cli][config]") {
  neurobench::test::TempDir dir;
  write_cli_config(dir / "bench.json", classifier_config(R"({"metrics": ["Latency:runs=5"]})"));
  const auto r = run_cli("run " + q(dir / "bench.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("bench.json") &&
                        Catch::Contains(R"({"name":"Latency","options":{"runs":5}})"));
}
