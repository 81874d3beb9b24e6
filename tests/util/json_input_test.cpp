// SPDX-License-Identifier: Apache-2.0
// User JSON (configs, results files, metric options) read with a depth limit, numbers in
// range and every error naming the file; messages quote short excerpts of bad values.
#include "util/json_input.hpp"

#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/config.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "support.hpp"
#include "util/text.hpp"

using neurobench::InputError;
using neurobench::Json;
using neurobench::detail::kMaxJsonDepth;
using neurobench::detail::parse_user_json;
using neurobench::test::q;
using neurobench::test::run_cli;
using neurobench::test::TempDir;

namespace {

constexpr std::size_t kDeep = 100000;  // the depth that crashed neurobench (issue 11, item 5)

// `depth` arrays around a value: [[[...1...]]].
std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + "1" + std::string(depth, ']');
}

void write_json_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("JSON nested deeper than the limit is refused before parsing, with its place",
          "[json][reliability]") {
  REQUIRE_NOTHROW(parse_user_json(nested_arrays(kMaxJsonDepth), "ok.json"));
  REQUIRE(parse_user_json(nested_arrays(kMaxJsonDepth), "ok.json").is_array());
  REQUIRE_THROWS_AS(parse_user_json(nested_arrays(kMaxJsonDepth + 1), "deep.json"), InputError);
  REQUIRE_THROWS_WITH(parse_user_json(nested_arrays(kMaxJsonDepth + 1), "deep.json"),
                      Catch::StartsWith("deep.json: line 1, column 65 (byte 64): arrays and "
                                        "objects nested more than 64 deep"));
  // On a later line, objects and arrays mixed.
  std::string text = "{\n  \"a\": ";
  for (std::size_t i = 0; i < kDeep; ++i) text += i % 2 ? "[" : "{\"k\":";
  REQUIRE_THROWS_WITH(parse_user_json(text, "mixed.json"),
                      Catch::StartsWith("mixed.json: line 2, column ") &&
                          Catch::Contains("nested more than 64 deep"));
}

TEST_CASE("brackets in strings and comments do not count towards the depth",
          "[json][reliability]") {
  const std::string brackets(1000, '[');
  const Json v = parse_user_json(R"({"a": ")" + brackets + R"(\" [[", "b": 1})", "s.json");
  REQUIRE(v["a"].get<std::string>() == brackets + "\" [[");
  const std::string commented = "// " + brackets + "\n/* " + brackets + " */ {\"a\": [1]}";
  REQUIRE(parse_user_json(commented, "c.json", /*comments=*/true)["a"][0] == 1);
  // Without comments allowed, a comment is a syntax error naming the file.
  REQUIRE_THROWS_WITH(parse_user_json("// x\n{}", "c.json"),
                      Catch::StartsWith("c.json: not valid JSON: parse error at line 1"));
}

TEST_CASE("a number beyond a double, a syntax error, names the file and the place",
          "[json][reliability]") {
  for (const std::string& number :
       std::vector<std::string>{"1e400", "-1e400", "1" + std::string(400, '0')}) {
    INFO(number);
    const std::string text = "{\n  \"warmup\": " + number + "\n}";
    REQUIRE_THROWS_AS(parse_user_json(text, "bench.json"), InputError);
    REQUIRE_THROWS_WITH(parse_user_json(text, "bench.json"),
                        Catch::StartsWith("bench.json: line 2, column 13: the number ") &&
                            Catch::Contains("beyond the range of a double"));
  }
  REQUIRE_THROWS_WITH(parse_user_json("{\"a\": 1,}", "t.json"),
                      Catch::StartsWith("t.json: not valid JSON: parse error at line 1, column 9"));
  REQUIRE_THROWS_WITH(parse_user_json("", "empty.json"),
                      Catch::StartsWith("empty.json: not valid JSON: "));
  REQUIRE(parse_user_json("1e-400", "tiny.json").get<double>() == 0.0);  // underflow is 0
}

TEST_CASE("objects keep the file's key order, in linear time", "[json]") {
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(99 - i) + "\": " + std::to_string(i) + ",";
  text += "\"z\": {\"x\": [1, {\"y\": null}]}}";
  const Json v = parse_user_json(text, "order.json");
  REQUIRE(v.size() == 101);
  REQUIRE(v.begin().key() == "k99");
  REQUIRE(std::next(v.begin(), 49).key() == "k50");
  REQUIRE(v["k50"] == 49);
  REQUIRE(v["z"]["x"][1]["y"].is_null());
  REQUIRE(parse_user_json(R"({"b": 2, "a": 3})", "s.json").dump() == R"({"b":2,"a":3})");
}

TEST_CASE("a key given twice in one object is refused, naming the key and the object", "[json]") {
  REQUIRE_THROWS_WITH(parse_user_json(R"({"a": 1, "b": 2, "a": 3})", "s.json"),
                      "s.json: the key \"a\" is given twice in the top-level object; each key "
                      "may appear once in an object");
  // Past the linear search (16 keys), with the path to the object.
  std::string text = R"({"m": [0, {"opts": {)";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  text += R"("k7": 1}}]})";
  REQUIRE_THROWS_WITH(parse_user_json(text, "deep.json"),
                      Catch::StartsWith("deep.json: the key \"k7\" is given twice in the object at "
                                        "\"m\" > [1] > \"opts\";"));
  // The same key in different objects is not a repeat.
  REQUIRE_NOTHROW(parse_user_json(R"({"a": {"a": 1}, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})",
                                  "ok.json"));
  // A config with a setting written twice.
  TempDir dir;
  const auto config = dir / "twice.json";
  write_json_text(config, R"({"model": "m.pt", "warmup": 1, "warmup": 5})");
  REQUIRE_THROWS_WITH(neurobench::BenchmarkConfig::read(config),
                      Catch::Contains("twice.json: the key \"warmup\" is given twice"));
}

TEST_CASE("a config nested 100,000 deep exits 2 naming the file, no crash",
          "[json][config][reliability]") {
  TempDir dir;
  const auto config = dir / "deep.json";
  write_json_text(config, "{\"model\": " + nested_arrays(kDeep) + "}");
  REQUIRE_THROWS_AS(neurobench::BenchmarkConfig::read(config), InputError);
  REQUIRE_THROWS_WITH(neurobench::BenchmarkConfig::read(config),
                      Catch::Contains("deep.json: line 1, column 74") &&
                          Catch::Contains("nested more than 64 deep"));
  const auto r = run_cli("run " + q(config));
  INFO(r.err);
  REQUIRE(r.status == 2);
  REQUIRE_THAT(r.err, Catch::StartsWith("error: ") && Catch::Contains("deep.json"));
  REQUIRE(r.err.size() < 400);
}

TEST_CASE("1e400 in a config or a results file is an error naming the file",
          "[json][config][report][reliability]") {
  TempDir dir;
  write_json_text(dir / "bench.json", R"({"model": "m.pt", "data": "d.npz", "warmup": 1e400})");
  auto r = run_cli("run " + q(dir / "bench.json"));
  REQUIRE(r.status == 2);
  REQUIRE_THAT(r.err, Catch::Contains("bench.json: line 1, column 46: the number 1e400"));
  write_json_text(dir / "results.json", "{\"Footprint\": 1e400}");
  r = run_cli("report " + q(dir / "results.json"));
  REQUIRE(r.status == 2);
  REQUIRE_THAT(r.err, Catch::Contains("results.json: line 1, column 15: the number 1e400"));
  r = run_cli("compare " + q(dir / "results.json") + " " + q(dir / "results.json"));
  REQUIRE(r.status == 2);
  REQUIRE_THAT(r.err, Catch::Contains("results.json: line 1"));
}

TEST_CASE("a results file nested 100,000 deep exits 2 from report and compare, no crash",
          "[json][report][reliability]") {
  TempDir dir;
  const auto deep = dir / "deep.json";
  std::string text = "{\"Footprint\": ";
  for (std::size_t i = 0; i < kDeep; ++i) text += "{\"a\": ";
  text += "1" + std::string(kDeep, '}') + "}";
  write_json_text(deep, text);
  REQUIRE_THROWS_WITH(neurobench::load_run_results(deep),
                      Catch::Contains("deep.json: line 1") &&
                          Catch::Contains("nested more than 64 deep"));
  write_json_text(dir / "ok.json", "{\"Footprint\": 1}");
  for (const std::string& args : std::vector<std::string>{"report " + q(deep), "compare " + q(dir / "ok.json") + " " + q(deep),
                                   "compare " + q(deep) + " " + q(dir / "ok.json")}) {
    const auto r = run_cli(args);
    INFO(args << "\n" << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains("deep.json") && Catch::Contains("64 deep"));
  }
}

TEST_CASE("a metric option nested 100,000 deep on the command line is a UsageError",
          "[json][config][reliability]") {
  const std::string spec = "Latency:runs=" + nested_arrays(kDeep);
  REQUIRE_THROWS_AS(neurobench::parse_metric_spec(spec), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::parse_metric_spec(spec),
                      Catch::Contains("nested more than 64 deep"));
  try {
    (void)neurobench::parse_metric_spec(spec);
  } catch (const neurobench::UsageError& e) {
    REQUIRE(std::string(e.what()).size() < 300);
  }
}

TEST_CASE("json_excerpt is short and cheap whatever the value's depth and size",
          "[json][reliability]") {
  using neurobench::detail::json_excerpt;
  Json deep = Json::array();
  Json* inner = &deep;
  for (std::size_t i = 0; i < kDeep; ++i) {  // built in place: no recursive copy
    inner->push_back(Json::array());
    inner = &inner->back();
  }
  const std::string excerpt = json_excerpt(deep);
  REQUIRE(excerpt == "[[[[[[[[[...]]]]]]]]]");
  REQUIRE(json_excerpt(Json(std::string(1000000, 'x'))).size() <= 60);
  REQUIRE(json_excerpt(Json(std::vector<int>(1000000, 7))).size() <= 60);
  REQUIRE_THAT(json_excerpt(Json(std::vector<int>(1000000, 7))), Catch::EndsWith("..."));
  REQUIRE(json_excerpt(Json{{"a", 1}, {"b", "x"}}) == R"({"a":1,"b":"x"})");
  REQUIRE(json_excerpt(Json(std::nan(""))) == "NaN");
  // A cut through a multi-byte character is replaced, not thrown on.
  REQUIRE_NOTHROW(json_excerpt(Json(std::string(59, 'x') + "\xC3\xA9\xC3\xA9")));
}

TEST_CASE("a config error quotes a short excerpt of a large bad value", "[json][config]") {
  TempDir dir;
  std::string big = "[";
  for (int i = 0; i < 100000; ++i) big += std::to_string(i) + ",";
  big += "0]";
  write_json_text(dir / "bench.json", R"({"model": )" + big + "}");
  try {
    (void)neurobench::BenchmarkConfig::read(dir / "bench.json");
    FAIL("no error");
  } catch (const neurobench::UsageError& e) {
    const std::string what = e.what();
    REQUIRE_THAT(what, Catch::Contains("'model' must be a string, got [0,1,2,"));
    REQUIRE(what.size() < 200);
  }
}
