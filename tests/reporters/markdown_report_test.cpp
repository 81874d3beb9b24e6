// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/markdown_report.hpp>

#include <string>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "reporters/report_support.hpp"

using neurobench::test::run_of;

TEST_CASE("the Markdown report has NeuroBench's leaderboard columns, then the other metrics",
          "[report]") {
  const auto base = run_of("base", R"({
      "ClassificationAccuracy": 0.9, "Footprint": 1000, "ConnectionSparsity": 0.0,
      "ActivationSparsity": 0.5,
      "SynapticOperations": {"Effective_MACs": 2000000.0, "Effective_ACs": 0, "Dense": 4000000},
      "Latency": {"batch_p90_ms": 2.0, "runs": 100}})");
  const auto pr = run_of("new|<pr>", R"({
      "ClassificationAccuracy": 0.92, "Footprint": 1000, "ActivationSparsity": 0.6,
      "SynapticOperations": {"Effective_MACs": 1000000.0, "Effective_ACs": 50, "Dense": 4000000},
      "Latency": {"batch_p90_ms": 2.5, "runs": 100}, "MSE": null,
      "_environment": {"cpu": "AMD EPYC 7B13", "threads": 1, "libtorch": "1.13.1",
                       "git_commit": "a59dbaa", "git_dirty": true,
                       "date": "2026-11-22T15:30:00Z"}})");
  const std::string expected =
      "| Run | Accuracy | Footprint (bytes) | Connection sparsity | Activation sparsity | "
      "Dense (ops/sample) | Eff_MACs (ops/sample) | Eff_ACs (ops/sample) |\n"
      "|:---|---:|---:|---:|---:|---:|---:|---:|\n"
      "| base | 0.9 | 1000 | 0 | 0.5 | 4e6 | 2e6 | 0 |\n"
      "| new\\|&lt;pr&gt; | 0.92 | 1000 | n/a | 0.6 | 4e6 | 1e6 | 50 |\n"
      "\n"
      "| Metric | Unit | base | new\\|&lt;pr&gt; | \xCE\x94 new\\|&lt;pr&gt; |\n"
      "|:---|:---|---:|---:|---:|\n"
      "| Latency.batch_p90_ms | ms | 2 | 2.5 | +0.5 (+25.0%, worse) |\n"
      "| Latency.runs | count | 100 | 100 | 0 (0%) |\n"
      "| MSE | squared target units | n/a | failed | n/a |\n"
      "\n"
      "- **base**: timings over 100 runs\n"
      "- **new\\|&lt;pr&gt;**: AMD EPYC 7B13, 1 thread, LibTorch 1.13.1, commit a59dbaa (dirty), "
      "2026-11-22T15:30:00Z; timings over 100 runs\n";
  REQUIRE(neurobench::render_markdown_report({base, pr}) == expected);
}

TEST_CASE("the Markdown report names the task's correctness metric and works for one run",
          "[report]") {
  const auto esn = run_of("esn", R"({"SMAPE": 14.79, "Footprint": 281000})");
  REQUIRE(neurobench::render_markdown_report({esn}) ==
          "| Run | sMAPE (%) | Footprint (bytes) | Connection sparsity | Activation sparsity | "
          "Dense (ops/sample) | Eff_MACs (ops/sample) | Eff_ACs (ops/sample) |\n"
          "|:---|---:|---:|---:|---:|---:|---:|---:|\n"
          "| esn | 14.79 | 281000 | n/a | n/a | n/a | n/a | n/a |\n");
  REQUIRE_THROWS_AS(neurobench::render_markdown_report({}), neurobench::UsageError);
}

TEST_CASE("the Markdown report shows a described metric's unit and judges it by its direction",
          "[report]") {
  const std::string described = R"("_metrics": {
      "SpikeRate": {"unit": "spikes/step", "better": "lower", "source": "/path/libmine.so"},
      "LayerSpikes": {"unit": "spikes/sample", "better": "none",
                      "keys": {"total": {"unit": "spikes|events", "better": "higher"}}}})";
  const auto base = run_of("base", R"({"ClassificationAccuracy": 0.9, "SpikeRate": 0.1,
      "LayerSpikes": {"total": 100, "conv1": 40}, "MyMetric": 1, )" +
                                       described + "}");
  const auto pr = run_of("pr", R"({"ClassificationAccuracy": 0.9, "SpikeRate": 0.12,
      "LayerSpikes": {"total": 120, "conv1": 80}, "MyMetric": 2})");
  const std::string markdown = neurobench::render_markdown_report({base, pr});
  REQUIRE_THAT(markdown,
               Catch::Contains("| Metric | Unit | base | pr | \xCE\x94 pr |\n"
                               "|:---|:---|---:|---:|---:|\n"
                               "| SpikeRate | spikes/step | 0.1 | 0.12 | +0.02 (+20.0%, worse) |\n"
                               "| LayerSpikes.total | spikes\\|events | 100 | 120 | "
                               "+20 (+20.0%, better) |\n"
                               "| LayerSpikes.conv1 | spikes/sample | 40 | 80 | +40 (+100.0%) |\n"
                               "| MyMetric |  | 1 | 2 | +1 (+100.0%) |\n"));
}
