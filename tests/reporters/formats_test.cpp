// SPDX-License-Identifier: Apache-2.0
// The formats of results files and reports: names, extensions and writers in one table each.
#include <neurobench/reporters/formats.hpp>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/results.hpp>

TEST_CASE("results formats are one table of names, extensions and writers", "[reporters]") {
  neurobench::Results r;
  r.values["ClassificationAccuracy"] = 0.5;
  r.values["SynapticOperations"] = {{"Effective_MACs", 3320.6}, {"Dense", 3680.0}};
  std::vector<std::string> names;
  for (const auto& f : neurobench::results_formats()) {
    INFO(f.name);
    names.push_back(f.name);
    REQUIRE(f.write != nullptr);
    CHECK(f.write(r) == neurobench::render(r, f.name));
    CHECK(&neurobench::results_format_for("r" + f.extensions.front()) == &f);
    CHECK_FALSE(f.description.empty());
  }
  CHECK(names == std::vector<std::string>{"json", "csv", "text"});
  CHECK(neurobench::results_format("JSON").name == "json");
  CHECK(neurobench::results_format("txt").name == "text");  // an extension names it too
  REQUIRE_THROWS_AS(neurobench::render(r, "xml"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::render(r, "xml"),
                      "unknown results format 'xml' (formats: json, csv, text)");

  names.clear();
  for (const auto& f : neurobench::report_formats()) {
    names.push_back(f.name);
    CHECK(f.write != nullptr);
    CHECK(&neurobench::report_format_for("report" + f.extensions.back()) == &f);
  }
  CHECK(names == std::vector<std::string>{"html", "markdown"});
  CHECK(neurobench::report_format("md").name == "markdown");
  CHECK(neurobench::report_format_for("a/R.HTM").name == "html");
  REQUIRE_THROWS_WITH(neurobench::report_format("pdf"),
                      "unknown report format 'pdf' (formats: html, markdown)");
  REQUIRE_THROWS_WITH(neurobench::report_format_for("r.txt"),
                      Catch::Contains("r.txt: unknown report format '.txt'"));
}
