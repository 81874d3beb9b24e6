// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/results.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "support.hpp"
#include "util/text.hpp"

namespace {

neurobench::Results sample() {
  neurobench::Results r;
  r.values["Footprint"] = 3796;
  r.values["ConnectionSparsity"] = 0.0022;
  r.values["ClassificationAccuracy"] = 0.5;
  r.values["SynapticOperations"] = {{"Effective_MACs", 3320.6}, {"Effective_ACs", 0.0},
                                    {"Dense", 3680.0}};
  r.values["MembraneUpdates"] = nullptr;
  r.failures.push_back({"MembraneUpdates", "MembraneUpdates: no spiking layers"});
  return r;
}

// Compares with an approved file in tests/golden; NEUROBENCH_UPDATE_GOLDEN=1 rewrites it.
void check_golden(const std::string& name, const std::string& actual) {
  const auto path = std::filesystem::path(NEUROBENCH_TEST_FIXTURES).parent_path() / "golden" / name;
  if (std::getenv("NEUROBENCH_UPDATE_GOLDEN") != nullptr) {
    neurobench::write_file_atomically(path, actual);
  }
  INFO("golden file " << path);
  REQUIRE(neurobench::test::read_file(path) == actual);
}

}  // namespace

TEST_CASE("results render as approved JSON, CSV, text and table", "[reporters]") {
  const auto r = sample();
  check_golden("results.json", neurobench::render(r, "json"));
  check_golden("results.csv", neurobench::render(r, "csv"));
  check_golden("results.txt", neurobench::render(r, "text"));
  check_golden("results_table.txt", neurobench::render_table(r));
}

TEST_CASE("the results format follows the file extension", "[reporters]") {
  REQUIRE(neurobench::results_format_for("a/b.json").name == "json");
  REQUIRE(neurobench::results_format_for("b.CSV").name == "csv");
  REQUIRE(neurobench::results_format_for("b.txt").name == "text");
  REQUIRE(neurobench::results_format_for("b.text").name == "text");
  REQUIRE_THROWS_AS(neurobench::results_format_for("b.xml"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::results_format_for("b.xml"),
                      "b.xml: unknown results format '.xml' (extensions: .json, .csv, .txt, "
                      ".text)");
}

TEST_CASE("results files are written whole, replacing the old one, with no temporary left",
          "[reporters]") {
  neurobench::test::TempDir dir;
  const auto path = dir / "r.json";
  neurobench::write_file_atomically(path, "old");
  neurobench::save_results(sample(), path, "json");
  REQUIRE(neurobench::test::read_file(path) == neurobench::render(sample(), "json"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  REQUIRE(files == 1);
}

TEST_CASE("writing into a missing directory is an InputError naming the path", "[reporters]") {
  neurobench::test::TempDir dir;
  const auto path = dir / "missing" / "r.json";
  REQUIRE_THROWS_AS(neurobench::write_file_atomically(path, "x"), neurobench::InputError);
  REQUIRE_THROWS_WITH(neurobench::write_file_atomically(path, "x"),
                      Catch::Contains(path.string()));
  REQUIRE_FALSE(std::filesystem::exists(path));
}

TEST_CASE("a results text that is not UTF-8 is written replaced, and the file says so",
          "[reporters]") {
  neurobench::Results r = sample();
  r.environment.date = "2026-11-26T00:00:00Z";
  r.environment.hostname = std::string("host\xff", 5);
  const std::string json = neurobench::render(r, "json");
  const auto doc = nlohmann::json::parse(json);
  CHECK(doc["_environment"]["hostname"] == "host\xef\xbf\xbd");  // U+FFFD
  CHECK(doc["_run"]["warnings"].back() ==
        "a text in these results was not valid UTF-8: its invalid bytes were written as U+FFFD");
  CHECK(doc["Footprint"] == 3796);
}

TEST_CASE("UTF-8 is told from other bytes", "[util]") {
  using neurobench::detail::is_utf8;
  CHECK(is_utf8(""));
  CHECK(is_utf8("plain/path.pt"));
  CHECK(is_utf8("caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80"));  // é, €, an emoji
  CHECK_FALSE(is_utf8("\xff"));
  CHECK_FALSE(is_utf8("a\x80"));                // a continuation byte alone
  CHECK_FALSE(is_utf8("\xc3"));                 // cut short
  CHECK_FALSE(is_utf8("\xe2\x82"));             // cut short
  CHECK_FALSE(is_utf8("\xc0\xaf"));             // overlong
  CHECK_FALSE(is_utf8("\xe0\x80\xaf"));         // overlong
  CHECK_FALSE(is_utf8("\xed\xa0\x80"));         // a surrogate
  CHECK_FALSE(is_utf8("\xf4\x90\x80\x80"));     // past U+10FFFF
  CHECK_FALSE(is_utf8(std::string("\xc3\x28", 2)));  // a lead byte before ASCII
}
