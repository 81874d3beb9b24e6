// SPDX-License-Identifier: Apache-2.0
// NaN and infinities in results: written as "NaN", "Infinity", "-Infinity" (a failed metric is
// null), warned about by the run, read back and shown by report and compare.
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/reporters/report.hpp>
#include <neurobench/reporters/results.hpp>

#include "reporters/report_support.hpp"

using neurobench::FlatValue;
using neurobench::Json;
using neurobench::test::row;
using neurobench::test::run_of;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Results as a Benchmark run leaves them (an environment, so `_run` is written).
neurobench::Results with_non_finite() {
  neurobench::Results r;
  r.environment.date = "2024-01-01";
  r.values["Footprint"] = 10;
  r.values["SMAPE"] = kNaN;
  r.values["Latency"] = {{"batch_mean_ms", kInf}, {"batch_p90_ms", 2.5}};
  r.values["Layers"] = {{"a", Json::array({1.0, -kInf})}, {"b", {{"c", kNaN}}}};
  r.values["MembraneUpdates"] = nullptr;
  r.failures.push_back({"MembraneUpdates", "MembraneUpdates: no spiking layers"});
  return r;
}

// A workload metric whose value is NaN, and one with infinities among finite values.
class AlwaysNaN final : public neurobench::WorkloadMetric {
 public:
  Json operator()(const neurobench::WorkloadInput&) override { return kNaN; }
};

class SomeInfinite final : public neurobench::WorkloadMetric {
 public:
  Json operator()(const neurobench::WorkloadInput&) override {
    return Json{{"finite", 1.0}, {"up", kInf}, {"down", -kInf}};
  }
};

}  // namespace

TEST_CASE("non-finite values are written as strings, failed metrics as null, in every format",
          "[report][nan]") {
  const auto r = with_non_finite();
  const Json doc = Json::parse(neurobench::render(r, "json"));
  REQUIRE(doc["Footprint"] == 10);
  REQUIRE(doc["SMAPE"] == "NaN");
  REQUIRE(doc["Latency"]["batch_mean_ms"] == "Infinity");
  REQUIRE(doc["Latency"]["batch_p90_ms"] == 2.5);
  REQUIRE(doc["Layers"]["a"] == Json::array({1.0, "-Infinity"}));
  REQUIRE(doc["Layers"]["b"]["c"] == "NaN");
  REQUIRE(doc["MembraneUpdates"].is_null());
  REQUIRE(doc["_run"]["non_finite"] ==
          Json::array({"SMAPE", "Latency.batch_mean_ms", "Layers.a[1]", "Layers.b.c"}));
  REQUIRE(doc["_run"]["failures"].contains("MembraneUpdates"));
  // The in-memory results keep the numbers themselves.
  REQUIRE(std::isnan(r.values["SMAPE"].get<double>()));

  const std::string csv = neurobench::render(r, "csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string values = csv.substr(csv.find('\n') + 1);
  REQUIRE_THAT(header, Catch::StartsWith("Footprint,SMAPE,Latency.batch_mean_ms,Latency.batch_p90_ms,"
                                         "Layers.a,Layers.b.c,MembraneUpdates,"));
  REQUIRE_THAT(values, Catch::StartsWith("10,NaN,Infinity,2.5,\"[1.0,\"\"-Infinity\"\"]\",NaN,,"));

  const std::string text = neurobench::render(r, "text");
  REQUIRE_THAT(text, Catch::Contains("SMAPE: NaN\n") &&
                         Catch::Contains(R"(Latency: {"batch_mean_ms":"Infinity","batch_p90_ms":2.5})") &&
                         Catch::Contains("MembraneUpdates: \n"));

  const std::string table = neurobench::render_table(r);
  REQUIRE_THAT(table, Catch::Contains("SMAPE                  NaN\n") &&
                          Catch::Contains("Latency.batch_mean_ms  Infinity\n") &&
                          Catch::Contains("MembraneUpdates        FAILED\n"));
}

TEST_CASE("a run warns about each metric with a non-finite value, exit status unchanged",
          "[report][nan][benchmark]") {
  auto model = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("core/classifier.pt"));
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
  neurobench::MetricSet metrics;
  metrics.workload_metrics.push_back(std::make_unique<AlwaysNaN>());
  metrics.workload_metrics.push_back(std::make_unique<SomeInfinite>());
  neurobench::RunOptions options;
  options.quiet = true;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data), {}, {}, std::move(metrics));
  const neurobench::Results r = bench.run(options);
  REQUIRE(r.ok());  // not a failure
  REQUIRE(r.warnings.size() == 2);
  REQUIRE_THAT(r.warnings[0], Catch::StartsWith("metric 'AlwaysNaN' is NaN, not a finite number: "
                                                "written as \"NaN\""));
  REQUIRE_THAT(r.warnings[1],
               Catch::StartsWith("metric 'SomeInfinite' has 2 values that are not a finite "
                                 "number: SomeInfinite.up = Infinity, SomeInfinite.down = "
                                 "-Infinity; ") &&
                   Catch::Contains("_run.non_finite"));
  const Json doc = neurobench::results_document(r);
  REQUIRE(doc["_run"]["non_finite"] ==
          Json::array({"AlwaysNaN", "SomeInfinite.up", "SomeInfinite.down"}));
  REQUIRE(doc["_run"]["warnings"].size() == 2);
}

TEST_CASE("neurobench run writes NaN as \"NaN\", warns on stderr and exits 0", "[cli][nan]") {
  neurobench::test::TempDir dir;
  const auto data = dir / "nan_targets.npz";
  neurobench::save_npz(data, {{"data", torch::randn({12, 3})},
                              {"targets", torch::full({12, 2}, kNaN)}});
  const auto r = neurobench::test::run_cli(
      "run --model " + neurobench::test::q(neurobench::test::fixture("core/regressor.pt")) +
      " --data " + neurobench::test::q(data) + " --workload MSE --static Footprint -q --json " +
      neurobench::test::q(dir / "r.json") + " --csv " + neurobench::test::q(dir / "r.csv"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.err, Catch::Contains("warning: metric 'MSE' is NaN, not a finite number"));
  REQUIRE_THAT(r.out, Catch::Contains("MSE        NaN"));
  const Json doc = Json::parse(neurobench::test::read_file(dir / "r.json"));
  REQUIRE(doc["MSE"] == "NaN");
  REQUIRE(doc["_run"]["non_finite"] == Json::array({"MSE"}));
  REQUIRE(doc["_run"]["failures"].empty());
  REQUIRE_THAT(neurobench::test::read_file(dir / "r.csv"), Catch::Contains(",NaN,"));
  // report and compare read it back as NaN, not as a failure.
  const auto report = neurobench::test::run_cli("report " + neurobench::test::q(dir / "r.json"));
  REQUIRE(report.status == 0);
  REQUIRE_THAT(report.out, Catch::Contains("| NaN |") && !Catch::Contains("failed"));
}

TEST_CASE("neurobench run --strict: a non-finite metric value is an error, exit 2, no file",
          "[cli][nan][strict]") {
  // Finite data whose products overflow float: MSE is infinite (or NaN), the inputs are not.
  neurobench::test::TempDir dir;
  const auto data = dir / "huge.npz";
  neurobench::save_npz(data, {{"data", torch::full({12, 3}, 3e38F)},
                              {"targets", torch::zeros({12, 2})}});
  const std::string args =
      "run --model " + neurobench::test::q(neurobench::test::fixture("core/regressor.pt")) +
      " --data " + neurobench::test::q(data) + " --workload MSE -q --json " +
      neurobench::test::q(dir / "r.json");
  const auto lenient = neurobench::test::run_cli(args);
  INFO(lenient.err);
  REQUIRE(lenient.status == 0);
  REQUIRE_THAT(lenient.err, Catch::Contains("warning: metric 'MSE' ") &&
                                !Catch::Contains("non-finite value"));  // inputs are finite
  REQUIRE(Json::parse(neurobench::test::read_file(dir / "r.json"))["_run"]["non_finite"] ==
          Json::array({"MSE"}));
  std::filesystem::remove(dir / "r.json");

  const auto strict = neurobench::test::run_cli(args + " --strict");
  INFO(strict.err);
  REQUIRE(strict.status == 2);
  REQUIRE_THAT(strict.err, Catch::Contains("error: metric 'MSE' ") &&
                               Catch::Contains("error: --strict: 1 warning above; no results "
                                               "file written") &&
                               !Catch::Contains("warning: "));
  REQUIRE_FALSE(std::filesystem::exists(dir / "r.json"));
  REQUIRE_THAT(strict.out, !Catch::Contains("MSE"));  // no table either
}

TEST_CASE("results files with non-finite strings load, other strings and old nulls as before",
          "[report][nan]") {
  const auto r = run_of("r", R"({"A": "NaN", "B": {"x": "Infinity", "y": "-Infinity"},
                                 "C": null, "D": 1})");
  const neurobench::FlatValue a = neurobench::lookup(r, "A");
  REQUIRE(a.state == FlatValue::State::Number);
  REQUIRE(std::isnan(a.number));
  REQUIRE(neurobench::lookup(r, "B.x").number == kInf);
  REQUIRE(neurobench::lookup(r, "B.y").number == -kInf);
  REQUIRE(neurobench::lookup(r, "C").state == FlatValue::State::Failed);
  for (const char* bad : {R"({"A": "nan"})", R"({"A": "inf"})", R"({"A": {"x": "fast"}})"}) {
    INFO(bad);
    REQUIRE_THROWS_AS(run_of("bad", bad), neurobench::InputError);
    REQUIRE_THROWS_WITH(run_of("bad", bad),
                        Catch::Contains("is a string (") && Catch::Contains("\"NaN\""));
  }
  REQUIRE(neurobench::format_number(kNaN) == "NaN");
  REQUIRE(neurobench::format_number(-kInf) == "-Infinity");
}

TEST_CASE("reports show NaN and infinities apart from failed metrics", "[report][nan]") {
  const std::vector<neurobench::RunResults> runs = {
      run_of("base", R"({"ClassificationAccuracy": 0.9, "MSE": 0.5, "Footprint": 10})"),
      run_of("new", R"({"ClassificationAccuracy": "NaN", "MSE": null, "Footprint": "Infinity"})")};
  const std::string md = neurobench::render_markdown_report(runs);
  REQUIRE_THAT(md, Catch::Contains("| new | NaN | Infinity |"));
  REQUIRE_THAT(md, Catch::Contains("| MSE | squared target units | 0.5 | failed | n/a |"));
  const std::string html = neurobench::render_html_report(runs);
  REQUIRE_THAT(html, Catch::Contains("data-state=\"nonfinite\" data-value=\"NaN\""));
  REQUIRE_THAT(html, Catch::Contains("data-state=\"nonfinite\" data-value=\"Infinity\""));
  REQUIRE_THAT(html, Catch::Contains("data-state=\"failed\""));
  REQUIRE(neurobench::test::count(html, "data-state=\"nonfinite\"") == 2);
}

TEST_CASE("compare: a value that becomes NaN or infinite is a regression, whatever the gate",
          "[report][nan]") {
  neurobench::CompareOptions lenient;
  lenient.fail_above_percent = 1e9;
  const auto a = run_of("a", R"({"MyMetric": 1, "Footprint": 10, "Same": "NaN", "Was": "NaN",
                                 "Inf": "Infinity", "Failed": null})");
  const auto b = run_of("b", R"({"MyMetric": "NaN", "Footprint": "-Infinity", "Same": "NaN",
                                 "Was": 3, "Inf": "-Infinity", "Failed": "NaN", "New": "Infinity"})");
  const auto rows = neurobench::compare(a, b, lenient);
  REQUIRE(row(rows, "MyMetric").regression);  // no direction, yet a regression
  REQUIRE_FALSE(row(rows, "MyMetric").has_difference);
  REQUIRE(row(rows, "Footprint").regression);  // lower is better, -inf is still no number
  REQUIRE_FALSE(row(rows, "Same").regression);
  REQUIRE_FALSE(row(rows, "Was").regression);
  REQUIRE(row(rows, "Inf").regression);
  REQUIRE(row(rows, "Failed").regression);
  REQUIRE(row(rows, "New").regression);
  REQUIRE(neurobench::comparison_failed(rows, lenient));
  const std::string table = neurobench::render_comparison(rows, a, b, lenient);
  REQUIRE_THAT(table, Catch::Contains("<< REGRESSION (not a finite number)"));
  REQUIRE_THAT(table, Catch::Contains(
                          "5 regressions above 1e9%: MyMetric, Footprint, Inf, Failed, New"));
  // Reversed, the NaN values are in a: getting a number back is no regression.
  REQUIRE_FALSE(row(neurobench::compare(b, a, lenient), "MyMetric").regression);
}
