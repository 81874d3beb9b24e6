// SPDX-License-Identifier: Apache-2.0
#pragma once

// An independent SHA-256 of a file, from coreutils' sha256sum, to check the library's own.

#include <cstdio>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace neurobench::test {

/// The SHA-256 of `path` as `sha256sum` prints it: 64 lowercase hex digits.
inline std::string sha256sum(const std::filesystem::path& path) {
  const std::string command = "sha256sum '" + path.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char digest[65] = {};
  const std::size_t got = std::fread(digest, 1, 64, pipe);
  pclose(pipe);
  REQUIRE(got == 64);
  return std::string(digest, 64);
}

}  // namespace neurobench::test
