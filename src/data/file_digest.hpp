// SPDX-License-Identifier: Apache-2.0
#pragma once
// A data file's SHA-256 computed beside its reading, on a thread of its own, for
// TensorDataset::from_npz() and a rank's shard of an `.npz` (NpzShardDataset). Private to src/.

#include <filesystem>
#include <future>
#include <string>

#include "util/phase_clock.hpp"
#include "util/sha256.hpp"

namespace neurobench::detail {

class FileDigest {
 public:
  /// Starts hashing `path`. Should the reading fail, the destructor waits for the digest, which
  /// reads the file once through.
  explicit FileDigest(std::filesystem::path path)
      : digest_(std::async(std::launch::async,
                           [path = std::move(path)] { return file_sha256(path); })) {}

  /// Once the arrays are read: the digest, the run's phases (`_run.phases`) recording the read
  /// as `data_read_s` and what the digest took beyond it as `data_digest_s`.
  [[nodiscard]] std::string after_read() {
    PhaseClock* phases = PhaseScope::current();
    if (phases != nullptr) phases->lap("data_read_s");
    std::string sha256 = digest_.get();
    if (phases != nullptr) phases->lap("data_digest_s");
    return sha256;
  }

 private:
  std::future<std::string> digest_;
};

}  // namespace neurobench::detail
