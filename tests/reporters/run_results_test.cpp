// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/run_results.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "reporters/report_support.hpp"

using neurobench::FlatValue;
using neurobench::test::write;
using nlohmann::ordered_json;

TEST_CASE("results files load flat, with metadata, and wrapped in 'results'", "[report]") {
  neurobench::test::TempDir dir;
  SECTION("the flat format of run --json, with _run and _environment") {
    const auto r = neurobench::load_run_results(neurobench::test::fixture("report/cnn_relu.json"));
    REQUIRE(r.label == "cnn_relu");
    REQUIRE_THAT(r.source, Catch::EndsWith("cnn_relu.json"));
    REQUIRE(r.metrics.begin().key() == "Footprint");
    REQUIRE_FALSE(r.metrics.contains("_run"));
    REQUIRE_FALSE(r.metrics.contains("_environment"));
    REQUIRE(r.run["batch_size"] == 256);
    REQUIRE(r.environment["cpu"] == "AMD EPYC 7B13");
  }
  SECTION("a flat object without metadata; other _ keys are ignored") {
    const auto r = neurobench::load_run_results(
        write(dir, "old.json", R"({"Footprint": 10, "_comment": "x", "MSE": null})"), "mine");
    REQUIRE(r.label == "mine");
    REQUIRE(r.metrics.size() == 2);
    REQUIRE(r.run.is_null());
    REQUIRE(r.environment.is_null());
    REQUIRE(neurobench::lookup(r, "MSE").state == FlatValue::State::Failed);
  }
  SECTION("{\"results\": {...}} with metadata inside or beside it") {
    const auto r = neurobench::load_run_results(write(
        dir, "wrapped.json",
        R"({"case": "c1", "results": {"SynapticOperations": {"Dense": 5}, "_run": {"samples": 3}},
            "_environment": {"cpu": "X"}})"));
    REQUIRE(r.label == "wrapped");
    REQUIRE(neurobench::lookup(r, "SynapticOperations.Dense").number == 5);
    REQUIRE(neurobench::lookup(r, "case").state == FlatValue::State::Missing);
    REQUIRE(r.run["samples"] == 3);
    REQUIRE(r.environment["cpu"] == "X");
  }
}

TEST_CASE("a bad results file is an InputError that names the file and the fault", "[report]") {
  neurobench::test::TempDir dir;
  struct Case {
    std::string name;
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"bad.json", "{\"Footprint\": 1,", "not valid JSON"},
      {"array.json", "[1, 2]", "found an array"},
      {"empty.json", "{}", "no metrics"},
      {"only_meta.json", R"({"_run": {}})", "no metrics"},
      {"results_number.json", R"({"results": 5})", "'results' is number"},
      {"string_metric.json", R"({"Footprint": "big"})", "metric 'Footprint' is a string"},
      {"nested_array.json", R"({"Latency": {"runs": [1, 2]}})", "'Latency.runs' is an array"},
      {"bad_run.json", R"({"Footprint": 1, "_run": "yesterday"})", "'_run' is string"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const auto path = write(dir, c.name, c.text);
    REQUIRE_THROWS_AS(neurobench::load_run_results(path), neurobench::InputError);
    REQUIRE_THROWS_WITH(neurobench::load_run_results(path),
                        Catch::Contains(c.name) && Catch::Contains(c.says));
  }
  REQUIRE_THROWS_AS(neurobench::load_run_results(dir / "missing.json"), neurobench::InputError);
  REQUIRE_THROWS_WITH(neurobench::load_run_results(dir / "missing.json"),
                      Catch::Contains("missing.json") && Catch::Contains("no such"));
  REQUIRE_THROWS_WITH(neurobench::load_run_results(dir.path()), Catch::Contains("directory"));
}

TEST_CASE("runs are labelled by file stem, and duplicate labels are told apart", "[report]") {
  neurobench::test::TempDir dir;
  const auto a = write(dir, "base/results.json", R"({"Footprint": 1})");
  const auto b = write(dir, "pr/results.json", R"({"Footprint": 2})");
  const auto c = write(dir, "pr/other.json", R"({"Footprint": 3})");
  auto runs = neurobench::load_run_results({a, b, c});
  REQUIRE(runs[0].label == "base/results");
  REQUIRE(runs[1].label == "pr/results");
  REQUIRE(runs[2].label == "other");

  runs = neurobench::load_run_results({a, a, c});  // same folder: numbered
  REQUIRE(runs[0].label == "results");
  REQUIRE(runs[1].label == "results (2)");

  runs = neurobench::load_run_results({a, b}, {"x", "x"});
  REQUIRE(runs[0].label != runs[1].label);

  runs = neurobench::load_run_results({a, b}, {"before", "after"});
  REQUIRE(runs[1].label == "after");

  REQUIRE_THROWS_AS(neurobench::load_run_results({a, b}, {"one"}), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::load_run_results({a, b}, {"one"}),
                      Catch::Contains("1 labels") && Catch::Contains("2 results files"));
  REQUIRE_THROWS_AS(neurobench::load_run_results(std::vector<std::filesystem::path>{}),
                    neurobench::UsageError);
}

TEST_CASE("flattening joins nested keys with dots and keeps failed values", "[report]") {
  const auto flat = neurobench::flatten_metrics(ordered_json::parse(
      R"({"A": 1, "B": {"x": 2, "y": {"z": null}}, "_run": {"q": 1}, "E": {}})"));
  REQUIRE(flat.size() == 3);
  REQUIRE(flat[0].key == "A");
  REQUIRE(flat[1].key == "B.x");
  REQUIRE(flat[1].number == 2);
  REQUIRE(flat[2].key == "B.y.z");
  REQUIRE(flat[2].state == FlatValue::State::Failed);
}

TEST_CASE("the _metrics block is read into descriptions, in the file's order", "[report]") {
  const auto r = neurobench::test::run_of("new", R"({
      "ClassificationAccuracy": 0.9, "DenseMACs": {"MACs": 10, "FLOPs": 20}, "SpikeRate": 0.1,
      "_run": {"samples": 3},
      "_metrics": {
        "ClassificationAccuracy": {"kind": "workload", "description": "fraction correct",
                                   "unit": "fraction", "better": "higher", "source": "built-in"},
        "DenseMACs": {"kind": "workload", "unit": "ops/sample", "better": "lower",
                      "keys": {"MACs": {"unit": "MACs/sample", "better": "lower",
                                        "description": "multiply-accumulates"},
                               "FLOPs": {"unit": "FLOPs/sample", "better": "lower"}}},
        "SpikeRate": {"description": "a user's own metric", "unit": "spikes/step",
                      "better": "lower", "source": "/path/libmymetrics.so"}}})");
  REQUIRE(r.metrics.size() == 3);
  REQUIRE_FALSE(r.metrics.contains("_metrics"));
  REQUIRE(r.descriptions.size() == 3);
  REQUIRE(r.descriptions[0].name == "ClassificationAccuracy");
  REQUIRE(r.descriptions[0].value.better == neurobench::Better::Higher);
  REQUIRE(r.descriptions[0].source == "built-in");
  const auto& macs = r.descriptions[1];
  REQUIRE(macs.name == "DenseMACs");
  REQUIRE(macs.keys.size() == 2);
  REQUIRE(macs.describe_key("MACs").unit == "MACs/sample");
  REQUIRE(macs.describe_key("MACs").description == "multiply-accumulates");
  const auto& spikes = r.descriptions[2];
  REQUIRE(spikes.name == "SpikeRate");
  REQUIRE(spikes.description == "a user's own metric");
  REQUIRE(spikes.value.unit == "spikes/step");
  REQUIRE(spikes.value.better == neurobench::Better::Lower);
  REQUIRE(spikes.kind.empty());
  REQUIRE(spikes.source == "/path/libmymetrics.so");

  SECTION("beside 'results', like _run and _environment") {
    const auto wrapped = neurobench::test::run_of("wrapped", R"({"results": {"SpikeRate": 1},
        "_metrics": {"SpikeRate": {"unit": "spikes/step", "better": "lower"}}})");
    REQUIRE(wrapped.descriptions.size() == 1);
    REQUIRE(wrapped.descriptions[0].value.unit == "spikes/step");
  }
  SECTION("files written before _metrics existed have no descriptions") {
    REQUIRE(neurobench::load_run_results(neurobench::test::fixture("report/cnn_relu.json"))
                .descriptions.empty());
    REQUIRE(neurobench::test::run_of("null", R"({"A": 1, "_metrics": null})").descriptions.empty());
  }
}

TEST_CASE("a malformed _metrics is an InputError naming the file and the entry", "[report]") {
  neurobench::test::TempDir dir;
  struct Case {
    std::string name;
    std::string metrics;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"array.json", R"([1, 2])", {"'_metrics' is array", "expected an object"}},
      {"entry.json", R"({"SpikeRate": 5})", {"_metrics.SpikeRate", "not an object"}},
      {"better.json",
       R"({"SpikeRate": {"better": "up"}})",
       {"_metrics.SpikeRate", "'up' is not a direction"}},
      {"unit.json", R"({"SpikeRate": {"unit": 3}})", {"_metrics.SpikeRate", "'unit'"}},
      {"keys.json", R"({"DenseMACs": {"keys": [1]}})", {"_metrics.DenseMACs", "'keys'"}},
      {"key.json",
       R"({"DenseMACs": {"keys": {"MACs": {"better": 1}}}})",
       {"_metrics.DenseMACs.keys.MACs", "'better'"}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const auto path = write(dir, c.name, R"({"SpikeRate": 1, "_metrics": )" + c.metrics + "}");
    REQUIRE_THROWS_AS(neurobench::load_run_results(path), neurobench::InputError);
    for (const auto& part : c.says) {
      REQUIRE_THROWS_WITH(neurobench::load_run_results(path),
                          Catch::Contains(c.name) && Catch::Contains(part));
    }
  }
}
