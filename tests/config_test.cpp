// SPDX-License-Identifier: Apache-2.0
// BenchmarkConfig: read, validate and write configs; metrics as `Name:key=value` (config.hpp).
#include <neurobench/config.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/formats.hpp>

#include "support.hpp"

using neurobench::BenchmarkConfig;
using neurobench::Json;
using neurobench::MetricSpec;
using neurobench::parse_metric_spec;
using neurobench::parse_metric_specs;
using neurobench::UsageError;

namespace {
namespace fs = std::filesystem;

void write_config_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// A config that sets every key to a value other than its default.
BenchmarkConfig every_key(const fs::path& dir) {
  BenchmarkConfig c;
  c.comment = "every key";
  c.model = dir / "models" / "net.pt";
  c.data = dir / "test.npz";
  c.batch_size = 16;
  c.stepwise = true;
  c.static_metrics = {{"Footprint"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"SynapticOperations"}};
  c.metrics = {{"Latency", Json{{"percentiles", {50, 99}}, {"mode", "fast"}}}, {"DenseMACs"}};
  c.pre = {{"S2SPreProcessor", Json{{"threshold", 1}}}, "Flatten"};
  c.post = {"ChooseMaxCount"};
  c.activation_modules = {"ReLU", "Leaky"};
  c.connection_modules = {"Linear"};
  c.metrics_scope = "net.encoder";
  c.shuffle_seed = 42;
  c.threads = 2;
  c.warmup = 1;
  c.runs = 20;
  c.min_time = 0.25;
  c.max_time = 30;
  c.latency_batch_size = 1;
  c.startup_runs = 3;
  c.quiet = true;
  c.verbose = true;
  c.strict = true;
  c.max_array_bytes = std::uint64_t{1} << 20;
  c.device = "cuda:1";
  c.tf32 = true;
  c.outputs["json"] = dir / "out" / "results.json";
  c.outputs["csv"] = dir / "results.csv";
  c.outputs["text"] = "/elsewhere/results.txt";
  return c;
}

void require_equal(const BenchmarkConfig& a, const BenchmarkConfig& b) {
  // to_json() holds every field; paths compared as written.
  REQUIRE(a.to_json().dump(2) == b.to_json().dump(2));
}

// The message of the UsageError that reading `text` as a config file throws.
std::string read_error(const neurobench::test::TempDir& dir, const std::string& text) {
  write_config_file(dir / "bad.json", text);
  try {
    (void)BenchmarkConfig::read(dir / "bad.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("no UsageError for " << text);
  return {};
}
}  // namespace

TEST_CASE("a config survives read, write and read again, every key set", "[config]") {
  neurobench::test::TempDir dir;
  const BenchmarkConfig original = every_key(dir.path());
  original.write(dir / "a.json");
  const BenchmarkConfig first = BenchmarkConfig::read(dir / "a.json");
  require_equal(first, original);
  first.write(dir / "b.json");
  const BenchmarkConfig second = BenchmarkConfig::read(dir / "b.json");
  require_equal(second, first);
  REQUIRE(second.metrics[0].options == Json{{"percentiles", {50, 99}}, {"mode", "fast"}});
  REQUIRE(*second.shuffle_seed == 42);
  REQUIRE(second.min_time == 0.25);
  REQUIRE(second.max_time == 30);
}

TEST_CASE("written paths in the config's folder are relative to it, others absolute", "[config]") {
  neurobench::test::TempDir dir;
  every_key(dir.path()).write(dir / "bench.json");
  const auto json = Json::parse(neurobench::test::read_file(dir / "bench.json"));
  CHECK(json["model"] == "models/net.pt");
  CHECK(json["data"] == "test.npz");
  CHECK(json["outputs"]["json"] == "out/results.json");
  CHECK(json["outputs"]["text"] == "/elsewhere/results.txt");
  // A path outside the folder is absolute, and names the same file when read back.
  BenchmarkConfig c;
  c.model = dir / "m.pt";
  fs::create_directories(dir / "sub");
  c.write(dir / "sub" / "bench.json");
  const auto sub = Json::parse(neurobench::test::read_file(dir / "sub" / "bench.json"));
  CHECK(sub["model"] == (dir / "m.pt").string());
  CHECK(BenchmarkConfig::read(dir / "sub" / "bench.json").model == dir / "m.pt");
}

TEST_CASE(
    "to_json writes the keys set, in the documented order, metrics with options as "
    "objects",
    "[config]") {
  BenchmarkConfig c;
  c.model = "net.pt";
  c.data = "test.npz";
  c.static_metrics = {{"Footprint"}};
  c.metrics = {{"Latency", Json{{"runs", 5}}}};
  c.outputs["json"] = "results.json";
  CHECK(c.to_json().dump() ==
        R"({"model":"net.pt","data":"test.npz","batch_size":64,"static":["Footprint"],)"
        R"("metrics":[{"name":"Latency","options":{"runs":5}}],)"
        R"("outputs":{"json":"results.json"}})");
  CHECK(BenchmarkConfig().to_json().dump() == R"({"batch_size":64})");
}

TEST_CASE("configs written before metric options still read the same", "[config]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "old.json", R"({
    "_comment": "Mackey-Glass tau 17, repeat 0",
    "_metrics": "notes are ignored",
    // comments too
    "model": "esn.pt",
    "data": "../data/esn.npz",
    "batch_size": 750,
    "static": ["Footprint", "ConnectionSparsity"],
    "workload": ["SMAPE", "ActivationSparsity", "SynapticOperations"],
    "metrics": ["ModelFileSize", "Latency"],
    "latency_batch_size": 1,
    "outputs": {"json": "esn_results.json"}
  })");
  const BenchmarkConfig c = BenchmarkConfig::read(dir / "old.json");
  CHECK(c.comment == "Mackey-Glass tau 17, repeat 0");
  CHECK(c.model == dir / "esn.pt");
  CHECK(c.data == (dir.path().parent_path() / "data" / "esn.npz"));
  CHECK(c.batch_size == 750);
  REQUIRE(c.workload_metrics.size() == 3);
  CHECK(c.workload_metrics[2].name == "SynapticOperations");
  CHECK(c.workload_metrics[2].options == Json::object());
  CHECK(c.metrics[1].name == "Latency");
  CHECK(c.latency_batch_size == 1);
  CHECK(c.warmup == 3);  // the default
  CHECK(c.outputs.at("json") == dir / "esn_results.json");
}

TEST_CASE("a metric in a config is a name or an object with name and options", "[config]") {
  const BenchmarkConfig c = BenchmarkConfig::from_json(Json::parse(
      R"({"workload": ["SMAPE", {"name": "Latency", "options": {"runs": 5}}, {"name": "MSE"}]})"));
  REQUIRE(c.workload_metrics.size() == 3);
  CHECK(c.workload_metrics[0].name == "SMAPE");
  CHECK(c.workload_metrics[1].name == "Latency");
  CHECK(c.workload_metrics[1].options == Json{{"runs", 5}});
  CHECK(c.workload_metrics[2].options == Json::object());
}

TEST_CASE("config errors name the file and the field", "[config]") {
  neurobench::test::TempDir dir;
  const std::string file = (dir / "bad.json").string();
  struct Case {
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {R"({"batchsize": 3})", "unknown key 'batchsize'"},
      {R"({"batch_size": "4"})",
       "'batch_size': \"4\" is not an integer; expected an integer from 1 to 2147483647"},
      {R"({"batch_size": 0})",
       "'batch_size': 0 is out of range; expected an integer from 1 to 2147483647"},
      {R"({"stepwise": 1})", "'stepwise' must be true or false"},
      {R"({"workload": "MSE"})", "'workload' must be a list of names"},
      {R"({"workload": ["MSE", 3]})", "'workload' must be a list of names"},
      {R"({"static": [{"options": {}}]})", "'static[0]' must be a metric name or an object"},
      {R"({"static": [{"name": "Footprint", "option": {}}]})", "unknown key 'static[0].option'"},
      {R"({"metrics": [{"name": "Latency", "options": [1]}]})",
       "'metrics[0].options' must be an object, got [1]"},
      {R"({"metrics": ["Latency:runs=5"]})",
       R"(a config writes {"name":"Latency","options":{"runs":5}})"},
      {R"({"metrics": [""]})", "'metrics[0]' must be a metric name"},
      {R"({"runs": 2000000})",
       "'runs': 2000000 is out of range; expected an integer from 0 (as many as fit in min_time) "
       "to 1000000"},
      {R"({"min_time": -1})",
       "'min_time': -1 is out of range; expected a number of seconds from 0 to 86400"},
      {R"({"threads": 0})", "'threads': 0 is out of range; expected an integer from 1 to "},
      {R"({"shuffle_seed": -1})",
       "'shuffle_seed': -1 is out of range; expected an integer from 0 to 18446744073709551615"},
      {R"({"outputs": {"xml": "a.xml"}})", "unknown key 'outputs.xml' (formats: json, csv, text)"},
      {R"({"outputs": {"json": 3}})", "'outputs.json' must be a string"},
      {R"({"outputs": ["a.json"]})", "'outputs' must be an object of format: file"},
      {"[1, 2]", "a config must be a JSON object"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const std::string message = read_error(dir, c.text);
    CHECK_THAT(message, Catch::StartsWith(file + ": "));
    CHECK_THAT(message, Catch::Contains(c.says));
  }
}

TEST_CASE("a missing or unparsable config file is an InputError naming it", "[config]") {
  neurobench::test::TempDir dir;
  REQUIRE_THROWS_AS(BenchmarkConfig::read(dir / "missing.json"), neurobench::InputError);
  REQUIRE_THROWS_WITH(BenchmarkConfig::read(dir / "missing.json"),
                      Catch::Contains("missing.json") && Catch::Contains("no such config file"));
  write_config_file(dir / "broken.json", "{not json");
  REQUIRE_THROWS_AS(BenchmarkConfig::read(dir / "broken.json"), neurobench::InputError);
  REQUIRE_THROWS_WITH(BenchmarkConfig::read(dir / "broken.json"),
                      Catch::Contains("broken.json") && Catch::Contains("not valid JSON"));
}

TEST_CASE("validate names the field out of range, and write refuses such a config", "[config]") {
  neurobench::test::TempDir dir;
  BenchmarkConfig c;
  c.startup_runs = 0;
  REQUIRE_THROWS_AS(c.validate(), UsageError);
  REQUIRE_THROWS_WITH(c.validate(),
                      Catch::Contains("config: 'startup_runs': 0 is out of range; expected an "
                                      "integer from 1 to 10000"));
  REQUIRE_THROWS_AS(c.write(dir / "bench.json"), UsageError);
  REQUIRE_FALSE(fs::exists(dir / "bench.json"));
  c = BenchmarkConfig();
  c.workload_metrics = {{""}};
  REQUIRE_THROWS_WITH(c.validate(), Catch::Contains("'workload[0]'"));
  c = BenchmarkConfig();
  c.metrics = {{"Latency", Json::array({1})}};
  REQUIRE_THROWS_WITH(c.validate(), Catch::Contains("'metrics[0].options' must be an object"));
  REQUIRE_NOTHROW(BenchmarkConfig().validate());
}

TEST_CASE("every numeric key is range-checked as the widest type, never wrapped or clamped",
          "[config][numbers]") {
  neurobench::test::TempDir dir;
  const std::string file = (dir / "bad.json").string();
  const std::string threads = "expected an integer from 1 to " +
                              std::to_string(std::max<unsigned>(
                                  256, 4 * std::max(1U, std::thread::hardware_concurrency())));
  struct Case {
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      // 2^32 + 1 once wrapped to 1 thread; 2^31 was "Expected positive number of threads".
      {R"({"threads": 4294967297})", "'threads': 4294967297 is out of range; " + threads},
      {R"({"threads": 2147483648})", "'threads': 2147483648 is out of range; " + threads},
      {R"({"threads": 100000})", "'threads': 100000 is out of range; " + threads},
      {R"({"warmup": 1e12})",
       "'warmup': 1000000000000.0 is out of range; expected an integer from 0 to 1000000"},
      {R"({"warmup": 2000000000})", "'warmup': 2000000000 is out of range"},
      {R"({"warmup": 2.5})", "'warmup': 2.5 is not an integer; expected an integer from 0 to"},
      {R"({"startup_runs": 2000000000})",
       "'startup_runs': 2000000000 is out of range; expected an integer from 1 to 10000"},
      // Past 2^64 - 1, JSON has no integer: out of range, not clamped.
      {R"({"batch_size": 99999999999999999999})", "'batch_size': 1e+20 is out of range"},
      {R"({"batch_size": 2147483648})", "'batch_size': 2147483648 is out of range"},
      {R"({"latency_batch_size": -1})",
       "'latency_batch_size': -1 is out of range; expected an integer from 0 (batch_size) to "
       "2147483647"},
      {R"({"shuffle_seed": 18446744073709551616})",
       "'shuffle_seed': 1.8446744073709552e+19 is "
       "out of range"},
      {R"({"shuffle_seed": null})", "'shuffle_seed': null is not an integer"},
      {R"({"min_time": "1"})", "'min_time': \"1\" is not a number; expected a number of seconds"},
      {R"({"max_time": 86401})",
       "'max_time': 86401 is out of range; expected a number of seconds from 0 to 86400"},
      {R"({"max_time": -0.5})", "'max_time': -0.5 is out of range"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const std::string message = read_error(dir, c.text);
    CHECK_THAT(message, Catch::StartsWith(file + ": "));
    CHECK_THAT(message, Catch::Contains(c.says));
  }
  // The ends of each range are taken.
  const BenchmarkConfig c = BenchmarkConfig::from_json(Json::parse(
      R"({"shuffle_seed": 18446744073709551615, "batch_size": 2147483647, "threads": 1,
          "warmup": 1000000, "runs": 1000000, "min_time": 0, "max_time": 86400,
          "startup_runs": 10000, "latency_batch_size": 0})"));
  CHECK(*c.shuffle_seed == 18446744073709551615ULL);
  CHECK(c.batch_size == 2147483647);
  CHECK(c.warmup == 1000000);
  CHECK(c.max_time == 86400);
  CHECK(c.startup_runs == 10000);
}

TEST_CASE("min_time above max_time is refused by validate, not while reading",
          "[config][numbers]") {
  // A config may say min_time 100 and leave max_time to a flag: reading it keeps it.
  BenchmarkConfig c = BenchmarkConfig::from_json(Json::parse(R"({"min_time": 100})"));
  CHECK(c.min_time == 100);
  REQUIRE_THROWS_WITH(c.validate(), Catch::Contains("'min_time' (100 s) is more than "
                                                    "'max_time' (60 s)"));
  c.max_time = 100;
  REQUIRE_NOTHROW(c.validate());
  c.max_time = 10;
  c.runs = 5;  // a given number of runs does not look at min_time
  REQUIRE_NOTHROW(c.validate());
  REQUIRE_NOTHROW(c.run_options().timing.validate());
  c.runs = 0;
  REQUIRE_THROWS_WITH(c.run_options().timing.validate(),
                      Catch::Contains("min_time (100 s) is more than max_time (10 s)"));
}

TEST_CASE("set_number reads a flag's text as a config's value, with the same ranges",
          "[config][numbers]") {
  BenchmarkConfig c;
  c.set_number("batch_size", "32", "--batch-size");
  c.set_number("shuffle_seed", "18446744073709551615", "--shuffle-seed");
  c.set_number("min_time", "0.5", "--min-time");
  c.set_number("max_time", "2e1", "--max-time");
  c.set_number("threads", "+2", "--threads");
  CHECK(c.batch_size == 32);
  CHECK(*c.shuffle_seed == 18446744073709551615ULL);
  CHECK(c.min_time == 0.5);
  CHECK(c.max_time == 20);
  CHECK(c.threads == 2);
  struct Case {
    const char* key;
    const char* text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"batch_size", "0", "--x: 0 is out of range; expected an integer from 1 to 2147483647"},
      {"batch_size", "-1", "--x: -1 is out of range; expected an integer from 1 to 2147483647"},
      {"batch_size", "abc", "--x: 'abc' is not an integer; expected an integer from 1 to"},
      {"batch_size", "99999999999999999999", "--x: 99999999999999999999 is out of range"},
      {"batch_size", "", "--x: '' is not an integer"},
      {"batch_size", " 5", "--x: ' 5' is not an integer"},
      {"batch_size", "1e3", "--x: '1e3' is not an integer"},
      {"warmup", "1e12", "--x: 1e12 is out of range; expected an integer from 0 to 1000000"},
      {"shuffle_seed", "-1",
       "--x: -1 is out of range; expected an integer from 0 to "
       "18446744073709551615"},
      {"shuffle_seed", "18446744073709551616", "--x: 18446744073709551616 is out of range"},
      {"min_time", "inf",
       "--x: 'inf' is not a number; expected a number of seconds from 0 to "
       "86400"},
      {"min_time", "nan", "--x: 'nan' is not a number"},
      {"min_time", "0x10", "--x: '0x10' is not a number"},
      {"min_time", "1e400", "--x: 1e400 is out of range"},
      {"min_time", "-0.1", "--x: -0.1 is out of range"},
      {"max_time", "86400.5", "--x: 86400.5 is out of range"},
  };
  for (const auto& k : cases) {
    INFO(k.key << " " << k.text);
    REQUIRE_THROWS_AS(c.set_number(k.key, k.text, "--x"), UsageError);
    REQUIRE_THROWS_WITH(c.set_number(k.key, k.text, "--x"), Catch::StartsWith(k.says));
  }
  CHECK(c.batch_size == 32);  // nothing set by a refused value
  REQUIRE_THROWS_WITH(c.set_number("model", "1", "--x"), Catch::Contains("not a numeric"));
}

TEST_CASE("every numeric key has a range, and validate checks values set in memory",
          "[config][numbers]") {
  CHECK(BenchmarkConfig::number_keys() ==
        std::vector<std::string>{"batch_size", "shuffle_seed", "threads", "warmup", "runs",
                                 "min_time", "max_time", "nir_dt", "latency_batch_size",
                                 "startup_runs", "max_array_bytes", "profile_warmup",
                                 "profile_runs"});
  for (const auto& key : BenchmarkConfig::number_keys()) {
    CHECK_THAT(
        BenchmarkConfig::number_range(key),
        Catch::StartsWith("an integer from ") || Catch::StartsWith("a number of seconds from "));
  }
  BenchmarkConfig c;
  c.threads = -3;
  REQUIRE_THROWS_WITH(c.validate(), Catch::StartsWith("config: 'threads': -3 is out of range"));
  c = BenchmarkConfig();
  c.min_time = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(c.validate(), Catch::StartsWith("config: 'min_time': inf is out of range"));
  c = BenchmarkConfig();
  c.warmup = neurobench::TimingOptions::kMaxWarmup + 1;
  REQUIRE_THROWS_WITH(c.validate(), Catch::StartsWith("config: 'warmup': 1000001 is out of range"));
}

TEST_CASE("a config cannot be written into a folder that does not exist", "[config]") {
  neurobench::test::TempDir dir;
  REQUIRE_THROWS_AS(BenchmarkConfig().write(dir / "no" / "bench.json"), neurobench::InputError);
}

TEST_CASE("loader and run options come from the config", "[config]") {
  BenchmarkConfig c = every_key("/tmp");
  const neurobench::LoaderOptions loader = c.loader_options();
  CHECK(loader.batch_size == 16);
  CHECK(*loader.shuffle_seed == 42);
  const neurobench::RunOptions run = c.run_options();
  CHECK(run.quiet);
  CHECK(run.verbose);
  CHECK(run.timing.warmup == 1);
  CHECK(run.timing.runs == 20);
  CHECK(run.timing.min_time_s == 0.25);
  CHECK(run.timing.max_time_s == 30);
  CHECK(run.timing.batch_size == 1);
  CHECK(run.timing.startup_runs == 3);
  CHECK(run.strict);
  CHECK(run.device == c10::Device(c10::DeviceType::CUDA, 1));
  CHECK(run.tf32);
  CHECK(run.metrics_scope == "net.encoder");
  CHECK(c.npz_options().max_array_bytes == std::uint64_t{1} << 20);
}

TEST_CASE("device and tf32 are config keys, and a device is checked as --device checks it",
          "[config][device]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "ok.json", R"({"device": "lazy", "tf32": true})");
  const BenchmarkConfig c = BenchmarkConfig::read(dir / "ok.json");
  CHECK(c.device == "lazy");
  CHECK(c.tf32);
  CHECK(c.run_options().device.type() == c10::DeviceType::Lazy);
  CHECK(BenchmarkConfig().device == "cpu");
  CHECK(BenchmarkConfig().run_options().device.is_cpu());
  CHECK_FALSE(BenchmarkConfig().run_options().tf32);
  CHECK_FALSE(BenchmarkConfig().to_json().contains("device"));
  CHECK_FALSE(BenchmarkConfig().to_json().contains("tf32"));
  CHECK_THAT(read_error(dir, R"({"device": "gpu"})"),
             Catch::Contains("'device'") && Catch::Contains("'gpu' is not a device"));
  CHECK_THAT(read_error(dir, R"({"device": "cuda:x"})"),
             Catch::Contains("'device'") && Catch::Contains("'x' is not a GPU index"));
  CHECK_THAT(read_error(dir, R"({"device": 0})"), Catch::Contains("'device' must be"));
  CHECK_THAT(read_error(dir, R"({"tf32": "on"})"), Catch::Contains("'tf32' must be true or false"));
  BenchmarkConfig bad;
  bad.device = "tpu";
  REQUIRE_THROWS_WITH(bad.validate(), Catch::StartsWith("config: 'device': 'tpu'"));
  CHECK_THAT(BenchmarkConfig::keys(), Catch::Contains("device, tf32"));
}

TEST_CASE("metrics_scope is a config key holding a submodule's path", "[config][metrics_scope]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "ok.json", R"({"metrics_scope": "net"})");
  const BenchmarkConfig c = BenchmarkConfig::read(dir / "ok.json");
  CHECK(c.metrics_scope == "net");
  CHECK(c.run_options().metrics_scope == "net");
  CHECK(c.to_json()["metrics_scope"] == "net");
  CHECK(BenchmarkConfig().run_options().metrics_scope.empty());
  CHECK_FALSE(BenchmarkConfig().to_json().contains("metrics_scope"));
  CHECK_THAT(read_error(dir, R"({"metrics_scope": ["net"]})"),
             Catch::Contains("'metrics_scope' must be a string"));
  CHECK_THAT(BenchmarkConfig::keys(), Catch::Contains("connection_modules, metrics_scope"));
}

TEST_CASE("strict and max_array_bytes are config keys with checked values", "[config]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "ok.json", R"({"strict": true, "max_array_bytes": 4096})");
  const BenchmarkConfig c = BenchmarkConfig::read(dir / "ok.json");
  CHECK(c.strict);
  CHECK(c.max_array_bytes == 4096);
  CHECK(BenchmarkConfig().max_array_bytes == neurobench::kDefaultMaxArrayBytes);
  CHECK_FALSE(BenchmarkConfig().to_json().contains("strict"));
  CHECK_FALSE(BenchmarkConfig().to_json().contains("max_array_bytes"));
  CHECK_THAT(read_error(dir, R"({"strict": "yes"})"),
             Catch::Contains("'strict' must be true or false"));
  const std::string range = "expected an integer from 1 to 9223372036854775807";
  CHECK(BenchmarkConfig::number_range("max_array_bytes") == range.substr(9));
  const std::pair<const char*, std::string> bad[] = {
      {R"({"max_array_bytes": 0})", "'max_array_bytes': 0 is out of range; " + range},
      {R"({"max_array_bytes": -1})", "'max_array_bytes': -1 is out of range; " + range},
      {R"({"max_array_bytes": 9223372036854775808})",
       "'max_array_bytes': 9223372036854775808 is out of range; " + range},
      {R"({"max_array_bytes": 1.5})", "'max_array_bytes': 1.5 is not an integer; " + range},
      {R"({"max_array_bytes": "1G"})", "'max_array_bytes': \"1G\" is not an integer; " + range},
  };
  for (const auto& [json, message] : bad) {
    INFO(json);
    CHECK_THAT(read_error(dir, json), Catch::Contains(message));
  }
  BenchmarkConfig flag;
  flag.set_number("max_array_bytes", "1048576", "--max-array-bytes");
  CHECK(flag.max_array_bytes == 1048576);
  REQUIRE_THROWS_WITH(flag.set_number("max_array_bytes", "0", "--max-array-bytes"),
                      "--max-array-bytes: 0 is out of range; " + range);
  BenchmarkConfig zero;
  zero.max_array_bytes = 0;
  REQUIRE_THROWS_WITH(zero.validate(),
                      Catch::StartsWith("config: 'max_array_bytes': 0 is out of range"));
}

TEST_CASE("a metric on the command line is a name, options after a colon",
          "[config][metric_spec]") {
  const MetricSpec plain = parse_metric_spec("Footprint");
  CHECK(plain.name == "Footprint");
  CHECK(plain.options == Json::object());

  const MetricSpec spec =
      parse_metric_spec("Latency:runs=5,scale=0.5,exact=true,off=false,sizes=[1,2],mode=fast");
  CHECK(spec.name == "Latency");
  CHECK(spec.options["runs"] == 5);
  CHECK(spec.options["runs"].is_number_integer());
  CHECK(spec.options["scale"] == 0.5);
  CHECK(spec.options["exact"] == true);
  CHECK(spec.options["off"] == false);
  CHECK(spec.options["sizes"] == Json::array({1, 2}));
  CHECK(spec.options["mode"] == "fast");
  // Options keep their order; quoted values are JSON strings, commas and colons included.
  CHECK(spec.options.begin().key() == "runs");
  CHECK(parse_metric_spec(R"(M:label="a,b:c",n="3")").options ==
        Json{{"label", "a,b:c"}, {"n", "3"}});
  CHECK(parse_metric_spec("M:path=/tmp/a=b").options["path"] == "/tmp/a=b");
  CHECK(parse_metric_spec("M:o={\"a\":1,\"b\":[2,3]}").options["o"] ==
        Json{{"a", 1}, {"b", {2, 3}}});
}

TEST_CASE("bad metric forms are UsageErrors that quote them", "[config][metric_spec]") {
  struct Case {
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"Name:", "no options after ':'"},
      {"Name:k", "option 'k' has no value"},
      {"Name:k=", "option 'k' has no value after '='"},
      {":k=v", "no metric name"},
      {"", "no metric name"},
      {"Name:=3", "has no key before '='"},
      {"Name:k=1,,j=2", "an empty option"},
      {"Name:k=1,k=2", "option 'k' is given twice"},
      {"Name=3", "options follow a ':'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    REQUIRE_THROWS_AS(parse_metric_spec(c.text), UsageError);
    REQUIRE_THROWS_WITH(parse_metric_spec(c.text),
                        Catch::Contains("'" + c.text + "'") && Catch::Contains(c.says));
  }
}

TEST_CASE("a list of metrics splits at commas that do not continue options",
          "[config][metric_spec]") {
  const auto specs = parse_metric_specs("Footprint, Latency:runs=5,percentiles=[50,99],SMAPE");
  REQUIRE(specs.size() == 3);
  CHECK(specs[0].name == "Footprint");
  CHECK(specs[1].name == "Latency");
  CHECK(specs[1].options == Json{{"runs", 5}, {"percentiles", {50, 99}}});
  CHECK(specs[2].name == "SMAPE");
  CHECK(specs[2].options == Json::object());

  REQUIRE_THROWS_WITH(parse_metric_specs("Footprint,k=1"),
                      Catch::Contains("option 'k=1' follows no metric with options"));
  REQUIRE_THROWS_WITH(parse_metric_specs("k=1"), Catch::Contains("follows no metric"));
  REQUIRE_THROWS_WITH(parse_metric_specs("A,,B"), Catch::Contains("an empty name"));
  REQUIRE_THROWS_WITH(parse_metric_specs("A,Name:"), Catch::Contains("no options after ':'"));
}

TEST_CASE("format_metric_spec writes what parse_metric_spec reads", "[config][metric_spec]") {
  const MetricSpec spec{"Latency", Json{{"runs", 5}, {"mode", "fast"}, {"sizes", {1, 2}}}};
  CHECK(neurobench::format_metric_spec(spec) == R"(Latency:runs=5,mode="fast",sizes=[1,2])");
  const MetricSpec back = parse_metric_spec(neurobench::format_metric_spec(spec));
  CHECK(back.name == spec.name);
  CHECK(back.options == spec.options);
  CHECK(neurobench::format_metric_spec({"Footprint"}) == "Footprint");
}

TEST_CASE("a config's dataset is an object of kind, path and options, or KIND:PATH",
          "[config][dataset]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "a.json", R"({"model": "net.pt", "dataset": {"kind": "speech-commands",
      "path": "data", "subset": "testing", "long_clips": "truncate"}})");
  const BenchmarkConfig a = BenchmarkConfig::read(dir / "a.json");
  CHECK(a.data.empty());
  CHECK(a.dataset.kind == "speech-commands");
  CHECK(a.dataset.path == dir / "data");  // from the config's folder
  CHECK(a.dataset.options == Json{{"subset", "testing"}, {"long_clips", "truncate"}});
  CHECK(a.to_json()["dataset"] == Json{{"kind", "speech-commands"},
                                       {"path", (dir / "data").string()},
                                       {"subset", "testing"},
                                       {"long_clips", "truncate"}});
  // Written back relative to the file's folder, and read back the same.
  a.write(dir / "b.json");
  const auto written = Json::parse(neurobench::test::read_file(dir / "b.json"));
  CHECK(written["dataset"]["path"] == "data");
  require_equal(BenchmarkConfig::read(dir / "b.json"), a);
  CHECK(BenchmarkConfig::from_json(a.to_json()).to_json() == a.to_json());

  write_config_file(dir / "c.json", R"({"dataset": "speech-commands:gsc/speech_commands_v0.02"})");
  const BenchmarkConfig c = BenchmarkConfig::read(dir / "c.json");
  CHECK(c.dataset.kind == "speech-commands");
  CHECK(c.dataset.path == dir / "gsc/speech_commands_v0.02");
  CHECK(c.dataset.options == Json::object());
}

TEST_CASE("a config's dataset errors name the file and the key", "[config][dataset]") {
  neurobench::test::TempDir dir;
  const std::string file = (dir / "bad.json").string();
  CHECK(read_error(dir, R"({"data": "t.npz", "dataset": "speech-commands:gsc"})") ==
        file + ": 'data' (" + (dir / "t.npz").string() +
            ") and 'dataset' (speech-commands) are both set: give one, an .npz file or a data "
            "set by kind");
  CHECK(read_error(dir, R"({"dataset": "gsc"})") ==
        file +
            ": 'dataset': data set 'gsc': no ':' between the kind and the path (write "
            "KIND:PATH, such as speech-commands:data/speech_commands_v0.02; kinds: "
            "speech-commands, dvs-gesture, primate-reaching, wisdm, thor-eeg-mi, mswc, "
            "gen4-detection)");
  CHECK(read_error(dir, R"({"dataset": {"path": "gsc"}})") ==
        file + ": 'dataset' must be an object with \"kind\" and \"path\", got {\"path\":\"gsc\"}");
  CHECK(read_error(dir, R"({"dataset": {"kind": "speech-commands"}})") ==
        file +
            ": 'dataset' must be an object with \"kind\" and \"path\", got "
            "{\"kind\":\"speech-commands\"}");
  CHECK(read_error(dir, R"({"dataset": {"kind": "speech-commands", "path": ""}})") ==
        file + ": 'dataset.path' must be a path, got \"\"");
  CHECK(read_error(dir, R"({"dataset": {"kind": 3, "path": "gsc"}})") ==
        file + ": 'dataset.kind' must be a string, got 3");
  CHECK(read_error(dir, R"({"dataset": 3})") ==
        file +
            ": 'dataset' must be an object {\"kind\": ..., \"path\": ..., options...} or "
            "\"KIND:PATH\", got 3");
  // In memory, validate() refuses what a file could not hold.
  BenchmarkConfig c;
  c.dataset = {"speech-commands", "", Json::object()};
  CHECK_THROWS_WITH(c.validate(), "config: 'dataset.path' must be a path, got \"\"");
  c.dataset = {"speech-commands", "gsc", Json{{"path", "x"}}};
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("'dataset' has an option named 'path'"));
  c.dataset = {"", "gsc", Json::object()};
  CHECK_THROWS_AS(c.validate(), UsageError);
}

TEST_CASE("pre- and post-processors in a config take options like metrics", "[config]") {
  neurobench::test::TempDir dir;
  write_config_file(dir / "a.json", R"({"pre": ["Flatten", {"name": "MFCCPreProcessor",
      "options": {"n_mfcc": 20, "melkwargs": {"n_fft": 512}}}], "post": ["Argmax"]})");
  const BenchmarkConfig a = BenchmarkConfig::read(dir / "a.json");
  REQUIRE(a.pre.size() == 2);
  CHECK(a.pre[0].name == "Flatten");
  CHECK(a.pre[0].options == Json::object());
  CHECK(a.pre[1].name == "MFCCPreProcessor");
  CHECK(a.pre[1].options == Json{{"n_mfcc", 20}, {"melkwargs", {{"n_fft", 512}}}});
  CHECK(a.to_json()["pre"].dump() ==
        R"(["Flatten",{"name":"MFCCPreProcessor",)"
        R"("options":{"n_mfcc":20,"melkwargs":{"n_fft":512}}}])");
  CHECK(read_error(dir, R"({"pre": ["S2SPreProcessor:threshold=1"]})") ==
        (dir / "bad.json").string() +
            ": 'pre[0]' is \"S2SPreProcessor:threshold=1\": Name:key=value is the command "
            "line's form; a config writes {\"name\":\"S2SPreProcessor\",\"options\":"
            "{\"threshold\":1}}");
  CHECK(read_error(dir, R"({"post": [{"name": "Argmax", "opts": {}}]})") ==
        (dir / "bad.json").string() +
            ": unknown key 'post[0].opts' (a processor has name and options)");
  CHECK(read_error(dir, R"({"post": [{"name": "Argmax", "options": [1]}]})") ==
        (dir / "bad.json").string() + ": 'post[0].options' must be an object, got [1]");
  BenchmarkConfig c;
  c.post = {""};
  CHECK_THROWS_WITH(c.validate(), "config: 'post[0]' must be a processor with a name, got \"\"");
}

TEST_CASE("a processor on the command line is a name, options after a colon, as a metric",
          "[config][metric_spec]") {
  const auto specs = neurobench::parse_plugin_specs(
      R"(S2SPreProcessor:threshold=1,)"
      R"(MFCCPreProcessor:n_mfcc=20,melkwargs={"n_fft":512,"hop_length":80})",
      "pre-processor");
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].name == "S2SPreProcessor");
  CHECK(specs[0].options == Json{{"threshold", 1}});
  CHECK(specs[1].options ==
        Json{{"n_mfcc", 20}, {"melkwargs", {{"n_fft", 512}, {"hop_length", 80}}}});
  CHECK(neurobench::format_plugin_spec(specs[1]) ==
        R"(MFCCPreProcessor:n_mfcc=20,melkwargs={"n_fft":512,"hop_length":80})");
  CHECK_THROWS_WITH(neurobench::parse_plugin_spec("S2S:", "pre-processor"),
                    "pre-processor 'S2S:': no options after ':' (write Name or "
                    "Name:key=value,key=value)");
  CHECK_THROWS_WITH(neurobench::parse_plugin_specs("A,,B", "post-processor"),
                    Catch::StartsWith("post-processors 'A,,B': an empty name"));
  // A name converts to a spec without options, and a spec to a config's JSON.
  const std::vector<neurobench::PluginSpec> post = {"ChooseMaxCount", "Argmax"};
  CHECK(Json(post).dump() == R"(["ChooseMaxCount","Argmax"])");
  CHECK(Json(specs[0]).dump() == R"({"name":"S2SPreProcessor","options":{"threshold":1}})");
}

TEST_CASE("outputs name results formats of the formats' table", "[config]") {
  BenchmarkConfig c;
  c.outputs["xml"] = "r.xml";
  REQUIRE_THROWS_AS(c.validate(), UsageError);
  REQUIRE_THROWS_WITH(c.validate(), "config: unknown key 'outputs.xml' (formats: json, csv, text)");
  c.outputs.erase("xml");
  for (const auto& format : neurobench::results_formats()) {
    c.outputs[format.name] = "r" + format.extensions.front();
  }
  CHECK_NOTHROW(c.validate());
  CHECK(c.to_json()["outputs"] == Json{{"csv", "r.csv"}, {"json", "r.json"}, {"text", "r.txt"}});
}
