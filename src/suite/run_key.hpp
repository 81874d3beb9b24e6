// SPDX-License-Identifier: Apache-2.0
// The key that tells whether a suite's run is done already: a SHA-256 over the run's config,
// the contents of its model and data files, and its repeat index (docs/suites.md, "Resuming").
// Private to `neurobench suite`.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <neurobench/config.hpp>
#include <neurobench/json.hpp>

namespace neurobench::suite {

/// The canonical text of a config: its JSON (BenchmarkConfig::to_json) with the keys of every
/// object sorted, compact, without `_comment`.
[[nodiscard]] std::string canonical_config(const BenchmarkConfig& config);

/// SHA-256 fingerprints of inputs, each computed once per path.
class InputHasher {
 public:
  /// The fingerprint of what `path` names, as 64 hex digits: for a regular file (or a symbolic
  /// link to one), the SHA-256 of its contents; for a folder, the SHA-256 of the sorted list of
  /// the files below it, each `relative/path<TAB>size<TAB>mtime in ns`, so that contents are
  /// not read; anything else (nothing there, a FIFO, a device, unreadable) the SHA-256 of a
  /// text that says so, so that the run is made and fails with its own message. Never throws
  /// for the file's sake; never opens a FIFO or a device.
  [[nodiscard]] std::string fingerprint(const std::filesystem::path& path);

 private:
  std::map<std::filesystem::path, std::string> cache_;
};

/// The key of one run and what it is made of.
struct RunKey {
  std::string key;            ///< SHA-256 over the four below.
  std::string config_sha256;  ///< SHA-256 of canonical_config().
  std::string model_sha256;   ///< InputHasher::fingerprint of `model`.
  std::string data_sha256;    ///< Of `data`, or of `dataset.path`.
  int repeat = 0;             ///< The repeat index, from 0.

  /// The key as JSON, as `rep-K.run.json` records it.
  [[nodiscard]] Json to_json() const;
};

/// The key of repeat `repeat` of a run of `config`.
[[nodiscard]] RunKey run_key(const BenchmarkConfig& config, int repeat, InputHasher& hasher);

}  // namespace neurobench::suite
