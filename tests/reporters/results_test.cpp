// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/results.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "support.hpp"

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
  check_golden("results.json", neurobench::render(r, neurobench::Format::Json));
  check_golden("results.csv", neurobench::render(r, neurobench::Format::Csv));
  check_golden("results.txt", neurobench::render(r, neurobench::Format::Text));
  check_golden("results_table.txt", neurobench::render_table(r));
}

TEST_CASE("the results format follows the file extension", "[reporters]") {
  REQUIRE(neurobench::format_for("a/b.json") == neurobench::Format::Json);
  REQUIRE(neurobench::format_for("b.CSV") == neurobench::Format::Csv);
  REQUIRE(neurobench::format_for("b.txt") == neurobench::Format::Text);
  REQUIRE_THROWS_AS(neurobench::format_for("b.xml"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::format_for("b.xml"), Catch::Contains("b.xml"));
}

TEST_CASE("results files are written whole, replacing the old one, with no temporary left",
          "[reporters]") {
  neurobench::test::TempDir dir;
  const auto path = dir / "r.json";
  neurobench::write_file_atomically(path, "old");
  neurobench::save_results(sample(), path, neurobench::Format::Json);
  REQUIRE(neurobench::test::read_file(path) ==
          neurobench::render(sample(), neurobench::Format::Json));
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
