// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <system_error>

/// Questions the data set kinds ask about paths while they look for a release, without
/// throwing (a path that cannot be read is one that is not there).
namespace neurobench::detail {

/// Whether `p` is a folder (symbolic links followed, as Python's glob and os.path.isdir do).
inline bool is_folder(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec);
}

/// Whether anything is at `p`.
inline bool present(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

}  // namespace neurobench::detail
