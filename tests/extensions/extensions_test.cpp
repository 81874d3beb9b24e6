// SPDX-License-Identifier: Apache-2.0
// A metric, a pre-processor and a data set kind added as docs/design.md ("Where things go")
// says: each one .cpp file with its registration line (tests/extensions/*.cpp), built into a
// plugin library as a user would build theirs. The stock command line lists them, finds them
// by name and runs them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::TempDir;

namespace {

const std::string kExtensions = NEUROBENCH_TEST_EXTENSIONS;

// The lines of `list`'s section that starts with `heading`, up to the next blank line.
std::string list_section(const std::string& listing, const std::string& heading) {
  const auto start = listing.find(heading);
  if (start == std::string::npos) return "";
  const auto end = listing.find("\n\n", start);
  return listing.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string run_ramp(const std::string& more) {
  return "run --plugin " + q(kExtensions) + " --model " + q(fixture("core/classifier.pt")) +
         " --dataset test_ramp:unused --batch-size 2 --quiet " + more;
}

}  // namespace

TEST_CASE("one-file extensions are listed with the library they came from", "[extensions][cli]") {
  const auto r = run_cli("list --plugin " + q(kExtensions));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string from = "from " + kExtensions;
  CHECK_THAT(list_section(r.out, "workload metrics"),
             Catch::Contains("TestDataSum") && Catch::Contains("data units, higher is better") &&
                 Catch::Contains(from));
  CHECK_THAT(list_section(r.out, "pre-processors"),
             Catch::Contains("TestDouble") &&
                 Catch::Contains("doubles the data (a test processor)") && Catch::Contains(from));
  CHECK_THAT(list_section(r.out, "data set kinds"),
             Catch::Contains("test-ramp") &&
                 Catch::Contains("PATH: anything: the path is not read") &&
                 Catch::Contains("option samples (integer, default 6): how many rows") &&
                 Catch::Contains(from));
}

TEST_CASE("one-file extensions are found by name and used in a run", "[extensions][cli]") {
  const TempDir dir;
  const auto r =
      run_cli(run_ramp("--dataset-options samples=5 --pre test-double --metrics "
                       "test_data_sum,ClassificationAccuracy --json " +
                       q(dir / "r.json")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(read_file(dir / "r.json"));
  // Rows 0 to 4 of 4 features each, doubled by the pre-processor: 2 * 4 * (0 + 1 + 2 + 3 + 4).
  CHECK(doc["TestDataSum"] == 80.0);
  CHECK(doc["_metrics"]["TestDataSum"]["unit"] == "data units");
  CHECK(doc["_metrics"]["TestDataSum"]["source"] == kExtensions);
  CHECK(doc["_run"]["dataset"]["kind"] == "test-ramp");
  CHECK(doc["_run"]["dataset"]["options"] == nlohmann::json{{"samples", 5}});
  CHECK(doc["_run"]["dataset"]["samples"] == 5);
  CHECK(doc["_run"]["pre"] == nlohmann::json::array({"TestDouble"}));

  // The kind checks its option's value when the spec is checked, before anything runs.
  const auto bad = run_cli(run_ramp("--dataset-options samples=0 --metrics TestDataSum"));
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err,
             Catch::Contains("data set 'test-ramp': option 'samples' must be at least 1, got 0"));
  // Without the library, none of them exists.
  const auto none = run_cli("run --model " + q(fixture("core/classifier.pt")) +
                            " --dataset test-ramp:unused --quiet");
  CHECK(none.status == 2);
  CHECK_THAT(none.err, Catch::Contains("unknown data set kind 'test-ramp'"));
}
