// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/compare.hpp>

#include <string>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "reporters/report_support.hpp"

using neurobench::FlatValue;
using neurobench::test::row;
using neurobench::test::run_of;

TEST_CASE("compare flags a regression only in the worse direction beyond the threshold",
          "[report]") {
  const auto a = run_of("a", R"({"ClassificationAccuracy": 0.9, "Latency": {"batch_p90_ms": 100},
                                 "Throughput": {"samples_per_s": 1000}, "MyMetric": 1})");
  SECTION("higher is better: a drop is a regression, a rise is not") {
    const auto worse = run_of("b", R"({"ClassificationAccuracy": 0.8})");
    const auto rows = neurobench::compare(a, worse);
    const auto& acc = row(rows, "ClassificationAccuracy");
    REQUIRE(acc.has_difference);
    REQUIRE(acc.difference == Approx(-0.1));
    REQUIRE(acc.percent == Approx(-100.0 / 9));
    REQUIRE(acc.regression);
    REQUIRE(neurobench::has_regression(rows));
    REQUIRE_FALSE(row(neurobench::compare(worse, a), "ClassificationAccuracy").regression);
  }
  SECTION("lower is better: a rise is a regression, a fall is not") {
    const auto slower = run_of("b", R"({"Latency": {"batch_p90_ms": 120}})");
    REQUIRE(row(neurobench::compare(a, slower), "Latency.batch_p90_ms").regression);
    REQUIRE(row(neurobench::compare(a, slower), "Latency.batch_p90_ms").percent == Approx(20));
    REQUIRE_FALSE(row(neurobench::compare(slower, a), "Latency.batch_p90_ms").regression);
    const auto slower_throughput = run_of("b", R"({"Throughput": {"samples_per_s": 900}})");
    REQUIRE(row(neurobench::compare(a, slower_throughput), "Throughput.samples_per_s").regression);
  }
  SECTION("a change of exactly the threshold is not a regression, a little more is") {
    neurobench::CompareOptions options;
    options.fail_above_percent = 5;
    const auto at = run_of("b", R"({"Latency": {"batch_p90_ms": 105}})");
    const auto above = run_of("c", R"({"Latency": {"batch_p90_ms": 105.01}})");
    REQUIRE_FALSE(row(neurobench::compare(a, at, options), "Latency.batch_p90_ms").regression);
    REQUIRE(row(neurobench::compare(a, above, options), "Latency.batch_p90_ms").regression);
    options.fail_above_percent = 10;
    REQUIRE_FALSE(row(neurobench::compare(a, above, options), "Latency.batch_p90_ms").regression);
    options.fail_above_percent = 0;
    const auto tiny = run_of("d", R"({"Latency": {"batch_p90_ms": 100.001}})");
    REQUIRE(row(neurobench::compare(a, tiny, options), "Latency.batch_p90_ms").regression);
    REQUIRE_FALSE(row(neurobench::compare(a, a, options), "Latency.batch_p90_ms").regression);
  }
  SECTION("metrics without a direction never regress") {
    const auto b = run_of("b", R"({"MyMetric": 1000, "Latency": {"runs": 1}})");
    REQUIRE_FALSE(row(neurobench::compare(a, b), "MyMetric").regression);
    REQUIRE(row(neurobench::compare(a, b), "MyMetric").percent == Approx(99900));
  }
}

TEST_CASE("compare handles zeros, missing and failed values without dividing by zero", "[report]") {
  const auto a = run_of("a", R"({"ConnectionSparsity": 0, "SynapticOperations":
                                 {"Effective_ACs": 0, "Effective_MACs": 0}, "MSE": 0.5,
                                 "Footprint": 100})");
  const auto b = run_of("b", R"({"ConnectionSparsity": 0, "SynapticOperations":
                                 {"Effective_ACs": 10, "Effective_MACs": 0}, "MSE": null,
                                 "R2": 0.9})");
  neurobench::CompareOptions options;
  options.fail_above_percent = 1e9;
  const auto rows = neurobench::compare(a, b, options);
  REQUIRE(rows.size() == 6);

  const auto& same = row(rows, "ConnectionSparsity");
  REQUIRE(same.has_percent);
  REQUIRE(same.percent == 0);
  REQUIRE_FALSE(same.regression);

  const auto& fresh = row(rows, "SynapticOperations.Effective_ACs");  // 0 -> 10, lower is better
  REQUIRE(fresh.has_difference);
  REQUIRE(fresh.difference == 10);
  REQUIRE_FALSE(fresh.has_percent);
  REQUIRE(fresh.regression);  // whatever the threshold

  const auto& failed = row(rows, "MSE");
  REQUIRE(failed.b.state == FlatValue::State::Failed);
  REQUIRE_FALSE(failed.has_difference);
  REQUIRE_FALSE(failed.regression);

  REQUIRE(row(rows, "Footprint").b.state == FlatValue::State::Missing);
  REQUIRE(row(rows, "R2").a.state == FlatValue::State::Missing);
  REQUIRE(rows.back().key == "R2");  // b's new keys come after a's

  const std::string table = neurobench::render_comparison(rows, a, b, options);
  REQUIRE_THAT(table, Catch::Contains("FAILED") && Catch::Contains("missing") &&
                          Catch::Contains("new") && Catch::Contains("REGRESSION"));
  REQUIRE_THAT(table, Catch::Contains("1 regression above 1e9%: SynapticOperations.Effective_ACs"));
}

TEST_CASE("compare can be restricted to metric prefixes, and checks its options", "[report]") {
  const auto a = run_of("a", R"({"Footprint": 1, "Latency": {"batch_p90_ms": 1, "runs": 3}})");
  const auto b = run_of("b", R"({"Footprint": 9, "Latency": {"batch_p90_ms": 1, "runs": 3}})");
  neurobench::CompareOptions options;
  options.metrics = {"latency.batch"};
  const auto rows = neurobench::compare(a, b, options);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].key == "Latency.batch_p90_ms");
  REQUIRE_FALSE(neurobench::has_regression(rows));

  options.metrics = {"Latncy"};
  REQUIRE_THROWS_AS(neurobench::compare(a, b, options), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::compare(a, b, options), Catch::Contains("'Latncy'"));
  options.metrics = {};
  options.fail_above_percent = -1;
  REQUIRE_THROWS_AS(neurobench::compare(a, b, options), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::compare(a, b, options), Catch::Contains("fail_above_percent"));
}

TEST_CASE("the comparison table aligns columns and marks regressions", "[report]") {
  const auto a = run_of("base", R"({"ClassificationAccuracy": 0.9, "Footprint": 1000})");
  const auto b = run_of("new", R"({"ClassificationAccuracy": 0.5, "Footprint": 900})");
  const auto text = neurobench::render_comparison(neurobench::compare(a, b), a, b);
  REQUIRE(text ==
          "A: base (base.json)\n"
          "B: new (new.json)\n"
          "\n"
          "metric                  unit      base  new  diff   %diff\n"
          "----------------------  --------  ----  ---  ----  ------\n"
          "ClassificationAccuracy  fraction   0.9  0.5  -0.4  -44.4%  << REGRESSION (higher is "
          "better)\n"
          "Footprint               bytes     1000  900  -100  -10.0%  better\n"
          "\n"
          "1 regression above 5%: ClassificationAccuracy\n");
}

TEST_CASE("the comparison notes runs whose metrics scopes differ", "[report][metrics_scope]") {
  const auto whole = run_of("whole", R"({"Footprint": 1000})");
  const auto net = run_of("net", R"({"Footprint": 900, "_run": {"metrics_scope": "net"}})");
  const auto text = neurobench::render_comparison(neurobench::compare(whole, net), whole, net);
  REQUIRE_THAT(text, Catch::StartsWith("A: whole (whole.json)\n"
                                       "B: net (net.json)\n"
                                       "note: the metrics scopes differ: A's static and layer "
                                       "metrics measure the whole model, B's submodule 'net'; "
                                       "their footprints, sparsities and operations are not "
                                       "comparable\n\nmetric"));
  const auto same = neurobench::render_comparison(neurobench::compare(net, net), net, net);
  REQUIRE_THAT(same, !Catch::Contains("note:"));
}

namespace {

// `_metrics` as Benchmark writes it, for a user's own metrics: SpikeRate (a number) and
// LayerSpikes (an object whose `total` has its own unit and direction).
const std::string kUserMetrics = R"("_metrics": {
    "SpikeRate": {"kind": "workload", "description": "a user's own metric", "unit": "spikes/step",
                  "better": "lower", "source": "/path/libmymetrics.so"},
    "LayerSpikes": {"kind": "workload", "unit": "spikes/sample", "better": "none",
                    "keys": {"total": {"unit": "spikes", "better": "lower"}}}})";

}  // namespace

TEST_CASE("compare flags a regression of a user's metric described in _metrics, with its unit",
          "[report]") {
  const auto a = run_of("base", R"({"SpikeRate": 0.10, "LayerSpikes": {"total": 100, "conv1": 40},
                                    )" +
                                    kUserMetrics + "}");
  const auto b = run_of("new", R"({"SpikeRate": 0.12, "LayerSpikes": {"total": 120, "conv1": 80},
                                   )" +
                                   kUserMetrics + "}");
  const auto rows = neurobench::compare(a, b);
  const auto& spikes = row(rows, "SpikeRate");
  REQUIRE(spikes.info.unit == "spikes/step");
  REQUIRE(spikes.info.better == neurobench::Better::Lower);
  REQUIRE(spikes.regression);
  REQUIRE_FALSE(row(neurobench::compare(b, a), "SpikeRate").regression);  // fewer is better
  REQUIRE(row(rows, "LayerSpikes.total").info.unit == "spikes");
  REQUIRE(row(rows, "LayerSpikes.total").regression);
  REQUIRE(row(rows, "LayerSpikes.conv1").info.unit == "spikes/sample");
  REQUIRE_FALSE(row(rows, "LayerSpikes.conv1").regression);  // no direction: +100% is no gate
  const std::string table = neurobench::render_comparison(rows, a, b);
  REQUIRE_THAT(table, Catch::Contains("SpikeRate          spikes/step") &&
                          Catch::Contains("+20.0%  << REGRESSION (lower is better)") &&
                          Catch::Contains("2 regressions above 5%: SpikeRate, LayerSpikes.total"));

  neurobench::CompareOptions options;
  options.fail_above_percent = 25;
  REQUIRE_FALSE(neurobench::has_regression(neurobench::compare(a, b, options)));

  SECTION("without _metrics the same metric has no unit and never regresses") {
    const auto old_a = run_of("base", R"({"SpikeRate": 0.10})");
    const auto old_b = run_of("new", R"({"SpikeRate": 0.12})");
    const auto& old_row = row(neurobench::compare(old_a, old_b), "SpikeRate");
    REQUIRE(old_row.info.unit.empty());
    REQUIRE_FALSE(old_row.regression);
  }
}

TEST_CASE("compare takes the newest description: the second run's, then the first's", "[report]") {
  const auto lower = run_of("lower", R"({"SpikeRate": 1,
      "_metrics": {"SpikeRate": {"unit": "old unit", "better": "lower"}}})");
  const auto higher = run_of("higher", R"({"SpikeRate": 2,
      "_metrics": {"SpikeRate": {"unit": "new unit", "better": "higher"}}})");
  const auto bare = run_of("bare", R"({"SpikeRate": 2})");
  // 1 -> 2 is worse only when lower is better.
  const auto& newest = row(neurobench::compare(lower, higher), "SpikeRate");
  REQUIRE(newest.info.unit == "new unit");
  REQUIRE_FALSE(newest.regression);
  const auto& first = row(neurobench::compare(lower, bare), "SpikeRate");
  REQUIRE(first.info.unit == "old unit");
  REQUIRE(first.regression);
  REQUIRE(row(neurobench::compare(bare, lower), "SpikeRate").info.unit == "old unit");
}

TEST_CASE("compare marks metrics failed or missing in the second run, which fail the gate",
          "[report]") {
  const auto a = run_of("a", R"({"Footprint": 10, "MSE": 0.5, "Gone": 1,
                                 "Latency": {"runs": 3, "batch_p90_ms": 2},
                                 "Layers": {"l1": 0.5, "l2": 0.5}, "OldFailed": null,
                                 "WasFailed": null})");
  const auto b = run_of("b", R"({"Footprint": 10, "MSE": null, "Latency": null,
                                 "Layers": {"l1": 0.5}, "OldFailed": null,
                                 "WasFailed": {"x": 1}, "NewFailed": null})");
  const auto rows = neurobench::compare(a, b);
  REQUIRE_FALSE(neurobench::has_regression(rows));
  REQUIRE(row(rows, "MSE").failed_in_b);
  REQUIRE(row(rows, "Latency").failed_in_b);  // B's null covers A's Latency.* keys
  REQUIRE_FALSE(row(rows, "Latency.runs").missing_in_b);
  REQUIRE(row(rows, "OldFailed").failed_in_b);
  REQUIRE(row(rows, "NewFailed").failed_in_b);
  REQUIRE(row(rows, "Gone").missing_in_b);
  REQUIRE(row(rows, "Layers.l2").missing_in_b);
  REQUIRE_FALSE(row(rows, "WasFailed").missing_in_b);  // B has keys within it
  REQUIRE_FALSE(row(rows, "Footprint").failed_in_b);
  REQUIRE_FALSE(row(rows, "Footprint").missing_in_b);
  REQUIRE_FALSE(row(neurobench::compare(b, a), "MSE").failed_in_b);  // failed in A only

  neurobench::CompareOptions options;
  REQUIRE(neurobench::comparison_failed(rows, options));
  options.allow_failed = true;
  REQUIRE(neurobench::comparison_failed(rows, options));  // still the missing ones
  options.allow_missing = true;
  REQUIRE_FALSE(neurobench::comparison_failed(rows, options));
  options.allow_failed = false;
  REQUIRE(neurobench::comparison_failed(rows, options));

  const std::string table = neurobench::render_comparison(rows, a, b);
  REQUIRE_THAT(table, Catch::Contains("<< FAILED in B") && Catch::Contains("<< MISSING in B"));
  REQUIRE_THAT(table,
               Catch::EndsWith("no regression above 5% (12 metrics compared)\n"
                               "4 metrics failed in B: MSE, OldFailed, Latency, NewFailed\n"
                               "2 metrics missing in B: Gone, Layers.l2\n"));
  options.allow_failed = true;
  const std::string allowed = neurobench::render_comparison(rows, a, b, options);
  REQUIRE_THAT(allowed, Catch::Contains("failed in B (allowed)") &&
                            Catch::Contains("missing in B (allowed)") &&
                            Catch::Contains("4 metrics failed in B (allowed): MSE,"));

  SECTION("a prefix within a failed metric selects that metric") {
    neurobench::CompareOptions latency;
    latency.metrics = {"latency.batch"};
    const auto selected = neurobench::compare(a, b, latency);
    REQUIRE(selected.size() == 2);
    REQUIRE(row(selected, "Latency").failed_in_b);
    REQUIRE(neurobench::comparison_failed(selected, latency));
  }
}

TEST_CASE("compare and the reports show a metric unavailable where a run ran, not failed",
          "[report]") {
  const auto a = run_of("a", R"({"Energy": {"J_per_inference": 0.5}, "Temperature": null,
                                 "Clock": {"cpu_mhz_mean": 2000},
                                 "_run": {"unavailable": {"Temperature": "no sensors"}}})");
  const auto b = run_of("b", R"({"Energy": null, "Temperature": null, "Clock": null,
                                 "_run": {"unavailable": {"Energy": "no RAPL",
                                                          "Temperature": "no sensors"}}})");
  const auto rows = neurobench::compare(a, b);
  // Energy: a null that `_run.unavailable` names is no failure, and no regression.
  REQUIRE_FALSE(row(rows, "Energy").failed_in_b);
  REQUIRE(row(rows, "Energy").b.state == FlatValue::State::Unavailable);
  REQUIRE(row(rows, "Temperature").a.state == FlatValue::State::Unavailable);
  REQUIRE_FALSE(row(rows, "Temperature").failed_in_b);
  // Clock: null without a reason is a failure, as before.
  REQUIRE(row(rows, "Clock").failed_in_b);
  neurobench::CompareOptions options;
  options.allow_failed = true;
  options.allow_missing = true;  // Energy.J_per_inference and Clock.cpu_mhz_mean: B's null
  REQUIRE_FALSE(neurobench::comparison_failed(rows, options));
  const std::string table = neurobench::render_comparison(rows, a, b);
  REQUIRE_THAT(table, Catch::Contains("unavailable in B") && Catch::Contains("<< FAILED in B"));
  REQUIRE_THAT(table, !Catch::Contains("metrics failed in B: Energy"));
}
