// SPDX-License-Identifier: Apache-2.0
#pragma once

// The member of BenchmarkConfig each run key fills (run_keys() in <neurobench/run_keys.hpp>),
// as JSON both ways: the config's reader and writer and the command line's flags go through
// it, so that a key is one row of the table. Private to the library.

#include <functional>
#include <string_view>

#include <neurobench/config.hpp>
#include <neurobench/json.hpp>

namespace neurobench::detail {

/// A config member seen as JSON: `get` gives its value as a config writes it (paths as they
/// are, data sets as `{"kind", "path", options...}`, metrics as specs, an unset seed as null);
/// `set` stores a value of that form, already checked by the reader of the key's kind.
struct RunKeyField {
  std::function<Json(const BenchmarkConfig&)> get;
  std::function<void(BenchmarkConfig&, const Json&)> set;
};

/// A data set by kind as a config writes it: `{"kind", "path", options...}`; null for none.
[[nodiscard]] Json dataset_json(const DatasetSpec& spec);

/// The member of config key `key`, or nullptr for a key that is not in run_keys().
[[nodiscard]] const RunKeyField* run_key_field(std::string_view key);

}  // namespace neurobench::detail
