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

TEST_CASE("the Markdown report has each profiled run's layers, slowest first, then the rest",
          "[report][profile]") {
  // A profile as `run --profile` writes it under _run (times per forward call).
  const auto cnn = run_of("cnn", R"({"Latency": {"batch_mean_ms": 1.0},
      "_run": {"profile": {"batch_size": 4, "warmup": 1, "runs": 3, "samples": 8,
        "plain_forward_s": 0.001, "profiled_forward_s": 0.00125, "overhead": 0.25,
        "layers_s": 0.001, "other_s": 0.00025, "layers": [
          {"layer": "conv", "kind": "connection", "type": "Conv2d", "output_shape": [4, 2, 2, 2],
           "calls_per_run": 1.0, "time_per_call_s": 0.0002, "time_per_run_s": 0.0002,
           "share": 0.16, "dense_ops": 50.0, "effective_macs": 40.0, "effective_acs": 0.0,
           "activation_sparsity": null},
          {"layer": "pool", "kind": "other", "type": "MaxPool2d", "output_shape": [4, 2, 1, 1],
           "calls_per_run": 1.0, "time_per_call_s": 0.0007, "time_per_run_s": 0.0007,
           "share": 0.56, "dense_ops": null, "effective_macs": null, "effective_acs": null,
           "activation_sparsity": null},
          {"layer": "relu|1", "kind": "activation", "type": "ReLU", "output_shape": [4, 2],
           "calls_per_run": 2.0, "time_per_call_s": 0.00005, "time_per_run_s": 0.0001,
           "share": 0.08, "dense_ops": null, "effective_macs": null, "effective_acs": null,
           "activation_sparsity": 0.25}]}}})");
  const auto plain = run_of("plain", R"({"Latency": {"batch_mean_ms": 1.0}})");
  const std::string md = neurobench::render_markdown_report({cnn, plain});
  const auto at = md.find(
      "\n**Per-layer profile: cnn** (the slowest first; times per forward "
      "call). Forward call: 1.25 ms with the layer clocks (1 ms in the "
      "modules or layers listed, 250 us outside them), 1 ms without them "
      "(+25.0%).\n\n");
  REQUIRE(at != std::string::npos);
  const std::string table =
      "| Layer | Kind | Type | Output shape | Calls | Time per call | Time per forward | Share "
      "| Dense ops | Effective MACs | Effective ACs | Activation sparsity |\n"
      "|:---|:---|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
      "| pool | other | MaxPool2d | 4x2x1x1 | 1 | 700 us | 700 us | 56.0% |  |  |  |  |\n"
      "| conv | connection | Conv2d | 4x2x2x2 | 1 | 200 us | 200 us | 16.0% | 50 | 40 | 0 |  |\n"
      "| relu\\|1 | activation | ReLU | 4x2 | 2 | 50 us | 100 us | 8.0% |  |  |  | 0.2500 |\n"
      "| (rest of forward) | rest |  |  |  |  | 250 us | 20.0% |  |  |  |  |\n";
  CHECK(md.find(table) == md.find("| Layer |", at));
  // Only the profiled run has a table; a report without profiles has none.
  CHECK(md.find("Per-layer profile: plain") == std::string::npos);
  CHECK(neurobench::render_markdown_report({plain}).find("Per-layer profile") == std::string::npos);
}
