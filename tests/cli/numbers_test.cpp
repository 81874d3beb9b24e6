// SPDX-License-Identifier: Apache-2.0
// `neurobench run`'s numbers: every numeric flag and config key in a documented range, refused
// with one message naming the flag and the range; --max-time bounding the timing pass.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;

namespace {
std::string numbers_classifier_args() {
  return "run --model " + q(fixture("core/classifier.pt")) + " --data " +
         q(fixture("core/classifier.npz")) + " --quiet";
}

std::string max_threads() {
  return std::to_string(
      std::max<unsigned>(256, 4 * std::max(1U, std::thread::hardware_concurrency())));
}

nlohmann::json read_numbers_json(const std::filesystem::path& p) {
  return nlohmann::json::parse(neurobench::test::read_file(p));
}
}  // namespace

TEST_CASE(
    "an out-of-range or malformed number exits 2 with one line naming the flag and the "
    "range",
    "[cli][numbers]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  struct Case {
    std::string flags;
    std::string says;
  };
  const std::string batch = "expected an integer from 1 to 2147483647";
  const std::vector<Case> cases = {
      {"--batch-size 0", "error: --batch-size: 0 is out of range; " + batch},
      {"--batch-size -1", "error: --batch-size: -1 is out of range; " + batch},
      {"--batch-size abc", "error: --batch-size: 'abc' is not an integer; " + batch},
      {"--batch-size 2.5", "error: --batch-size: '2.5' is not an integer; " + batch},
      // Once clamped silently to the largest int64.
      {"--batch-size 99999999999999999999",
       "error: --batch-size: 99999999999999999999 is out of range; " + batch},
      {"--threads 0",
       "error: --threads: 0 is out of range; expected an integer from 1 to " + max_threads()},
      {"--threads 100000",
       "error: --threads: 100000 is out of range; expected an integer from "
       "1 to " +
           max_threads()},
      {"--min-time inf",
       "error: --min-time: 'inf' is not a number; expected a number of "
       "seconds from 0 to 86400"},
      {"--min-time -1",
       "error: --min-time: -1 is out of range; expected a number of seconds "
       "from 0 to 86400"},
      {"--max-time abc",
       "error: --max-time: 'abc' is not a number; expected a number of "
       "seconds from 0 to 86400"},
      {"--max-time 1e9", "error: --max-time: 1e9 is out of range"},
      {"--warmup 2000000000",
       "error: --warmup: 2000000000 is out of range; expected an "
       "integer from 0 to 1000000"},
      {"--runs 1000001",
       "error: --runs: 1000001 is out of range; expected an integer from 0 (as many as fit in "
       "min_time) to 1000000"},
      {"--startup-runs 2000000000",
       "error: --startup-runs: 2000000000 is out of range; "
       "expected an integer from 1 to 10000"},
      {"--latency-batch-size -5",
       "error: --latency-batch-size: -5 is out of range; expected an integer from 0 "
       "(batch_size) to 2147483647"},
      {"--shuffle-seed -1",
       "error: --shuffle-seed: -1 is out of range; expected an integer "
       "from 0 to 18446744073709551615"},
      {"--shuffle-seed 18446744073709551616",
       "error: --shuffle-seed: 18446744073709551616 is out of range"},
      {"--max-array-bytes 0",
       "error: --max-array-bytes: 0 is out of range; expected an integer from 1 to "
       "9223372036854775807"},
      {"--max-array-bytes 1G",
       "error: --max-array-bytes: '1G' is not an integer; expected an integer from 1 to "
       "9223372036854775807"},
      {"--max-array-bytes 18446744073709551616",
       "error: --max-array-bytes: 18446744073709551616 is out of range"},
      // Given the default max_time (60 s), min_time 100 would never be reached.
      {"--min-time 100", "min_time (100 s) is more than max_time (60 s)"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(numbers_classifier_args() + " --metrics MSE,Latency --json " + q(json) +
                           " " + c.flags);
    INFO(c.flags << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(c.says) || Catch::StartsWith("error: timing: " + c.says));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, !Catch::Contains("179769313486231570"));
    CHECK_FALSE(std::filesystem::exists(json));
  }
}

TEST_CASE("a config's numbers are checked as the flags are, naming the file and the key",
          "[cli][numbers]") {
  neurobench::test::TempDir dir;
  struct Case {
    std::string key_value;
    std::string says;
  };
  const std::vector<Case> cases = {
      {R"("threads": 4294967297)",
       "'threads': 4294967297 is out of range; expected an integer "
       "from 1 to " +
           max_threads()},
      {R"("threads": 2147483648)", "'threads': 2147483648 is out of range"},
      {R"("warmup": 1e12)",
       "'warmup': 1000000000000.0 is out of range; expected an integer "
       "from 0 to 1000000"},
      {R"("batch_size": 99999999999999999999)", "'batch_size': 1e+20 is out of range"},
      {R"("shuffle_seed": -1)", "'shuffle_seed': -1 is out of range"},
      {R"("max_time": 0.5, "min_time": 2)", "min_time (2 s) is more than max_time (0.5 s)"},
  };
  for (const auto& c : cases) {
    std::ofstream(dir / "bench.json")
        << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
        << fixture("core/classifier.npz").string() << R"(", "metrics": ["Latency"], )"
        << c.key_value << R"(, "quiet": true, "outputs": {"json": "out.json"}})";
    const auto r = run_cli("run " + q(dir / "bench.json"));
    INFO(c.key_value << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: "));
    CHECK_THAT(r.err, Catch::Contains(c.says));
    if (c.says.rfind("min_time", 0) != 0) {
      CHECK_THAT(r.err, Catch::Contains((dir / "bench.json").string() + ": "));
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out.json"));
  }
  // A flag after the config overrides its value, and is checked as the value is.
  std::ofstream(dir / "bench.json")
      << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
      << fixture("core/classifier.npz").string()
      << R"(", "metrics": ["MSE"], "threads": 2, "min_time": 100, "quiet": true})";
  const auto flag = run_cli("run " + q(dir / "bench.json") + " --threads 0");
  CHECK(flag.status == 2);
  CHECK_THAT(flag.err, Catch::StartsWith("error: --threads: 0 is out of range"));
  // min_time 100 needs a max_time of at least 100, which a flag may give.
  const auto longer = run_cli("run " + q(dir / "bench.json") + " --max-time 100");
  INFO(longer.err);
  CHECK(longer.status == 0);
}

TEST_CASE("an option where a value belongs is not taken as the value", "[cli][numbers]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "r.json";
  // An empty list is refused naming --metrics; --json stays an option, r.json is not written.
  const auto empty = run_cli(numbers_classifier_args() + " --metrics ',,,' --json " + q(json));
  INFO(empty.err);
  CHECK(empty.status == 2);
  CHECK_THAT(empty.err, Catch::StartsWith("error: --metrics: ") &&
                            Catch::Contains("an empty name") && !Catch::Contains("'--json'"));
  CHECK_FALSE(std::filesystem::exists(json));
  // No value at all: CLI11 would make "--json" the metric and r.json the config.
  const auto none = run_cli(numbers_classifier_args() + " --metrics --json " + q(json));
  INFO(none.err);
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::StartsWith("error: --metrics: no value given (the argument "
                                         "'--json' after it is an option)"));
  CHECK_FALSE(std::filesystem::exists(json));
  const auto model =
      run_cli("run --model --data " + q(fixture("core/classifier.npz")) + " --metrics MSE");
  CHECK(model.status == 2);
  CHECK_THAT(model.err, Catch::StartsWith("error: --model: no value given"));
  // A negative number is still a value, checked against its range.
  const auto seed = run_cli(numbers_classifier_args() + " --metrics MSE --shuffle-seed -1");
  CHECK(seed.status == 2);
  CHECK_THAT(seed.err, Catch::StartsWith("error: --shuffle-seed: -1 is out of range"));
  // CLI11's own errors carry the same prefix.
  const auto missing = run_cli(numbers_classifier_args() + " --metrics MSE --batch-size");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::StartsWith("error: ") && Catch::Contains("--batch-size"));
}

TEST_CASE("the shuffle seed is recorded in _run whenever the samples are shuffled",
          "[cli][numbers]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli(numbers_classifier_args() +
                         " --metrics ClassificationAccuracy --batch-size 3 "
                         "--shuffle-seed 18446744073709551615 --json " +
                         q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto doc = read_numbers_json(json);
  CHECK(doc["_run"]["shuffle_seed"].get<std::uint64_t>() == 18446744073709551615ULL);
  CHECK(doc["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));

  const auto unshuffled = run_cli(numbers_classifier_args() + " --metrics MSE --json " + q(json));
  REQUIRE(unshuffled.status == 0);
  CHECK_FALSE(read_numbers_json(json)["_run"].contains("shuffle_seed"));
}

TEST_CASE("a timing pass asked for a million runs ends at --max-time and reports the runs made",
          "[cli][numbers][timing]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli(numbers_classifier_args() +
                         " --metrics Latency,Throughput,StartupTime --batch-size 5 --warmup 0 "
                         "--runs 1000000 "
                         "--startup-runs 10000 --max-time 0.2 --json " +
                         q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto doc = read_numbers_json(json);
  const auto& timing = doc["_run"]["timing"];
  const auto runs = timing["runs_done"].get<int64_t>();
  CHECK(runs >= 1);
  CHECK(runs < 1000000);
  CHECK(timing["runs"] == 1000000);
  CHECK(timing["max_time_s"] == 0.2);
  CHECK(timing["max_time_reached"] == true);
  CHECK(doc["Latency"]["runs"] == runs);
  CHECK(doc["Throughput"]["runs"] == runs);
  const auto loads = timing["startup_runs_done"].get<int64_t>();
  CHECK(loads >= 1);
  CHECK(loads < 10000);
  CHECK(doc["StartupTime"]["runs"] == loads);
  CHECK_THAT(r.err, Catch::Contains("warning: timing: max_time (0.2 s) reached after 0 of 0 "
                                    "warm-up runs and " +
                                    std::to_string(runs) + " of 1000000 timed runs"));
  CHECK_THAT(r.err, Catch::Contains("warning: timing: max_time (0.2 s) reached after " +
                                    std::to_string(loads) + " of 10000 start-up runs"));
  std::vector<std::string> warnings = doc["_run"]["warnings"];
  CHECK(warnings.size() == 2);

  // Warm-up that uses up the time still leaves one timed run.
  const auto warm = run_cli(numbers_classifier_args() +
                            " --metrics Latency --warmup 1000000 --runs 5 --max-time 0.2 "
                            "--json " +
                            q(json));
  INFO(warm.err);
  REQUIRE(warm.status == 0);
  const auto w = read_numbers_json(json);
  CHECK(w["_run"]["timing"]["warmup_runs_done"].get<int64_t>() < 1000000);
  CHECK(w["_run"]["timing"]["runs_done"] == 1);
  CHECK(w["Latency"]["warmup_runs"] == w["_run"]["timing"]["warmup_runs_done"]);

  // A pass that fits says so: no warning.
  const auto fits = run_cli(numbers_classifier_args() +
                            " --metrics Latency --warmup 1 --runs 3 --json " + q(json));
  REQUIRE(fits.status == 0);
  const auto f = read_numbers_json(json);
  CHECK(f["_run"]["timing"]["max_time_reached"] == false);
  CHECK(f["_run"]["timing"]["max_time_s"] == 60);
  CHECK(f["_run"]["timing"]["runs_done"] == 3);
  CHECK_THAT(fits.err, !Catch::Contains("max_time"));
}

TEST_CASE("run --help shows each number's range and --max-time", "[cli][numbers]") {
  const auto r = run_cli("run --help");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("--max-time") &&
                        Catch::Contains("an integer from 1 to 2147483647") &&
                        Catch::Contains("a number of seconds from 0 to 86400"));
}

TEST_CASE("flags CLI11 converts itself refuse nan, inf, hexadecimal and spaces by name",
          "[cli][numbers]") {
  for (const std::string value : {"nan", "inf", "-inf", "0x10", " 3", "1e", ""}) {
    INFO("--distributed-timeout '" << value << "'");
    const auto r =
        run_cli(numbers_classifier_args() + " --metrics MSE --distributed-timeout " + q(value));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: --distributed-timeout: '" + value +
                                        "' is not a decimal number"));
  }
  const auto range =
      run_cli(numbers_classifier_args() + " --metrics MSE --distributed-timeout 1e9");
  CHECK(range.status == 2);
  CHECK_THAT(range.err, Catch::StartsWith("error: --distributed-timeout: ") &&
                            Catch::Contains("1e9"));
  for (const std::string value : {"0x10", "nan", "inf"}) {
    const auto r = run_cli("compare " + q(fixture("core/classifier.npz")) + " " +
                           q(fixture("core/classifier.npz")) + " --fail-above " + value);
    CHECK(r.status == 2);
    CHECK(r.err == "error: --fail-above: '" + value +
                       "' is not a percentage >= 0 (give it as 5% or 5)\n");
  }
}
