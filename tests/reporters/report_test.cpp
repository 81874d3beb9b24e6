// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/report.hpp>

#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/results.hpp>

#include "support.hpp"

using neurobench::Better;
using neurobench::FlatValue;
using neurobench::RunResults;
using nlohmann::ordered_json;

namespace {

RunResults run_of(const std::string& label, const std::string& json) {
  return neurobench::parse_run_results(ordered_json::parse(json), label, label + ".json");
}

std::filesystem::path write(const neurobench::test::TempDir& dir, const std::string& name,
                            const std::string& text) {
  const auto path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  neurobench::write_file_atomically(path, text);
  return path;
}

std::size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// The part of an HTML page from `<section id="ID"` to its `</section>`.
std::string section(const std::string& html, const std::string& id) {
  const auto begin = html.find("<section id=\"" + id + "\"");
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</section>", begin);
  REQUIRE(end != std::string::npos);
  return html.substr(begin, end - begin);
}

const neurobench::ComparisonRow& row(const std::vector<neurobench::ComparisonRow>& rows,
                                     const std::string& key) {
  for (const auto& r : rows) {
    if (r.key == key) return r;
  }
  FAIL("no row " << key);
  return rows.front();
}

std::vector<RunResults> fixture_runs() {
  using neurobench::test::fixture;
  return neurobench::load_run_results({fixture("report/cnn_relu.json"),
                                       fixture("report/snn_lif.json"),
                                       fixture("report/cnn_relu_pruned.json")});
}

// The fixture runs, with their file names (not paths) as sources, for approved output.
std::vector<RunResults> fixture_runs_by_name() {
  std::vector<RunResults> runs;
  for (const char* name : {"cnn_relu", "snn_lif", "cnn_relu_pruned"}) {
    const auto text = neurobench::test::read_file(
        neurobench::test::fixture(std::string("report/") + name + ".json"));
    runs.push_back(neurobench::parse_run_results(ordered_json::parse(text), name,
                                                 std::string(name) + ".json"));
  }
  return runs;
}

// Compares with an approved file in tests/golden; NEUROBENCH_UPDATE_GOLDEN=1 rewrites it.
void require_golden(const std::string& name, const std::string& actual) {
  const auto path = std::filesystem::path(NEUROBENCH_TEST_FIXTURES).parent_path() / "golden" / name;
  if (std::getenv("NEUROBENCH_UPDATE_GOLDEN") != nullptr) {
    neurobench::write_file_atomically(path, actual);
  }
  INFO("approved file " << path << " (NEUROBENCH_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(neurobench::test::read_file(path) == actual);
}

}  // namespace

// --- loading -------------------------------------------------------------------------------

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

// --- metric information ----------------------------------------------------------------------

TEST_CASE("every known metric key has a unit and a better direction", "[report]") {
  struct Case {
    const char* key;
    const char* unit;
    Better better;
  };
  const std::vector<Case> cases = {
      {"ClassificationAccuracy", "fraction", Better::Higher},
      {"Footprint", "bytes", Better::Lower},
      {"ModelFileSize", "bytes", Better::Lower},
      {"ConnectionSparsity", "fraction", Better::Higher},
      {"ActivationSparsity", "fraction", Better::Higher},
      {"ActivationSparsityByLayer.block1.relu", "fraction", Better::Higher},
      {"SMAPE", "%", Better::Lower},
      {"MSE", "", Better::Lower},
      {"R2", "", Better::Higher},
      {"SynapticOperations.Effective_MACs", "ops/sample", Better::Lower},
      {"SynapticOperations.Dense", "ops/sample", Better::Lower},
      {"NeuronOperations.Effective Neuron Ops", "ops/sample", Better::Lower},
      {"MembraneUpdates", "updates/sample", Better::Lower},
      {"DenseMACs.MACs", "MACs/sample", Better::Lower},
      {"Latency.batch_p90_ms", "ms", Better::Lower},
      {"Latency.sample_mean_ms", "ms", Better::Lower},
      {"Latency.batch_std_ms", "ms", Better::None},
      {"Latency.runs", "count", Better::None},
      {"Latency.warmup_runs", "count", Better::None},
      {"Latency.batch_size", "samples", Better::None},
      {"InferenceTime.batch_median_ms", "ms", Better::Lower},
      {"Throughput.samples_per_s", "samples/s", Better::Higher},
      {"Throughput.seconds", "s", Better::None},
      {"StartupTime.total_ms", "ms", Better::Lower},
      {"PeakMemory.peak_rss_bytes", "bytes", Better::Lower},
      {"MyMetric", "", Better::None},
      {"MyMetric.latency_ms", "", Better::None},
  };
  for (const auto& c : cases) {
    INFO(c.key);
    const auto info = neurobench::metric_info(c.key);
    REQUIRE(info.unit == c.unit);
    REQUIRE(info.better == c.better);
  }
  REQUIRE(neurobench::to_string(Better::Higher) == "higher");
}

TEST_CASE("numbers are shown as integers, 6 digits, or scientific with 3 digits", "[report]") {
  REQUIRE(neurobench::format_number(0) == "0");
  REQUIRE(neurobench::format_number(-0.0) == "0");
  REQUIRE(neurobench::format_number(828712) == "828712");
  REQUIRE(neurobench::format_number(0.9153) == "0.9153");
  REQUIRE(neurobench::format_number(612843.7) == "612844");
  REQUIRE(neurobench::format_number(1.9e6) == "1.9e6");
  REQUIRE(neurobench::format_number(3252224) == "3.25e6");
  REQUIRE(neurobench::format_number(0.000289) == "2.89e-4");
  REQUIRE(neurobench::format_number(-1.5e-5) == "-1.5e-5");
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

// --- compare ---------------------------------------------------------------------------------

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

// --- Markdown --------------------------------------------------------------------------------

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
      "| MSE |  | n/a | failed | n/a |\n"
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

// --- HTML ------------------------------------------------------------------------------------

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

// --- approved output -------------------------------------------------------------------------

TEST_CASE("the Markdown report and the comparison of the fixture runs are as approved",
          "[report]") {
  const auto runs = fixture_runs_by_name();
  require_golden("report_fixtures.md", neurobench::render_markdown_report(runs));
  const auto rows = neurobench::compare(runs[0], runs[1]);
  require_golden("compare_fixtures.txt", neurobench::render_comparison(rows, runs[0], runs[1]));
}
