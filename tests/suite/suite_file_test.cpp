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

void write_suite_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// Two models (one from a config in a sub-folder with a relative data path), two settings.
Json two_by_two(const fs::path& dir) {
  write_suite_file(dir / "configs" / "clf.json",
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
    "datasets": {"kind": {"dataset": {"kind": "speech-commands", "path": "gsc",
                                      "subset": "testing"}},
                 "npz": {"data": "b.npz"}}
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
  write_suite_file(dir / "wrong.json", R"({"model": "m.pt", "modle": 1})");
  fails(R"({"models": {"m": {"config": "wrong.json"}}})", "'models.m.config': ");
  CHECK_THROWS_WITH(
      parse_suite(Json::parse(R"({"models": {"m": {"config": "wrong.json"}}})"), file),
      Catch::Contains("unknown key 'modle'"));
}

TEST_CASE("read_suite_file reads comments and names a file that is not JSON",
          "[suite][suite_file]") {
  const TempDir dir;
  write_suite_file(
      dir / "s.json",
      "// a suite\n{\"models\": {\"m\": {\"model\": \"m.pt\", \"data\": \"d.npz\", "
      "\"workload\": [\"ClassificationAccuracy\"]}}, \"jobs\": 2, \"timeout_seconds\": 9}");
  const auto s = read_suite_file(dir / "s.json");
  CHECK(s.name == "s");
  CHECK(s.jobs == 2);
  CHECK(s.timeout_seconds == 9.0);
  write_suite_file(dir / "t.json", "{\"models\": ");
  CHECK_THROWS_AS(read_suite_file(dir / "t.json"), neurobench::InputError);
  CHECK_THROWS_WITH(read_suite_file(dir / "t.json"), Catch::Contains((dir / "t.json").string()));
}

TEST_CASE(
    "a suite group that neurobench run would refuse before loading the model is a "
    "UsageError naming the group",
    "[suite][suite_file]") {
  const TempDir dir;
  const fs::path file = dir / "s.json";
  const auto fails = [&](const std::string& text, const std::string& part) {
    INFO(text);
    const Json j = Json::parse(text);
    CHECK_THROWS_AS(parse_suite(j, file), UsageError);
    CHECK_THROWS_WITH(parse_suite(j, file), Catch::Contains(file.string()) &&
                                                Catch::Contains("run 'm/s'") &&
                                                Catch::Contains(part));
  };
  const std::string m = R"("models": {"m": {"model": "m.pt", "data": "d.npz", )"
                        R"("workload": ["ClassificationAccuracy"]}})";
  // An unknown metric, in each list; a metric option it does not take; an unknown processor.
  fails("{" + m + R"(, "settings": {"s": {"metrics": ["Acuracy"]}}})", "unknown metric 'Acuracy'");
  fails("{" + m + R"(, "settings": {"s": {"workload": ["Acuracy"]}}})", "Acuracy");
  fails("{" + m + R"(, "settings": {"s": {"static": ["Acuracy"]}}})", "Acuracy");
  fails("{" + m +
            R"(, "settings": {"s": {"workload": [{"name": "ClassificationAccuracy", )"
            R"("options": {"nope": 1}}]}}})",
        "nope");
  fails("{" + m + R"(, "settings": {"s": {"pre": ["NoSuchProcessor"]}}})", "NoSuchProcessor");
  // A data set of an unknown kind; one without its required subset.
  fails("{" + m + R"(, "settings": {"s": {"dataset": "no-such-kind:x"}}})", "no-such-kind");
  fails("{" + m + R"(, "settings": {"s": {"dataset": "speech-commands:gsc"}}})", "subset");
  // A GPU that is not there (built without CUDA, or not that many GPUs).
  fails("{" + m + R"(, "settings": {"s": {"device": "cuda:99"}}})", "cuda:99");
  // The same settings on a good group are accepted: the check is of the merged group.
  const Json good = Json::parse("{" + m +
                                R"(, "settings": {"s": {"dataset": {"kind": "speech-commands", )"
                                R"("path": "gsc", "subset": "testing"}}}})");
  CHECK(parse_suite(good, file).groups.size() == 1);
}

TEST_CASE("a suite entry with both data and dataset is a UsageError naming the entry",
          "[suite][suite_file]") {
  const TempDir dir;
  const fs::path file = dir / "s.json";
  const Json j = Json::parse(R"({"models": {"m": {"model": "m.pt", "data": "d.npz",
    "dataset": "speech-commands:gsc", "workload": ["ClassificationAccuracy"]}}})");
  CHECK_THROWS_AS(parse_suite(j, file), UsageError);
  CHECK_THROWS_WITH(parse_suite(j, file), Catch::Contains(file.string() + ": 'models.m'") &&
                                              Catch::Contains("'data' (") &&
                                              Catch::Contains("are both set"));
  // In a referenced config too (as `neurobench run` reads it).
  write_suite_file(dir / "both.json",
                   R"({"model": "m.pt", "data": "d.npz", "dataset": "speech-commands:gsc"})");
  CHECK_THROWS_WITH(parse_suite(Json::parse(R"({"models": {"m": {"config": "both.json"}}})"), file),
                    Catch::Contains("'models.m.config'") && Catch::Contains("are both set"));
}

TEST_CASE("a suite entry name past 100 characters is refused for its length, not its letters",
          "[suite][suite_file]") {
  const TempDir dir;
  const fs::path file = dir / "s.json";
  const auto suite = [](const std::string& name) {
    Json j = Json::parse(R"({"models": {}})");
    j["models"][name] = Json::parse(
        R"({"model": "m.pt", "data": "d.npz", "workload": ["ClassificationAccuracy"]})");
    return j;
  };
  CHECK(parse_suite(suite(std::string(100, 'a')), file).groups[0].id == std::string(100, 'a'));
  const Json long_name = suite(std::string(101, 'a'));
  CHECK_THROWS_AS(parse_suite(long_name, file), UsageError);
  CHECK_THROWS_WITH(parse_suite(long_name, file),
                    Catch::Contains("is 101 characters long: at most 100") &&
                        !Catch::Contains("not a folder name"));
}

TEST_CASE(
    "a suite's size is counted before it is expanded and refused past the limits, naming "
    "the axes",
    "[suite][suite_file]") {
  const TempDir dir;
  const fs::path file = dir / "s.json";
  // 1000 models x 1000 settings, each entry's config a file that does not exist: the count
  // comes first, so nothing is read or expanded.
  Json j = Json::object();
  for (int i = 0; i < 1000; ++i) {
    j["models"]["m" + std::to_string(i)] = Json{{"config", "missing.json"}};
    j["settings"]["s" + std::to_string(i)] = Json{{"batch_size", i + 1}};
  }
  j["repeats"] = 10000;
  CHECK_THROWS_AS(parse_suite(j, file), UsageError);
  CHECK_THROWS_WITH(parse_suite(j, file),
                    Catch::Contains(file.string()) &&
                        Catch::Contains("1000 models x 1000 settings = 1000000 groups x 10000 "
                                        "repeats = 10000000000 runs: too many") &&
                        Catch::Contains("at most 10000 runs"));
  // Past the limit by repeats alone.
  const std::string m = R"("models": {"m": {"model": "m.pt", "data": "d.npz", )"
                        R"("workload": ["ClassificationAccuracy"]}})";
  Json settings = Json::object();
  for (int i = 0; i < 11; ++i) settings["s" + std::to_string(i)] = Json::object();
  Json many = Json::parse("{" + m + R"(, "repeats": 1000})");
  many["settings"] = settings;
  CHECK_THROWS_WITH(
      parse_suite(many, file),
      Catch::Contains("1 models x 11 settings = 11 groups x 1000 repeats = 11000 runs: "
                      "too many"));
  // At the limit: planned.
  many["repeats"] = 909;
  CHECK(parse_suite(many, file).groups.size() == 11);
}
