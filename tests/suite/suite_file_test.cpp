// SPDX-License-Identifier: Apache-2.0
// Suite files: the cross product of the axes, merged configs, and every error naming the file
// and the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <neurobench/errors.hpp>

#include "suite/suite_file.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::UsageError;
using neurobench::suite::parse_suite;
using neurobench::suite::read_suite_file;
using neurobench::test::fixture;
using neurobench::test::TempDir;

namespace {

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// Two models (one from a config in a sub-folder with a relative data path), two settings.
Json two_by_two(const fs::path& dir) {
  write(dir / "configs" / "clf.json",
        "{\"model\": \"" + fixture("core/classifier.pt").string() +
            "\", \"data\": \"data/x.npz\", \"batch_size\": 7, \"_comment\": \"c\","
            " \"workload\": [\"ClassificationAccuracy\"]}");
  return Json::parse(R"({
    "name": "demo",
    "models": {
      "clf": {"config": "configs/clf.json"},
      "timed": {"model": "m.pt", "data": "d.npz", "metrics": ["Latency"]}
    },
    "settings": {"b1": {"batch_size": 1}, "b2": {}},
    "repeats": 3,
    "baseline": "clf/b2"
  })");
}

}  // namespace

TEST_CASE("a suite's runs are the cross product of its axes, later axes overriding",
          "[suite][suite_file]") {
  const TempDir dir;
  const auto s = parse_suite(two_by_two(dir.path()), dir / "s.json");
  CHECK(s.name == "demo");
  CHECK(s.repeats == 3);
  CHECK(s.baseline == "clf/b2");
  REQUIRE(s.groups.size() == 4);
  CHECK(s.groups[0].id == "clf/b1");
  CHECK(s.groups[1].id == "clf/b2");
  CHECK(s.groups[2].id == "timed/b1");
  CHECK(s.groups[3].id == "timed/b2");
  CHECK(s.groups[0].config.batch_size == 1);  // the setting over the config's 7
  CHECK(s.groups[1].config.batch_size == 7);
  CHECK(s.groups[3].config.batch_size == 64);
  // A referenced config's relative paths stay relative to its own folder; the suite's to its.
  CHECK(s.groups[0].config.data == fs::absolute(dir / "configs" / "data" / "x.npz"));
  CHECK(s.groups[2].config.model == fs::absolute(dir / "m.pt"));
  CHECK_FALSE(s.groups[0].timed);
  CHECK(s.groups[2].timed);
  CHECK(s.jobs == 1);
  CHECK_FALSE(s.timeout_seconds);
}

TEST_CASE("data and dataset of a later axis replace those of an earlier one",
          "[suite][suite_file]") {
  const TempDir dir;
  const Json j = Json::parse(R"({
    "models": {"m": {"model": "m.pt", "data": "a.npz", "workload": ["ClassificationAccuracy"]}},
    "datasets": {"kind": {"dataset": "speech-commands:gsc"}, "npz": {"data": "b.npz"}}
  })");
  const auto s = parse_suite(j, dir / "s.json");
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[0].config.data.empty());
  CHECK(s.groups[0].config.dataset.path == fs::absolute(dir / "gsc"));
  CHECK(s.groups[1].config.data == fs::absolute(dir / "b.npz"));
  CHECK(s.groups[1].config.dataset.empty());
  CHECK(s.baseline == "m/kind");  // the first group when none is named
}

TEST_CASE("a bad suite is a UsageError naming the file and the key", "[suite][suite_file]") {
  const TempDir dir;
  const fs::path file = dir / "bad.json";
  const auto fails = [&](const std::string& text, const std::string& part) {
    INFO(text);
    const Json j = Json::parse(text);
    CHECK_THROWS_AS(parse_suite(j, file), UsageError);
    CHECK_THROWS_WITH(parse_suite(j, file),
                      Catch::Contains(file.string()) && Catch::Contains(part));
  };
  const std::string m = R"("models": {"m": {"model": "m.pt", "data": "d.npz", )"
                        R"("workload": ["ClassificationAccuracy"]}})";
  fails("{" + m + R"(, "repeat": 3})", "unknown key 'repeat'");
  fails("{" + m + R"(, "baseline": "x/y"})", "'baseline' \"x/y\" is not one of the groups (m)");
  fails("{" + m + R"(, "settings": {}})", "'settings' is empty");
  fails(R"({"models": {}})", "'models' is empty");
  fails(R"({"name": "x"})", "'models' is missing");
  fails("{" + m + R"(, "repeats": 0})", "'repeats' must be an integer from 1 to");
  fails("{" + m + R"(, "timeout_seconds": -1})", "'timeout_seconds' must be");
  fails("{" + m + R"(, "settings": {"a b": {}}})", "entry name 'a b' is not a folder name");
  fails("{" + m + R"(, "settings": {"s": {"batch_sise": 2}}})", "unknown key 'batch_sise'");
  fails("{" + m + R"(, "settings": {"s": {"batch_size": 0}}})", "'batch_size'");
  fails("{" + m + R"(, "settings": {"s": {"outputs": {"json": "x.json"}}}})",
        "'outputs' is not allowed in a suite");
  fails(R"({"models": {"m": {"config": "missing.json"}}})",
        "'models.m.config': " + (dir / "missing.json").string() + ": no such config file");
  fails(R"({"models": {"m": {"data": "d.npz", "workload": ["ClassificationAccuracy"]}}})",
        "run 'm': no 'model'");
  fails(R"({"models": {"m": {"model": "m.pt", "data": "d.npz"}}})", "run 'm': no metrics");
  write(dir / "wrong.json", R"({"model": "m.pt", "modle": 1})");
  fails(R"({"models": {"m": {"config": "wrong.json"}}})", "'models.m.config': ");
  CHECK_THROWS_WITH(parse_suite(Json::parse(R"({"models": {"m": {"config": "wrong.json"}}})"),
                                file),
                    Catch::Contains("unknown key 'modle'"));
}

TEST_CASE("read_suite_file reads comments and names a file that is not JSON",
          "[suite][suite_file]") {
  const TempDir dir;
  write(dir / "s.json",
        "// a suite\n{\"models\": {\"m\": {\"model\": \"m.pt\", \"data\": \"d.npz\", "
        "\"workload\": [\"ClassificationAccuracy\"]}}, \"jobs\": 2, \"timeout_seconds\": 9}");
  const auto s = read_suite_file(dir / "s.json");
  CHECK(s.name == "s");
  CHECK(s.jobs == 2);
  CHECK(s.timeout_seconds == 9.0);
  write(dir / "t.json", "{\"models\": ");
  CHECK_THROWS_AS(read_suite_file(dir / "t.json"), neurobench::InputError);
  CHECK_THROWS_WITH(read_suite_file(dir / "t.json"), Catch::Contains((dir / "t.json").string()));
}
