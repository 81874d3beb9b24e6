// SPDX-License-Identifier: Apache-2.0
// A suite's plan and run records: each repeat's files, which runs are done, what a run's end
// means, and the summary's view of the runs.
#include <signal.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <neurobench/errors.hpp>

#include "suite/plan.hpp"
#include "suite/run_record.hpp"
#include "suite/summary_files.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::suite::JobEnd;
using neurobench::suite::Plan;
using neurobench::suite::plan_suite;
using neurobench::test::fixture;
using neurobench::test::TempDir;

namespace {

// One group, the classifier, with two repeats.
neurobench::suite::SuiteFile two_repeats(const TempDir& dir) {
  return neurobench::suite::parse_suite(Json{{"models",
                                              {{"clf",
                                                {{"model", fixture("core/classifier.pt").string()},
                                                 {"data", fixture("core/classifier.npz").string()},
                                                 {"metrics", {"Footprint"}}}}}},
                                             {"repeats", 2}},
                                        dir / "s.json");
}

// A run that exited with `status` (wait(2)'s encoding of an exit: the status in the second
// byte), after `seconds`.
JobEnd exited(int status, double seconds = 1.5) {
  JobEnd end;
  end.exit = neurobench::suite::ChildExit{status << 8, seconds, 1 << 20, 1.0, 0.25};
  return end;
}

void write_plan_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("a suite's plan names each repeat's files and runs them all the first time",
          "[suite][plan]") {
  const TempDir dir;
  const auto s = two_repeats(dir);
  const Plan plan = plan_suite(s, dir / "out", false);
  REQUIRE(plan.runs.size() == 2);
  CHECK(plan.to_run == std::vector<std::size_t>{0, 1});
  const auto& run = plan.runs[1];
  CHECK(run.group == 0);
  CHECK(run.repeat == 1);
  CHECK(run.config == dir / "out" / "runs" / "clf" / "config.json");
  CHECK(run.results == dir / "out" / "runs" / "clf" / "rep-1.json");
  CHECK(run.log == dir / "out" / "runs" / "clf" / "rep-1.log");
  CHECK(run.record == dir / "out" / "runs" / "clf" / "rep-1.run.json");
  CHECK(run.key.repeat == 1);
  CHECK(plan.runs[0].key.key != run.key.key);
  CHECK(neurobench::suite::run_argv("/bin/nb", run) ==
        std::vector<std::string>{"/bin/nb", "run", run.config.string(), "--json",
                                 run.results.string(), "--quiet", "--distributed", "off"});
}

TEST_CASE("a run is done when its record says ok for its key and its results file reads",
          "[suite][plan]") {
  const TempDir dir;
  const auto s = two_repeats(dir);
  const neurobench::suite::ResultsFolder folder(dir / "out");
  const Plan first = plan_suite(s, folder.path(), false);
  neurobench::suite::RunFolders folders(s, first);
  const auto& run = first.runs[0];
  folders.prepare(run);
  CHECK(neurobench::BenchmarkConfig::read(run.config).model == fixture("core/classifier.pt"));
  write_plan_file(run.results, R"({"Footprint": 268})");
  const Json record = neurobench::suite::write_run_record(s, first, run, exited(0), 0, 1);
  CHECK(record.at("status") == "ok");
  CHECK(record.at("results") == "runs/clf/rep-0.json");

  const Plan again = plan_suite(s, folder.path(), false);
  CHECK(again.runs[0].done);
  CHECK(again.to_run == std::vector<std::size_t>{1});
  CHECK_FALSE(plan_suite(s, folder.path(), /*rerun=*/true).runs[0].done);

  // A damaged results file, or a record of another key, and the run runs again.
  write_plan_file(run.results, R"({"Footprint": )");
  CHECK_FALSE(plan_suite(s, folder.path(), false).runs[0].done);
  write_plan_file(run.results, R"({"Footprint": 268})");
  Json other = record;
  other["key"]["key"] = "0";
  write_plan_file(run.record, other.dump());
  CHECK_FALSE(plan_suite(s, folder.path(), false).runs[0].done);

  // Readying a run again removes its stale results and record.
  folders.prepare(run);
  CHECK_FALSE(fs::exists(run.results));
  CHECK_FALSE(fs::exists(run.record));
}

TEST_CASE("a run's record says what its end means, with the log's telling line", "[suite][plan]") {
  const TempDir dir;
  const auto s = two_repeats(dir);
  const Plan plan = plan_suite(s, dir / "out", false);
  const auto& run = plan.runs[0];
  write_plan_file(run.log, "loading\nerror: metric Footprint: broken\nbye\n");

  Json r = neurobench::suite::run_record(s, plan, run, exited(2), 0, 3);
  CHECK(r.at("status") == "failed");
  CHECK(r.at("exit_code") == 2);
  CHECK(r.at("cause") == "exit status 2: error: metric Footprint: broken");
  CHECK(r.at("results").is_null());
  CHECK(r.at("jobs") == 3);
  CHECK(r.at("wall_seconds") == 1.5);

  write_plan_file(run.results, R"({"Footprint": null})");
  r = neurobench::suite::run_record(s, plan, run, exited(1), 0, 1);
  CHECK(r.at("status") == "failed");
  CHECK_THAT(r.at("cause").get<std::string>(), Catch::StartsWith("a metric failed"));

  JobEnd late = exited(0);
  late.timed_out = true;
  late.exit->wait_status = SIGTERM;
  r = neurobench::suite::run_record(s, plan, run, late, 30, 1);
  CHECK(r.at("status") == "timeout");
  CHECK_THAT(r.at("cause").get<std::string>(),
             Catch::StartsWith("stopped after the timeout of 30 s (SIGTERM)"));
  CHECK(r.at("signal") == "SIGTERM");

  JobEnd never;
  never.start_error = "no such program";
  r = neurobench::suite::run_record(s, plan, run, never, 0, 1);
  CHECK(r.at("status") == "failed");
  CHECK_THAT(r.at("cause").get<std::string>(), Catch::StartsWith("could not start: no such"));
  CHECK(r.at("wall_seconds").is_null());
  CHECK_FALSE(neurobench::suite::completed(run, never));
  CHECK(neurobench::suite::completed(run, exited(0)));
}

TEST_CASE("the summary sees a run without a record as missing and one with results as read",
          "[suite][plan]") {
  const TempDir dir;
  const auto s = two_repeats(dir);
  const neurobench::suite::ResultsFolder folder(dir / "out");
  const Plan plan = plan_suite(s, folder.path(), false);
  write_plan_file(plan.runs[0].results, R"({"Footprint": 268})");
  (void)neurobench::suite::write_run_record(s, plan, plan.runs[0], exited(0), 0, 1);

  const auto runs = neurobench::suite::summary_runs(s, plan);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].record.at("status") == "ok");
  REQUIRE(runs[0].results.has_value());
  CHECK(runs[1].record.at("status") == "missing");
  CHECK_FALSE(runs[1].results.has_value());

  const auto files = neurobench::suite::write_summary(s, plan, 1, std::nullopt);
  CHECK(files.failed == 1);
  CHECK(files.html);
  CHECK(fs::is_regular_file(folder.path() / "summary.json"));
  CHECK(fs::is_regular_file(folder.path() / "summary.md"));
  CHECK(fs::is_regular_file(folder.path() / "summary.html"));
}

TEST_CASE("a results folder is locked against a second suite", "[suite][plan]") {
  const TempDir dir;
  const neurobench::suite::ResultsFolder folder(dir / "a" / "out");
  CHECK(fs::is_directory(dir / "a" / "out" / "runs"));
  REQUIRE_THROWS_AS(neurobench::suite::ResultsFolder(dir / "a" / "out"), neurobench::InputError);
  write_plan_file(dir / "file", "x");
  REQUIRE_THROWS_WITH(neurobench::suite::ResultsFolder(dir / "file" / "out"),
                      Catch::Contains("--out " + (dir / "file" / "out").string()) &&
                          Catch::Contains("cannot create it"));
}
