// SPDX-License-Identifier: Apache-2.0
// The results folder's lock: one suite at a time, released when its holder goes.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <neurobench/errors.hpp>

#include "suite/folder_lock.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::suite::FolderLock;
using neurobench::test::read_file;
using neurobench::test::TempDir;

TEST_CASE("a results folder locked by a suite is refused to another, naming it and the holder",
          "[suite][folder_lock]") {
  const TempDir dir;
  auto first = std::make_unique<FolderLock>(dir.path());
  CHECK(read_file(dir / ".suite.lock") == std::to_string(::getpid()) + "\n");
  // flock(2) locks belong to the open file: a second open in this process is refused too.
  REQUIRE_THROWS_AS(FolderLock(dir.path()), InputError);
  REQUIRE_THROWS_WITH(FolderLock(dir.path()),
                      Catch::Contains(dir.path().string()) && Catch::Contains("in use") &&
                          Catch::Contains("process " + std::to_string(::getpid())));
  first.reset();
  // Released: the next one takes it.
  CHECK_NOTHROW(FolderLock(dir.path()));
}

TEST_CASE("a results folder's lock file that is not a regular file is an InputError naming it",
          "[suite][folder_lock]") {
  const TempDir dir;
  fs::create_directory(dir / ".suite.lock");
  REQUIRE_THROWS_AS(FolderLock(dir.path()), InputError);
  REQUIRE_THROWS_WITH(FolderLock(dir.path()), Catch::Contains(".suite.lock"));
  const TempDir other;
  std::ofstream(other / "target") << "x";
  fs::create_symlink(other / "target", other / ".suite.lock");
  REQUIRE_THROWS_WITH(FolderLock(other.path()), Catch::Contains(".suite.lock"));
  CHECK(read_file(other / "target") == "x");
}
