// SPDX-License-Identifier: Apache-2.0
// The lock that keeps two suites out of one results folder (docs/suites.md, "Results folder").
// Private to `neurobench suite`.
#pragma once

#include <filesystem>

namespace neurobench::suite {

/// The name of the lock file in a results folder.
inline constexpr const char* kLockFileName = ".suite.lock";

/// An exclusive lock on a results folder, held while the object lives: flock(2) on
/// `FOLDER/.suite.lock`, which holds the holder's process id. The kernel drops the lock when the
/// process ends, however it ends (a suite killed with SIGKILL leaves nothing stuck); the file
/// itself stays (removing it would let a second suite lock a new file while a third holds the
/// old one). The descriptor is close-on-exec: the suite's runs do not inherit the lock.
class FolderLock {
 public:
  /// Takes the lock of `folder`, an existing folder, without waiting. Throws InputError naming
  /// the folder when another process (or another FolderLock) holds it, with the holder's
  /// process id when the lock file says it, or when the lock file cannot be made or opened (not
  /// a regular file, no permission).
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace neurobench::suite
