// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "reporters/report_support.hpp"

using neurobench::test::count;
using neurobench::test::fixture_runs;
using neurobench::test::run_of;
using neurobench::test::section;

TEST_CASE("the HTML report escapes every text it shows", "[report]") {
  const auto evil = run_of("<b>&\"x", R"({"Footprint": 1, "My<i>Metric": {"a&b": 2},
      "ActivationSparsityByLayer": {"<layer>": 0.5},
      "_environment": {"cpu": "<script>alert(1)</script>"}})");
  const std::string html = neurobench::render_html_report({evil});
  REQUIRE_THAT(html, !Catch::Contains("<b>&\"x") && !Catch::Contains("<i>") &&
                         !Catch::Contains("<script") && !Catch::Contains("<layer>"));
  REQUIRE_THAT(html, Catch::Contains("&lt;b&gt;&amp;&quot;x"));
  REQUIRE_THAT(html, Catch::Contains("data-run=\"&lt;b&gt;&amp;&quot;x\""));
  REQUIRE_THAT(html, Catch::Contains("My&lt;i&gt;Metric.a&amp;b"));
  REQUIRE_THAT(html, Catch::Contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

TEST_CASE("the HTML report is self-contained: no scripts, no external references", "[report]") {
  const std::string html = neurobench::render_html_report(fixture_runs());
  REQUIRE_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  REQUIRE_THAT(html, Catch::EndsWith("</html>\n"));
  for (const char* bad : {"http://", "https://", "<script", "src=", "url(", "@import", "<link",
                          "<img", "<iframe", "<object", "<embed", "xlink:href", "file:"}) {
    INFO(bad);
    REQUIRE_THAT(html, !Catch::Contains(bad, Catch::CaseSensitive::No));
  }
  // Links only within the page.
  REQUIRE(count(html, "href=\"") == count(html, "href=\"#"));
}

TEST_CASE("the HTML report shows every metric of every run with differences to the first",
          "[report]") {
  const auto runs = fixture_runs();
  const std::string html = neurobench::render_html_report(runs);
  const std::string table = section(html, "metrics-section");
  REQUIRE(count(table, "<tr data-key=") == 50);
  REQUIRE_THAT(table,
               Catch::Contains("<tr data-key=\"Latency.batch_p90_ms\" data-better=\"lower\">"));
  REQUIRE_THAT(table, Catch::Contains("data-run=\"snn_lif\" data-state=\"number\" "
                                      "data-value=\"23.85\""));
  REQUIRE_THAT(table, Catch::Contains("data-run=\"cnn_relu_pruned\" data-state=\"failed\""));
  REQUIRE_THAT(table, Catch::Contains("data-run=\"cnn_relu\" data-state=\"missing\""));
  // Accuracy fell from 0.9153 to 0.9071: worse. Effective MACs fell: better.
  REQUIRE(count(table,
                "<td class=\"diff worse\" data-run=\"cnn_relu_pruned\" "
                "data-diff=\"-0.008") == 1);
  REQUIRE_THAT(table, Catch::Contains("(-62.1%)"));
  const std::string env = section(html, "runs");
  for (const char* shown : {"AMD EPYC 7B13", "1.13.1", "a59dbaa", "3f1c2de (dirty)",
                            "2026-11-22T16:02:47Z", "<tr data-key=\"timed_runs\">",
                            "<tr data-key=\"warmup_runs\">", ">124<", "MembraneUpdates: no"}) {
    INFO(shown);
    REQUIRE_THAT(env, Catch::Contains(shown));
  }
}

TEST_CASE("the HTML report draws each chart from the runs that have its data", "[report]") {
  const std::string html = neurobench::render_html_report(fixture_runs());
  const std::string sparsity = section(html, "chart-sparsity");
  REQUIRE(count(sparsity, "<rect class=\"bar\"") == 3 + 2 + 3);  // cnn, snn, pruned layers
  REQUIRE(count(sparsity, "class=\"group\" data-layer=") == 5);  // union of layers
  REQUIRE_THAT(sparsity, Catch::Contains("data-run=\"snn_lif\" data-layer=\"lif2\" "
                                         "data-value=\"0.9689\""));
  const std::string ops = section(html, "chart-operations");
  REQUIRE(count(ops, "<rect class=\"bar\"") == 9);
  REQUIRE_THAT(ops, Catch::Contains("data-run=\"snn_lif\" data-op=\"Effective_ACs\" "
                                    "data-value=\"612843.7\""));
  REQUIRE_THAT(ops, !Catch::Contains("log scale"));
  const std::string latency = section(html, "chart-latency");
  REQUIRE(count(latency, "<g class=\"latency-glyph\"") == 3);
  REQUIRE_THAT(latency, Catch::Contains("data-run=\"cnn_relu\" data-value=\"9.61\" "
                                        "data-min=\"9.12\" data-median=\"9.61\" "
                                        "data-max=\"14.31\" data-mean=\"9.84\" "
                                        "data-p90=\"10.72\" data-p99=\"12.9\""));
  REQUIRE_THAT(latency, Catch::Contains("120 timed runs after 3 warm-ups"));
  const std::string accuracy = section(html, "chart-accuracy");
  REQUIRE(count(accuracy, "<circle class=\"point\"") == 3);
  REQUIRE_THAT(accuracy, Catch::Contains("data-run=\"cnn_relu_pruned\" data-value=\"0.9071\" "
                                         "data-x=\"402118.6\""));
  for (const char* id : {"svg-sparsity", "svg-operations", "svg-latency", "svg-accuracy"}) {
    INFO(id);
    REQUIRE(count(html, std::string("<svg id=\"") + id + "\"") == 1);
  }
  REQUIRE(count(html, "class=\"tick-label") > 20);
  REQUIRE(count(html, "class=\"legend\"") == 3);
}

TEST_CASE("a chart whose data no run has is left out with a note saying why", "[report]") {
  const auto bare = run_of("bare", R"({"Footprint": 100, "MSE": 0.25})");
  const std::string html = neurobench::render_html_report({bare});
  for (const char* id : {"chart-sparsity", "chart-operations", "chart-latency", "chart-accuracy"}) {
    INFO(id);
    const std::string s = section(html, id);
    REQUIRE_THAT(s, Catch::Contains("class=\"chart left-out\"") && Catch::Contains("Left out: ") &&
                        !Catch::Contains("<svg"));
  }
  REQUIRE_THAT(section(html, "chart-latency"), Catch::Contains("Latency"));
  REQUIRE_THAT(section(html, "chart-accuracy"), Catch::Contains("MSE and operation counts"));
  REQUIRE_THAT(html, Catch::Contains("records no environment"));
  REQUIRE_THROWS_AS(neurobench::render_html_report({}), neurobench::UsageError);
}

TEST_CASE("operations spanning more than two decades use a log axis, and say so", "[report]") {
  const auto big = run_of("big", R"({"R2": 0.5,
      "SynapticOperations": {"Effective_MACs": 5e7, "Effective_ACs": 0, "Dense": 1e8}})");
  const auto small = run_of("small", R"({"R2": 0.7,
      "SynapticOperations": {"Effective_MACs": 0, "Effective_ACs": 2e4, "Dense": 1e5}})");
  const std::string html = neurobench::render_html_report({big, small});
  REQUIRE_THAT(section(html, "chart-operations"),
               Catch::Contains("operations per sample (log scale)"));
  REQUIRE(count(section(html, "chart-operations"), "<rect class=\"bar\"") == 6);
  const std::string accuracy = section(html, "chart-accuracy");
  REQUIRE_THAT(accuracy, Catch::Contains("R2 against operations") && Catch::Contains("log scale"));
  REQUIRE(count(accuracy, "<circle class=\"point\"") == 2);
}

TEST_CASE("the accuracy chart falls back to dense MACs for runs without synaptic operations",
          "[report]") {
  const auto a = run_of("a", R"({"ClassificationAccuracy": 0.8, "DenseMACs": {"MACs": 1000}})");
  const auto b = run_of("b", R"({"ClassificationAccuracy": 0.9,
                                 "SynapticOperations": {"Dense": 3000}})");
  const auto c = run_of("c", R"({"ClassificationAccuracy": 0.7})");
  const std::string accuracy = section(neurobench::render_html_report({a, b, c}), "chart-accuracy");
  REQUIRE_THAT(accuracy, Catch::Contains("data-run=\"a\" data-value=\"0.8\" data-x=\"1000\" "
                                         "data-y=\"0.8\" data-ops-source=\"DenseMACs.MACs\""));
  REQUIRE_THAT(accuracy, Catch::Contains("data-x=\"3000\" data-y=\"0.9\" "
                                         "data-ops-source=\"SynapticOperations.Dense\""));
  REQUIRE(count(accuracy, "<circle class=\"point\"") == 2);
  REQUIRE_THAT(accuracy, Catch::Contains("Not shown: c"));
}

TEST_CASE("the HTML report shows a described metric's unit, direction and colours", "[report]") {
  const std::string described = R"("_metrics": {
      "SpikeRate": {"unit": "spikes/step", "better": "lower"},
      "LayerSpikes": {"unit": "spikes/sample", "better": "none",
                      "keys": {"total": {"unit": "<spikes>", "better": "higher"}}},
      "MSE": {"unit": "V\u00b2", "better": "lower"}})";
  const auto base = run_of("base", R"({"MSE": 0.5, "SpikeRate": 0.1,
      "LayerSpikes": {"total": 100, "conv1": 40}, "DenseMACs": {"MACs": 1000}})");
  const auto pr = run_of("pr", R"({"MSE": 0.4, "SpikeRate": 0.12,
      "LayerSpikes": {"total": 120, "conv1": 80}, "DenseMACs": {"MACs": 900}, )" +
                                   described + "}");
  const std::string html = neurobench::render_html_report({base, pr});
  const std::string table = section(html, "metrics-section");
  REQUIRE_THAT(table, Catch::Contains("<tr data-key=\"SpikeRate\" data-better=\"lower\"><th "
                                      "scope=\"row\" class=\"key\">SpikeRate</th><td "
                                      "class=\"unit\">spikes/step</td><td class=\"better\">"
                                      "\xE2\x86\x93 lower</td>"));
  REQUIRE(count(table, "<td class=\"diff worse\" data-run=\"pr\" data-diff=\"0.0199") == 1);
  REQUIRE_THAT(table, Catch::Contains("<tr data-key=\"LayerSpikes.total\" data-better=\"higher\">"
                                      "<th scope=\"row\" class=\"key\">LayerSpikes.total</th>"
                                      "<td class=\"unit\">&lt;spikes&gt;</td>"));
  REQUIRE(count(table, "<td class=\"diff better\" data-run=\"pr\" data-diff=\"20\"") == 1);
  REQUIRE_THAT(table, Catch::Contains("<tr data-key=\"LayerSpikes.conv1\" data-better=\"none\">"));
  REQUIRE(count(table, "<td class=\"diff neutral\" data-run=\"pr\" data-diff=\"40\"") == 1);
  // Charts use the descriptions too: the correctness metric's axis names its unit.
  REQUIRE_THAT(section(html, "chart-accuracy"),
               Catch::Contains("MSE (V\xC2\xB2), lower is better") &&
                   Catch::Contains("Down and to the left is better."));
}

TEST_CASE("the HTML report marks a metric unavailable where the run ran, not failed", "[report]") {
  const std::vector<neurobench::RunResults> runs{
      run_of("here", R"({"Energy": {"J_per_inference": 0.5}, "Clock": null})"),
      run_of("vm", R"({"Energy": null, "Clock": null,
                       "_run": {"unavailable": {"Energy": "no RAPL"}}})")};
  const std::string table = section(neurobench::render_html_report(runs), "metrics-section");
  REQUIRE_THAT(table, Catch::Contains("data-run=\"vm\" data-state=\"unavailable\""));
  REQUIRE_THAT(table, Catch::Contains("data-run=\"vm\" data-state=\"failed\""));  // Clock
  REQUIRE_THAT(table, Catch::Contains("data-run=\"here\" data-state=\"failed\""));
  REQUIRE(count(table, "data-state=\"unavailable\"") == 1);
}

TEST_CASE("the reports say which submodule a run's metrics were restricted to",
          "[report][metrics_scope]") {
  const std::vector<neurobench::RunResults> runs{
      run_of("backbone", R"({"Footprint": 1, "_run": {"metrics_scope": "net"}})"),
      run_of("whole", R"({"Footprint": 2, "_run": {"model": "m.pt"}})")};
  const std::string html = neurobench::render_html_report(runs);
  REQUIRE_THAT(html, Catch::Contains("<tr data-key=\"metrics_scope\"><th scope=\"row\">Metrics "
                                     "scope</th><td data-run=\"backbone\">net</td><td "
                                     "class=\"missing\" data-run=\"whole\">"));
  const std::string md = neurobench::render_markdown_report(runs);
  REQUIRE_THAT(md, Catch::Contains("- **backbone**: metrics scope net"));
  // Without a scope in any run, no row.
  REQUIRE_THAT(neurobench::render_html_report({runs[1]}),
               !Catch::Contains("data-key=\"metrics_scope\""));
}

TEST_CASE("the HTML report shows where each run's time went", "[report][phases]") {
  const auto timed = run_of("timed", R"({"Footprint": 1,
      "_run": {"phases": {"model_load_s": 0.25, "workload_pass_s": 1.5}}})");
  const auto untimed = run_of("untimed", R"({"Footprint": 1})");
  const std::string html = neurobench::render_html_report({timed, untimed});
  REQUIRE_THAT(html, Catch::Contains("Time by phase") &&
                         Catch::Contains("model load 0.25 s, workload pass 1.5 s"));
}
