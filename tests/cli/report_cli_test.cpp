// SPDX-License-Identifier: Apache-2.0
// `neurobench report` and `neurobench compare`, run as a user would.
#include <catch2/catch.hpp>

#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;

namespace {
std::string cnn() { return q(fixture("report/cnn_relu.json")); }
std::string snn() { return q(fixture("report/snn_lif.json")); }
std::string pruned() { return q(fixture("report/cnn_relu_pruned.json")); }
}  // namespace

TEST_CASE("neurobench compare exits 0 when nothing got worse beyond the threshold",
          "[cli][report]") {
  // The pruned run's MembraneUpdates failed (null): allowed here, see the next test.
  for (const char* threshold : {"", " --fail-above 5%", " --fail-above 5"}) {
    const auto r = run_cli("compare " + cnn() + " " + pruned() + " --allow-failed" + threshold);
    INFO(threshold << "\n" << r.err);
    REQUIRE(r.status == 0);
    REQUIRE_THAT(r.out, Catch::Contains("no regression above 5%"));
    REQUIRE_THAT(r.out, Catch::Contains("Latency.batch_p90_ms") && Catch::Contains("ms") &&
                            Catch::Contains("-2.9%") && Catch::Contains("FAILED"));
  }
}

TEST_CASE("neurobench compare exits 1 and marks the regressions", "[cli][report]") {
  auto r = run_cli("compare " + cnn() + " " + snn());
  INFO(r.err);
  REQUIRE(r.status == 1);
  REQUIRE_THAT(r.out, Catch::Contains("<< REGRESSION (lower is better)"));
  REQUIRE_THAT(
      r.out, Catch::Contains("regressions above 5%: ") && Catch::Contains("Latency.batch_p90_ms"));
  // 0.9153 -> 0.9071 is -0.9%: a regression only with a threshold below that.
  r = run_cli("compare " + cnn() + " " + pruned() +
              " --metrics ClassificationAccuracy "
              "--fail-above 0.5%");
  REQUIRE(r.status == 1);
  r = run_cli("compare " + cnn() + " " + pruned() +
              " --metrics ClassificationAccuracy "
              "--fail-above 1%");
  REQUIRE(r.status == 0);
  // --metrics restricts the comparison (prefixes, any case).
  r = run_cli("compare " + cnn() + " " + snn() + " --metrics latency.batch_p9 --fail-above 200");
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("Latency.batch_p90_ms") && !Catch::Contains("Footprint") &&
                          Catch::Contains("2 metrics compared"));
  r = run_cli("compare " + cnn() + " " + snn() + " --metrics Latency.batch_p9 --fail-above 100");
  REQUIRE(r.status == 1);
}

TEST_CASE("neurobench compare exits 2 with a message naming the bad file or option",
          "[cli][report]") {
  neurobench::test::TempDir dir;
  const auto bad = dir / "broken.json";
  {
    std::ofstream out(bad);
    out << "{\"Footprint\": ";
  }
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"compare " + cnn() + " " + q(dir / "nothere.json"), "nothere.json"},
      {"compare " + q(bad) + " " + cnn(), "broken.json: not valid JSON"},
      {"compare " + cnn() + " " + snn() + " --fail-above lots", "--fail-above"},
      {"compare " + cnn() + " " + snn() + " --fail-above=-3%", "--fail-above"},
      {"compare " + cnn() + " " + snn() + " --metrics Latncy", "Latncy"},
      {"compare " + cnn(), "B"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    INFO(c.args << "\nstderr: " << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains(c.says));
  }
}

TEST_CASE("neurobench report writes an HTML file, or Markdown on stdout", "[cli][report]") {
  neurobench::test::TempDir dir;
  const auto html = dir / "report.html";
  auto r = run_cli("report " + cnn() + " " + snn() + " " + pruned() + " -o " + q(html));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("report.html") && Catch::Contains("3 runs"));
  const std::string page = neurobench::test::read_file(html);
  REQUIRE_THAT(page, Catch::StartsWith("<!DOCTYPE html>") &&
                         Catch::Contains("<table id=\"metrics\">") &&
                         Catch::Contains("<section id=\"chart-latency\" class=\"chart\">"));

  r = run_cli("report " + cnn() + " " + snn() + " --labels CNN,SNN");
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::StartsWith("| Run | Accuracy | Footprint (bytes) |") &&
                          Catch::Contains("| CNN | 0.9153 |") && Catch::Contains("| SNN |"));

  r = run_cli("report " + cnn() + " --format html");
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::StartsWith("<!DOCTYPE html>"));

  const auto md = dir / "report.md";
  r = run_cli("report " + cnn() + " -o " + q(md));
  REQUIRE(r.status == 0);
  REQUIRE_THAT(neurobench::test::read_file(md), Catch::StartsWith("| Run |"));
}

TEST_CASE("neurobench report exits 2 naming the bad file or option, and writes nothing",
          "[cli][report]") {
  neurobench::test::TempDir dir;
  const auto out = dir / "report.html";
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"report " + cnn() + " " + q(dir / "gone.json") + " -o " + q(out), "gone.json"},
      {"report " + cnn() + " " + snn() + " --labels one -o " + q(out), "1 labels"},
      {"report " + cnn() + " --format pdf -o " + q(out), "pdf"},
      {"report " + cnn() + " -o " + q(dir / "report.txt"), "--format"},
      {"report " + cnn() + " -o " + q(dir / "no/such/dir/report.html"), "does not exist"},
      {"report -o " + q(out), "results"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    INFO(c.args << "\nstderr: " << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains(c.says));
    REQUIRE_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("report and compare have --help and are listed in the top-level help", "[cli][report]") {
  for (const char* cmd : {"report --help", "compare --help"}) {
    const auto r = run_cli(cmd);
    INFO(cmd);
    REQUIRE(r.status == 0);
    REQUIRE_THAT(r.out, Catch::Contains("Usage"));
  }
  const auto r = run_cli("--help");
  REQUIRE_THAT(r.out, Catch::Contains("report") && Catch::Contains("compare"));
}

namespace {

// Results files of a user's own metric, described in _metrics as Benchmark writes them.
struct DescribedRuns {
  neurobench::test::TempDir dir;
  std::filesystem::path base = dir / "base.json";
  std::filesystem::path pr = dir / "pr.json";

  DescribedRuns() {
    const std::string described = R"("_metrics": {
        "SpikeRate": {"kind": "workload", "description": "a user's own metric",
                      "unit": "spikes/step", "better": "lower", "source": "/path/libmine.so"}})";
    std::ofstream(base) << R"({"Footprint": 1000, "SpikeRate": 0.10, )" << described << "}";
    std::ofstream(pr) << R"({"Footprint": 1000, "SpikeRate": 0.12, )" << described << "}";
  }
};

}  // namespace

TEST_CASE("neurobench compare gates a user's metric described in _metrics", "[cli][report]") {
  const DescribedRuns runs;
  auto r = run_cli("compare " + q(runs.base) + " " + q(runs.pr));
  INFO(r.err);
  REQUIRE(r.status == 1);
  REQUIRE_THAT(r.out, Catch::Contains("spikes/step") &&
                          Catch::Contains("<< REGRESSION (lower is better)") &&
                          Catch::Contains("1 regression above 5%: SpikeRate"));
  r = run_cli("compare " + q(runs.base) + " " + q(runs.pr) + " --fail-above 25%");
  REQUIRE(r.status == 0);
  r = run_cli("compare " + q(runs.pr) + " " + q(runs.base));  // fewer spikes: better
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("better"));
}

TEST_CASE("neurobench report shows a described metric's unit and direction", "[cli][report]") {
  const DescribedRuns runs;
  auto r = run_cli("report " + q(runs.base) + " " + q(runs.pr));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out,
               Catch::Contains("| SpikeRate | spikes/step | 0.1 | 0.12 | +0.02 (+20.0%, worse) |"));
  r = run_cli("report " + q(runs.base) + " " + q(runs.pr) + " --format html");
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("<tr data-key=\"SpikeRate\" data-better=\"lower\">") &&
                          Catch::Contains("<td class=\"unit\">spikes/step</td>") &&
                          Catch::Contains("<td class=\"diff worse\" data-run=\"pr\""));
}

TEST_CASE("a malformed _metrics makes report and compare exit 2 naming the file and the entry",
          "[cli][report]") {
  neurobench::test::TempDir dir;
  const auto bad = dir / "bad_metrics.json";
  std::ofstream(bad) << R"({"SpikeRate": 1, "_metrics": {"SpikeRate": {"better": "fewer"}}})";
  for (const std::string& args : {"compare " + cnn() + " " + q(bad), "report " + q(bad)}) {
    const auto r = run_cli(args);
    INFO(args << "\nstderr: " << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains("bad_metrics.json") &&
                            Catch::Contains("_metrics.SpikeRate") && Catch::Contains("'fewer'"));
  }
}

TEST_CASE("neurobench compare exits 1 when a metric failed or is missing in B, unless allowed",
          "[cli][report]") {
  neurobench::test::TempDir dir;
  const auto write_json = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return q(dir / name);
  };
  const auto base = write_json("base.json", R"({"Footprint": 10, "MSE": 0.5, "R2": 0.9})");
  const auto failed = write_json("failed.json", R"({"Footprint": 10, "MSE": null, "R2": 0.9})");
  const auto missing = write_json("missing.json", R"({"Footprint": 10, "MSE": 0.5})");

  auto r = run_cli("compare " + base + " " + failed);
  REQUIRE(r.status == 1);
  REQUIRE_THAT(r.out, Catch::Contains("<< FAILED in B") &&
                          Catch::Contains("1 metric failed in B: MSE"));
  REQUIRE_THAT(r.err, Catch::Contains("error: a metric failed in") &&
                          Catch::Contains("failed.json: MSE (--allow-failed accepts that)"));
  r = run_cli("compare " + base + " " + failed + " --allow-failed");
  REQUIRE(r.status == 0);
  REQUIRE(r.err.empty());
  REQUIRE_THAT(r.out, Catch::Contains("1 metric failed in B (allowed): MSE"));

  r = run_cli("compare " + base + " " + missing);
  REQUIRE(r.status == 1);
  REQUIRE_THAT(r.err, Catch::Contains("missing.json: R2 (--allow-missing accepts that)"));
  r = run_cli("compare " + base + " " + missing + " --allow-missing");
  REQUIRE(r.status == 0);
  // A failed metric in A only, or a metric new in B, does not fail the gate.
  REQUIRE(run_cli("compare " + failed + " " + base).status == 0);
  REQUIRE(run_cli("compare " + missing + " " + base).status == 0);
  // --metrics leaves out what it does not select.
  REQUIRE(run_cli("compare " + base + " " + failed + " --metrics Footprint").status == 0);
  // Without the failure, the pruned fixture's comparison fails too.
  REQUIRE(run_cli("compare " + cnn() + " " + pruned()).status == 1);
}
