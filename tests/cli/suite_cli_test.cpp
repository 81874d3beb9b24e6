// SPDX-License-Identifier: Apache-2.0
// `neurobench suite` end to end on small fixtures: isolation of failing, crashing and hanging
// runs, resuming, Ctrl-C, and the summary.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <neurobench/json.hpp>

#include "cli/background_cli.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::test::BackgroundCli;
using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::shell_status;
using neurobench::test::TempDir;

namespace {

void write_suite_cli_file(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

Json read_suite_json(const fs::path& file) { return Json::parse(read_file(file)); }

// A group entry of the classifier fixture on its data.
std::string classifier(const fs::path& model) {
  return "{\"model\": \"" + model.string() + "\", \"data\": \"" +
         fixture("core/classifier.npz").string() +
         "\", \"workload\": [\"ClassificationAccuracy\", \"ActivationSparsity\"]}";
}

// A run that times forever: Latency with min_time an hour (its timing pass lasts at least
// that long, by definition), on the classifier.
std::string endless(const fs::path& model) {
  return "{\"model\": \"" + model.string() + "\", \"data\": \"" +
         fixture("core/classifier.npz").string() +
         "\", \"metrics\": [\"Latency\"], \"runs\": 0, \"min_time\": 3600, \"max_time\": 3600}";
}

// The children of process `parent` (from /proc/PID/stat's fourth field).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) {
      out.push_back(static_cast<pid_t>(std::stoi(name)));
    }
  }
  return out;
}

// The names in a folder that the atomic writer's temporary files would have.
bool has_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string()[0] == '.') return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a suite runs every group's repeats, summarises them, and a re-run skips them",
          "[cli][suite]") {
  const TempDir dir;
  fs::copy_file(fixture("core/classifier.pt"), dir / "a.pt");
  fs::copy_file(fixture("core/classifier.pt"), dir / "b.pt");
  write_suite_cli_file(dir / "s.json",
                       "{\"name\": \"small\", \"models\": {\"a\": " + classifier(dir / "a.pt") +
                           ", \"b\": " + classifier(dir / "b.pt") +
                           "}, \"settings\": {\"b4\": {\"batch_size\": 4}, \"b16\": "
                           "{\"batch_size\": 16}}, \"repeats\": 2, \"baseline\": \"a/b16\"}");
  const fs::path out = dir / "out";
  const auto first = run_cli("suite " + q(dir / "s.json") + " --jobs 2 --out " + q(out));
  INFO(first.out << first.err);
  REQUIRE(first.status == 0);
  for (const char* group : {"a/b4", "a/b16", "b/b4", "b/b16"}) {
    for (int k = 0; k < 2; ++k) {
      const fs::path run = out / "runs" / group;
      CHECK(fs::is_regular_file(run / ("rep-" + std::to_string(k) + ".json")));
      const Json record = read_suite_json(run / ("rep-" + std::to_string(k) + ".run.json"));
      CHECK(record["status"] == "ok");
      CHECK(record["jobs"] == 2);
      CHECK(record["peak_rss_bytes"].get<int64_t>() > 0);
      CHECK(record["key"]["key"].get<std::string>().size() == 64);
    }
    CHECK_FALSE(has_temporaries(out / "runs" / group));
    CHECK(fs::is_regular_file(out / "runs" / group / "config.json"));
  }
  const Json summary = read_suite_json(out / "summary.json");
  CHECK(summary["baseline"] == "a/b16");
  REQUIRE(summary["groups"].size() == 4);
  const Json& b4 = summary["groups"][0];
  CHECK(b4["id"] == "a/b4");
  CHECK(b4["ok"] == 2);
  const Json& accuracy = b4["metrics"]["ClassificationAccuracy"];
  CHECK(accuracy["n"] == 2);
  CHECK(accuracy["sd"].get<double>() == 0.0);  // the same run twice: the same accuracy
  CHECK(accuracy["better"] == "higher");
  // The baseline's mean, and the verdict by the sign of the difference (higher is better).
  const Json& base = summary["groups"][1]["metrics"]["ClassificationAccuracy"];
  const double difference = accuracy["mean"].get<double>() - base["mean"].get<double>();
  CHECK(accuracy["vs_baseline"]["difference"].get<double>() == Approx(difference));
  CHECK(accuracy["vs_baseline"]["verdict"] == (difference > 0   ? "better"
                                               : difference < 0 ? "worse"
                                                                : "same"));
  CHECK(summary["groups"][1]["metrics"]["ClassificationAccuracy"].count("vs_baseline") == 0);
  CHECK_THAT(read_file(out / "summary.md"),
             Catch::Contains("### ClassificationAccuracy") && Catch::Contains("| a/b16 | 2 |"));
  CHECK_THAT(read_file(out / "summary.html"), Catch::StartsWith("<!DOCTYPE html>"));

  // Again: every run is done.
  const auto again = run_cli("suite " + q(dir / "s.json") + " --jobs 2 --out " + q(out));
  INFO(again.out << again.err);
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Catch::Contains("(8 done)") && !Catch::Contains("running"));
  CHECK_THAT(again.out, Catch::Contains("a/b4/rep-1: skipped (done)"));
  CHECK(read_suite_json(out / "summary.json")["groups"][3]["ok"] == 2);

  // New bytes in b's model: b's four runs run again (and fail: it is not a model); a's do not.
  fs::copy_file(fixture("core/not_a_model.pt"), dir / "b.pt", fs::copy_options::overwrite_existing);
  const auto changed = run_cli("suite " + q(dir / "s.json") + " --out " + q(out));
  INFO(changed.out << changed.err);
  CHECK(changed.status == 1);
  CHECK_THAT(changed.out, Catch::Contains("(4 done)") && Catch::Contains("a/b4/rep-0: skipped") &&
                              Catch::Contains("b/b4/rep-0: running"));
  // --rerun runs everything.
  const auto rerun = run_cli("suite " + q(dir / "s.json") + " --out " + q(out) + " --rerun");
  CHECK_THAT(rerun.out, Catch::Contains("(0 done)") && Catch::Contains("a/b4/rep-0: running"));
}

TEST_CASE("a failing run is recorded with its cause and the others finish", "[cli][suite]") {
  const TempDir dir;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"bad\": " + classifier(fixture("core/not_a_model.pt")) +
                           ", \"good\": " + classifier(fixture("core/classifier.pt")) + "}}");
  const auto r = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out"));
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  const Json bad = read_suite_json(dir / "out/runs/bad/rep-0.run.json");
  CHECK(bad["status"] == "failed");
  CHECK(bad["exit_code"] == 2);
  CHECK_THAT(bad["cause"].get<std::string>(),
             Catch::Contains("exit status 2") && Catch::Contains("not_a_model.pt"));
  CHECK_FALSE(fs::exists(dir / "out/runs/bad/rep-0.json"));
  CHECK(read_suite_json(dir / "out/runs/good/rep-0.run.json")["status"] == "ok");
  const Json summary = read_suite_json(dir / "out/summary.json");
  CHECK(summary["failed_runs"] == 1);
  CHECK(summary["groups"][0]["failures"][0]["status"] == "failed");
  CHECK(summary["groups"][1]["ok"] == 1);
  CHECK_THAT(read_file(dir / "out/summary.md"), Catch::Contains("**1 run failed**"));
}

TEST_CASE("a run past its timeout is stopped and recorded, and the suite goes on", "[cli][suite]") {
  const TempDir dir;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"slow\": " + endless(fixture("core/classifier.pt")) +
                           ", \"good\": " + classifier(fixture("core/classifier.pt")) +
                           "}, \"timeout_seconds\": 600}");
  // --timeout overrides the suite's 600 s. The good run must finish within it: a process takes
  // about 3 s to start under AddressSanitizer.
#if defined(__SANITIZE_ADDRESS__)
  const std::string timeout = "20";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  const std::string timeout = "20";
#else
  const std::string timeout = "3";
#endif
#else
  const std::string timeout = "3";
#endif
  const auto r =
      run_cli("suite " + q(dir / "s.json") + " --timeout " + timeout + " --out " + q(dir / "out"));
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  const Json slow = read_suite_json(dir / "out/runs/slow/rep-0.run.json");
  CHECK(slow["status"] == "timeout");
  CHECK(slow["alone"] == true);
  CHECK_THAT(slow["cause"].get<std::string>(),
             Catch::Contains("timeout of " + timeout + " s (SIGTERM)"));
  CHECK_FALSE(fs::exists(dir / "out/runs/slow/rep-0.json"));
  CHECK_FALSE(has_temporaries(dir / "out/runs/slow"));
  CHECK(read_suite_json(dir / "out/runs/good/rep-0.run.json")["status"] == "ok");
}

TEST_CASE("a run that ignores SIGTERM at its timeout is killed after the grace", "[cli][suite]") {
  const TempDir dir;
  const TempDir logs;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"slow\": " + endless(fixture("core/classifier.pt")) +
                           "}, \"timeout_seconds\": 1}");
  BackgroundCli suite({"suite", (dir / "s.json").string(), "--out", (dir / "out").string()},
                      logs.path(),
                      /*ignore_sigterm=*/true);
  REQUIRE(suite.started());
  const int status = shell_status(suite.wait(120));
  INFO(suite.out() << suite.err());
  CHECK(status == 1);
  const Json slow = read_suite_json(dir / "out/runs/slow/rep-0.run.json");
  CHECK(slow["status"] == "timeout");
  CHECK(slow["signal"] == "SIGKILL");
  CHECK_THAT(slow["cause"].get<std::string>(), Catch::Contains("then SIGKILL"));
}

TEST_CASE("a run killed from outside is recorded as crashed with its signal", "[cli][suite]") {
  const TempDir dir;
  const TempDir logs;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"victim\": " + endless(fixture("core/classifier.pt")) +
                           ", \"good\": " + classifier(fixture("core/classifier.pt")) + "}}");
  BackgroundCli suite({"suite", (dir / "s.json").string(), "--out", (dir / "out").string()},
                      logs.path());
  REQUIRE(suite.wait_for_stdout("victim/rep-0: running", 60));
  std::vector<pid_t> children;
  for (int i = 0; i < 500 && children.empty(); ++i) {
    children = children_of(suite.pid());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(children.size() == 1);
  ::kill(children[0], SIGKILL);  // as the kernel's out-of-memory killer would
  const int status = shell_status(suite.wait(120));
  INFO(suite.out() << suite.err());
  CHECK(status == 1);
  const Json victim = read_suite_json(dir / "out/runs/victim/rep-0.run.json");
  CHECK(victim["status"] == "crashed");
  CHECK(victim["signal"] == "SIGKILL");
  CHECK_THAT(victim["cause"].get<std::string>(), Catch::Contains("out-of-memory"));
  CHECK(read_suite_json(dir / "out/runs/good/rep-0.run.json")["status"] == "ok");
}

TEST_CASE("Ctrl-C stops a suite with no partial file, exit 130, and a re-run resumes",
          "[cli][suite]") {
  const TempDir dir;
  const TempDir logs;
  const std::string quick = classifier(fixture("core/classifier.pt"));
  write_suite_cli_file(dir / "s.json", "{\"models\": {\"quick\": " + quick + ", \"slow\": " +
                                           endless(fixture("core/classifier.pt")) + "}}");
  {
    BackgroundCli suite({"suite", (dir / "s.json").string(), "--out", (dir / "out").string()},
                        logs.path());
    REQUIRE(suite.wait_for_stdout("slow/rep-0: running", 60));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(suite.pid(), SIGINT);
    const int status = shell_status(suite.wait(60));
    INFO(suite.out() << suite.err());
    CHECK(status == 130);
    CHECK_THAT(suite.out(), Catch::Contains("slow/rep-0: interrupted") &&
                                Catch::Contains("interrupted by SIGINT: 1 of 2 runs finished") &&
                                Catch::Contains("Run the same command again to resume"));
  }
  CHECK(fs::is_regular_file(dir / "out/runs/quick/rep-0.json"));
  CHECK_FALSE(fs::exists(dir / "out/runs/slow/rep-0.json"));
  CHECK_FALSE(fs::exists(dir / "out/runs/slow/rep-0.run.json"));
  CHECK_FALSE(has_temporaries(dir / "out/runs/slow"));
  CHECK_FALSE(fs::exists(dir / "out/summary.json"));
  // The slow run made quick: quick is skipped, slow runs, the summary appears.
  write_suite_cli_file(dir / "s.json", "{\"models\": {\"quick\": " + quick + ", \"slow\": " +
                                           classifier(fixture("core/classifier.pt")) + "}}");
  const auto again = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out"));
  INFO(again.out << again.err);
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Catch::Contains("quick/rep-0: skipped (done)") &&
                            Catch::Contains("slow/rep-0: running"));
  CHECK(fs::is_regular_file(dir / "out/summary.json"));
}

TEST_CASE("a bad suite file exits 2 naming the file and the key", "[cli][suite]") {
  const TempDir dir;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) +
                           "}, \"baseline\": \"nope\"}");
  const auto r = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains((dir / "s.json").string()) &&
                        Catch::Contains("'baseline' \"nope\" is not one of the groups"));
  CHECK_FALSE(fs::exists(dir / "out"));
  const auto missing = run_cli("suite " + q(dir / "none.json"));
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("none.json: no such suite file"));
}

TEST_CASE(
    "a second suite on a results folder in use exits 2 naming it and the holder, and a "
    "killed suite leaves no lock behind",
    "[cli][suite]") {
  const TempDir dir;
  const TempDir logs;
  const fs::path out = dir / "out";
  write_suite_cli_file(dir / "slow.json",
                       "{\"models\": {\"slow\": " + endless(fixture("core/classifier.pt")) + "}}");
  write_suite_cli_file(dir / "quick.json", "{\"models\": {\"quick\": " +
                                               classifier(fixture("core/classifier.pt")) + "}}");
  BackgroundCli first({"suite", (dir / "slow.json").string(), "--out", out.string()}, logs.path());
  REQUIRE(first.wait_for_stdout("slow/rep-0: running", 60));
  const auto second = run_cli("suite " + q(dir / "quick.json") + " --out " + q(out));
  CHECK(second.status == 2);
  CHECK_THAT(second.err, Catch::Contains(out.string()) && Catch::Contains("in use") &&
                             Catch::Contains("process " + std::to_string(first.pid())));
  CHECK_THAT(second.out, !Catch::Contains("running"));
  CHECK_FALSE(fs::exists(out / "runs" / "quick"));
  // SIGKILL gives the suite no chance to clean up; the kernel drops its lock all the same.
  first.signal(SIGKILL);
  CHECK(shell_status(first.wait(60)) == 128 + SIGKILL);
  const auto third = run_cli("suite " + q(dir / "quick.json") + " --out " + q(out));
  INFO(third.out << third.err);
  CHECK(third.status == 0);
  CHECK(read_suite_json(out / "runs/quick/rep-0.run.json")["status"] == "ok");
}

TEST_CASE("a suite whose groups neurobench run would refuse exits 2 before any run starts",
          "[cli][suite]") {
  const TempDir dir;
  const std::string model = fixture("core/classifier.pt").string();
  const std::string npz = fixture("core/classifier.npz").string();
  const auto refused = [&](const std::string& models, const std::string& part) {
    INFO(models);
    write_suite_cli_file(dir / "s.json", "{\"models\": " + models + "}");
    const auto r = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out"));
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains((dir / "s.json").string()) && Catch::Contains(part));
    CHECK_THAT(r.out, !Catch::Contains("running"));
    CHECK_FALSE(fs::exists(dir / "out"));
  };
  const std::string head = "{\"m\": {\"model\": \"" + model + "\", ";
  refused(head + "\"data\": \"" + npz + "\", \"workload\": [\"Acuracy\"]}}",
          "run 'm': unknown workload metric 'Acuracy'");
  refused(head + "\"dataset\": \"no-such-kind:x\", \"workload\": [\"ClassificationAccuracy\"]}}",
          "run 'm': unknown data set kind 'no-such-kind'");
  refused(head + "\"dataset\": \"speech-commands:x\", \"workload\": [\"ClassificationAccuracy\"]}}",
          "subset");
  // Both data and dataset in one entry: the .npz is not dropped silently.
  refused(
      head + "\"data\": \"" + npz +
          "\", \"dataset\": \"speech-commands:x\", \"workload\": [\"ClassificationAccuracy\"]}}",
      "'models.m': 'data' (");
  // Too many runs: refused at once, naming the axes, before anything is planned.
  std::string many = "{";
  for (int i = 0; i < 1000; ++i) {
    many += (i == 0 ? "" : ", ") + ("\"m" + std::to_string(i) + "\": {}");
  }
  write_suite_cli_file(dir / "s.json", "{\"models\": " + many + "}, \"repeats\": 10000}");
  const auto big = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out"));
  CHECK(big.status == 2);
  CHECK_THAT(big.err, Catch::Contains("1000 models = 1000 groups x 10000 repeats = 10000000 runs"));
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("a run whose results file was damaged after it finished runs again", "[cli][suite]") {
  const TempDir dir;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) + "}}");
  const std::string command = "suite " + q(dir / "s.json") + " --out " + q(dir / "out");
  const auto first = run_cli(command);
  INFO(first.out << first.err);
  REQUIRE(first.status == 0);
  const fs::path results = dir / "out/runs/m/rep-0.json";
  const std::string whole = read_file(results);
  write_suite_cli_file(results, whole.substr(0, whole.size() / 2));  // truncated
  const auto again = run_cli(command);
  INFO(again.out << again.err);
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Catch::Contains("(0 done)") && Catch::Contains("m/rep-0: running") &&
                            Catch::Contains("m/rep-0: ok"));
  // Written whole again: the same results, but for its date and the times of its phases.
  auto redone = read_suite_json(results);
  auto before = Json::parse(whole);
  for (Json* j : {&redone, &before}) {
    (*j)["_run"].erase("phases");
    (*j)["_environment"].erase("date");
  }
  CHECK(redone == before);
  CHECK(read_suite_json(dir / "out/runs/m/rep-0.run.json")["status"] == "ok");
}

TEST_CASE("suite flags refuse nan, hexadecimal and an empty --out before anything runs",
          "[cli][suite]") {
  const TempDir dir;
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) + "}}");
  const std::string suite = "suite " + q(dir / "s.json") + " --out " + q(dir / "out");
  for (const std::string value : {"nan", "inf", "0x10", ""}) {
    const auto r = run_cli(suite + " --timeout " + q(value));
    INFO("--timeout '" << value << "': " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err,
               Catch::StartsWith("error: --timeout: '" + value + "' is not a decimal number"));
  }
  for (const std::string value : {"0x10", "2.5", "1e1"}) {
    const auto r = run_cli(suite + " --jobs " + q(value));
    INFO("--jobs '" << value << "': " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: --jobs: '" + value + "' is not a whole number"));
  }
  const auto empty = run_cli("suite " + q(dir / "s.json") + " --out ''");
  CHECK(empty.status == 2);
  CHECK_THAT(empty.err, Catch::StartsWith("error: --out: an empty path"));
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("a suite file or results folder whose path is not UTF-8 is refused before anything",
          "[cli][suite]") {
  const TempDir dir;
  const fs::path bad = dir / "bad\xff";
  fs::create_directories(bad);
  write_suite_cli_file(bad / "s.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) + "}}");
  // From inside the folder, without --out: the suite file and SUITE-results are both in it.
  const auto inside = run_cli("suite " + q(bad / "s.json") + " --out " + q(bad / "s-results"));
  INFO(inside.err);
  CHECK(inside.status == 2);
  CHECK_THAT(inside.err, Catch::StartsWith("error: the suite file: the path ") &&
                             Catch::Contains("bad\\xff/s.json is not valid UTF-8"));
  write_suite_cli_file(dir / "s.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) + "}}");
  const auto out = run_cli("suite " + q(dir / "s.json") + " --out " + q(dir / "out\xfe"));
  INFO(out.err);
  CHECK(out.status == 2);
  CHECK_THAT(out.err, Catch::StartsWith("error: --out: the path ") &&
                          Catch::Contains("out\\xfe is not valid UTF-8"));
  CHECK_FALSE(fs::exists(dir / "out\xfe"));
  CHECK_FALSE(fs::exists(bad / "s-results"));
}

TEST_CASE("a suite whose summary would be written over its own suite file is refused",
          "[cli][suite][outputs]") {
  const TempDir dir;
  fs::create_directories(dir / "out");
  write_suite_cli_file(dir / "out" / "summary.json",
                       "{\"models\": {\"m\": " + classifier(fixture("core/classifier.pt")) + "}}");
  const std::string suite_text = read_file(dir / "out" / "summary.json");
  const auto r = run_cli("suite " + q(dir / "out" / "summary.json") + " --out " + q(dir / "out"));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("(the suite's summary) is the same file as") &&
                        Catch::Contains("(the suite file): an output must not overwrite an input"));
  CHECK(read_file(dir / "out" / "summary.json") == suite_text);
  CHECK_FALSE(fs::exists(dir / "out" / "runs"));
}
