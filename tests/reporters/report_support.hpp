// SPDX-License-Identifier: Apache-2.0
// Helpers of the reporter tests (tests/reporters/*_test.cpp).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/reporters/compare.hpp>
#include <neurobench/reporters/results.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "support.hpp"

namespace neurobench::test {

/// Results parsed from JSON text, labelled `label`, from `label.json`.
inline RunResults run_of(const std::string& label, const std::string& json) {
  return parse_run_results(nlohmann::ordered_json::parse(json), label, label + ".json");
}

/// Writes `text` to `dir/name`, creating folders on the way.
inline std::filesystem::path write(const TempDir& dir, const std::string& name,
                                   const std::string& text) {
  const auto path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, text);
  return path;
}

/// How often `pattern` (a regular expression) matches in `text`.
inline std::size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

/// The part of an HTML page from `<section id="ID"` to its `</section>`.
inline std::string section(const std::string& html, const std::string& id) {
  const auto begin = html.find("<section id=\"" + id + "\"");
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</section>", begin);
  REQUIRE(end != std::string::npos);
  return html.substr(begin, end - begin);
}

/// The row of `key` in a comparison.
inline const ComparisonRow& row(const std::vector<ComparisonRow>& rows, const std::string& key) {
  for (const auto& r : rows) {
    if (r.key == key) return r;
  }
  FAIL("no row " << key);
  return rows.front();
}

/// The row of `key` in a comparison that is a temporary, as a copy: `const auto& r =
/// row(compare(a, b), key)` would otherwise keep a reference into a vector already destroyed
/// (the asan preset found two such tests).
inline ComparisonRow row(std::vector<ComparisonRow>&& rows, const std::string& key) {
  return row(static_cast<const std::vector<ComparisonRow>&>(rows), key);
}

/// The three fixture runs of tests/fixtures/report, loaded from their paths.
inline std::vector<RunResults> fixture_runs() {
  return load_run_results({fixture("report/cnn_relu.json"), fixture("report/snn_lif.json"),
                           fixture("report/cnn_relu_pruned.json")});
}

/// The fixture runs, with their file names (not paths) as sources, for approved output.
inline std::vector<RunResults> fixture_runs_by_name() {
  std::vector<RunResults> runs;
  for (const char* name : {"cnn_relu", "snn_lif", "cnn_relu_pruned"}) {
    const auto text = read_file(fixture(std::string("report/") + name + ".json"));
    runs.push_back(
        parse_run_results(nlohmann::ordered_json::parse(text), name, std::string(name) + ".json"));
  }
  return runs;
}

/// Compares with an approved file in tests/golden; NEUROBENCH_UPDATE_GOLDEN=1 rewrites it.
inline void require_golden(const std::string& name, const std::string& actual) {
  const auto path = std::filesystem::path(NEUROBENCH_TEST_FIXTURES).parent_path() / "golden" / name;
  if (std::getenv("NEUROBENCH_UPDATE_GOLDEN") != nullptr) write_file_atomically(path, actual);
  INFO("approved file " << path << " (NEUROBENCH_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(read_file(path) == actual);
}

}  // namespace neurobench::test
