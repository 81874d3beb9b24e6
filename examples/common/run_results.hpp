// SPDX-License-Identifier: Apache-2.0
// What the bundled examples do with one benchmark's Results: its warnings and failures on
// stderr, its failures as JSON, and a value as a table cell.
#pragma once

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include <neurobench/json.hpp>
#include <neurobench/reporters/results.hpp>

namespace neurobench::examples {

/// Prints the run's warnings and metric failures on stderr, each prefixed by `who`.
inline void print_messages(const std::string& who, const neurobench::Results& results) {
  for (const auto& w : results.warnings) fmt::print(stderr, "warning: {}: {}\n", who, w);
  for (const auto& f : results.failures) {
    fmt::print(stderr, "error: {}: {}: {}\n", who, f.metric, f.message);
  }
}

/// The run's metric failures as a JSON array of `{"metric": ..., "message": ...}`.
inline neurobench::Json failures_json(const neurobench::Results& results) {
  neurobench::Json failures = neurobench::Json::array();
  for (const auto& f : results.failures) {
    failures.push_back({{"metric", f.metric}, {"message", f.message}});
  }
  return failures;
}

/// A table cell: the value of `metric` (or of its `key`) formatted with `format`, "-" when the
/// run did not compute it, "failed" when it is not a number.
inline std::string cell(const neurobench::Results& results, const std::string& metric,
                        const std::string& key, const char* format) {
  const auto& values = results.values;
  if (!values.contains(metric)) return "-";
  const auto* v = &values.at(metric);
  if (!key.empty()) {
    if (!v->is_object() || !v->contains(key)) return "-";
    v = &v->at(key);
  }
  if (!v->is_number()) return "failed";
  return fmt::format(fmt::runtime(format), v->get<double>());
}

}  // namespace neurobench::examples
