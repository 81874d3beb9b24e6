// SPDX-License-Identifier: Apache-2.0
// The table of a run's keys is the one place a key is declared: every reader follows it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <neurobench/config.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/run_keys.hpp>

#include "support.hpp"

using neurobench::BenchmarkConfig;
using neurobench::Json;
using neurobench::run_keys;
using neurobench::RunKey;
using neurobench::RunKeyValue;

namespace {

// A value of `k`'s kind that is not the key's default, as a config file writes it.
Json other_value(const RunKey& k) {
  switch (k.value) {
    case RunKeyValue::Path:
      return "some/file.bin";
    case RunKeyValue::Boolean:
      return !BenchmarkConfig{}.to_json().value(std::string(k.key), false);
    case RunKeyValue::Integer:
      return BenchmarkConfig{}.to_json().value(std::string(k.key), Json(0)) == Json(7) ? 8 : 7;
    case RunKeyValue::Seconds:
      return 2.5;
    case RunKeyValue::Text:
      return "net.encoder";
    case RunKeyValue::Device:
      return "lazy";
    case RunKeyValue::Names:
      return Json::array({"ReLU", "Tanh"});
    case RunKeyValue::Metrics:
      return Json::array({"Footprint", Json{{"name", "Latency"}, {"options", {{"a", 1}}}}});
    case RunKeyValue::Processors:
      return Json::array({"Aggregate"});
    case RunKeyValue::Dataset:
      return Json{{"kind", "speech-commands"}, {"path", "gsc"}, {"subset", "testing"}};
    case RunKeyValue::Outputs:
      return Json{{"json", "results.json"}};
    case RunKeyValue::Choice: {  // a word among its choices, not the default
      const std::vector<std::string> words = neurobench::run_key_choices(k);
      return BenchmarkConfig{}.get_key(k.key) == Json(words.at(0)) ? Json(words.at(1))
                                                                   : Json(words.at(0));
    }
    default:
      return nullptr;
  }
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("each config key of the table is read, written and read back", "[config][run_keys]") {
  std::set<std::string> seen;
  for (const RunKey& k : run_keys()) {
    if (k.key.empty()) continue;
    const std::string key(k.key);
    INFO(key);
    REQUIRE(seen.insert(key).second);  // each key once
    REQUIRE(neurobench::find_run_key(key) != nullptr);
    REQUIRE(std::string(BenchmarkConfig::keys()).find(key) != std::string::npos);
    const Json value = other_value(k);
    REQUIRE_FALSE(value.is_null());
    // The reader takes it, the writer writes it, and the two agree.
    const BenchmarkConfig c = BenchmarkConfig::from_json(Json{{key, value}}, {}, "test");
    const Json written = c.to_json();
    REQUIRE(written.contains(key));
    REQUIRE(BenchmarkConfig::from_json(written, {}, "again").to_json() == written);
    REQUIRE(written[key] != BenchmarkConfig{}.to_json().value(key, Json(nullptr)));
    // Through set_key, as the command line sets its flags.
    BenchmarkConfig by_key;
    by_key.set_key(key, value);
    REQUIRE(by_key.to_json() == written);
  }
  // Every numeric key of the config is a row of the table, and every Integer or Seconds row
  // has a range.
  for (const std::string& key : BenchmarkConfig::number_keys()) {
    INFO(key);
    const RunKey* k = neurobench::find_run_key(key);
    REQUIRE(k != nullptr);
    REQUIRE((k->value == RunKeyValue::Integer || k->value == RunKeyValue::Seconds));
  }
  CHECK_THROWS_WITH(BenchmarkConfig{}.set_key("no_such_key", 1),
                    Catch::Contains("unknown key 'no_such_key'") && Catch::Contains("batch_size"));
}

TEST_CASE("every flag of the table is a flag of neurobench run", "[cli][run_keys]") {
  const auto r = neurobench::test::run_cli("run --help");
  REQUIRE(r.status == 0);
  for (const RunKey& k : run_keys()) {
    if (k.flag.empty()) continue;
    INFO(k.flag);
    CHECK_THAT(r.out, Catch::Contains(std::string(k.flag)));
    if (!k.short_flag.empty()) CHECK_THAT(r.out, Catch::Contains(std::string(k.short_flag)));
  }
  CHECK_THAT(r.out, Catch::Contains("--json") && Catch::Contains("--csv"));
}

TEST_CASE("docs/cli.md holds the table of a run's keys as the library makes it",
          "[docs][run_keys]") {
  const auto docs = std::filesystem::path(NEUROBENCH_TEST_FIXTURES).parent_path().parent_path() /
                    "docs" / "cli.md";
  const std::string text = read_text(docs);
  const std::string table = neurobench::run_keys_markdown();
  INFO("docs/cli.md, section \"Every key of a run\", should hold:\n" << table);
  CHECK(text.find(table) != std::string::npos);
}

TEST_CASE("a key added as one row: progress, its words checked, its lines on any stderr",
          "[cli][run_keys]") {
  using neurobench::test::fixture;
  using neurobench::test::q;
  CHECK_THROWS_WITH(BenchmarkConfig::from_json(Json{{"progress", "bars"}}, {}, "bench.json"),
                    Catch::Contains("bench.json: 'progress' must be one of auto,lines,off") &&
                        Catch::Contains("bars"));
  CHECK(BenchmarkConfig::from_json(Json{{"progress", "lines"}}, {}, "x").run_options().progress ==
        neurobench::ProgressMode::Lines);
  const std::string args = "run --model " + q(fixture("core/classifier.pt")) + " --data " +
                           q(fixture("core/classifier.npz")) +
                           " --batch-size 1 --workload ClassificationAccuracy";
  // The tests' stderr is no terminal: the bar stays hidden, the lines are said.
  const auto lines = neurobench::test::run_cli(args + " --progress lines");
  INFO(lines.err);
  REQUIRE(lines.status == 0);
  CHECK_THAT(lines.err, Catch::Contains("batches (100%)") && Catch::Contains("batches (10%)"));
  const auto bar = neurobench::test::run_cli(args);
  REQUIRE(bar.status == 0);
  CHECK_THAT(bar.err, !Catch::Contains("batches ("));
  const auto off = neurobench::test::run_cli(args + " --progress lines --quiet");
  CHECK_THAT(off.err, !Catch::Contains("batches ("));
  CHECK(neurobench::test::run_cli(args + " --progress bars").status == 2);
}
