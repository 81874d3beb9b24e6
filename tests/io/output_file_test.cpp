// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/output_file.hpp>

#include <sys/stat.h>
#include <torch/script.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>

#include "fifo_support.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::check_distinct_files;
using neurobench::check_output_file;
using neurobench::InputError;
using neurobench::OutputMode;
using neurobench::write_output_file;
using neurobench::write_output_files;
using neurobench::test::read_file;
using neurobench::test::TempDir;

namespace {

void write_output_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Every name in a folder: what a write left behind (temporary files start with a dot).
std::vector<std::string> output_names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_character_device(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

TEST_CASE(
    "a new file and a regular file are written whole through a rename, leaving no "
    "temporary file",
    "[io][output]") {
  const TempDir dir;
  const fs::path file = dir / "out.json";
  CHECK(check_output_file(file).mode == OutputMode::Replace);
  CHECK_FALSE(check_output_file(file).exists);
  write_output_file(file, "first");
  CHECK(read_file(file) == "first");
  CHECK(check_output_file(file).exists);
  write_output_file(file, "second, longer");
  CHECK(read_file(file) == "second, longer");
  CHECK(output_names_in(dir.path()) == std::vector<std::string>{"out.json"});
}

TEST_CASE("a replaced file keeps its permissions", "[io][output]") {
  const TempDir dir;
  const fs::path file = dir / "private.json";
  write_output_text(file, "old");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  write_output_file(file, "new");
  CHECK(read_file(file) == "new");
  CHECK((fs::status(file).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a symbolic link is followed: its target is replaced and the link stays",
          "[io][output]") {
  const TempDir dir;
  fs::create_directory(dir / "elsewhere");
  const fs::path target = dir / "elsewhere" / "real.json";
  write_output_text(target, "old");
  const fs::path link = dir / "link.json";
  fs::create_symlink(target, link);
  const auto checked = check_output_file(link);
  CHECK(checked.mode == OutputMode::Replace);
  CHECK(checked.file == fs::canonical(target));
  write_output_file(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(fs::read_symlink(link) == target);
  CHECK(read_file(target) == "new");
  // The temporary file was made beside the target, and nothing is left in either folder.
  CHECK(output_names_in(dir.path()) == std::vector<std::string>{"elsewhere", "link.json"});
  CHECK(output_names_in(dir / "elsewhere") == std::vector<std::string>{"real.json"});
}

TEST_CASE("a dangling symbolic link is refused by name and left as it is", "[io][output]") {
  const TempDir dir;
  const fs::path link = dir / "dangling.json";
  fs::create_symlink(dir / "nowhere.json", link);
  REQUIRE_THROWS_AS(write_output_file(link, "x"), InputError);
  REQUIRE_THROWS_WITH(write_output_file(link, "x"),
                      Catch::Contains(link.string()) && Catch::Contains("symbolic link") &&
                          Catch::Contains("nowhere.json") && Catch::Contains("does not exist"));
  CHECK(fs::is_symlink(link));
  CHECK_FALSE(fs::exists(dir / "nowhere.json"));
}

TEST_CASE("a directory is refused as an output, by name", "[io][output]") {
  const TempDir dir;
  fs::create_directory(dir / "results");
  REQUIRE_THROWS_AS(check_output_file(dir / "results"), InputError);
  REQUIRE_THROWS_WITH(
      write_output_file(dir / "results", "x"),
      Catch::Contains((dir / "results").string()) && Catch::Contains("is a directory"));
  CHECK(fs::is_directory(dir / "results"));
  CHECK(fs::is_empty(dir / "results"));
}

TEST_CASE("an output in a missing or unwritable folder is refused before anything is written",
          "[io][output]") {
  const TempDir dir;
  const fs::path missing = dir / "no_such_dir" / "out.json";
  REQUIRE_THROWS_WITH(check_output_file(missing),
                      Catch::Contains(missing.string()) && Catch::Contains("does not exist"));
  write_output_text(dir / "a_file", "");
  REQUIRE_THROWS_WITH(check_output_file(dir / "a_file" / "out.json"),
                      Catch::Contains("Not a directory") || Catch::Contains("not a directory"));
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    REQUIRE_THROWS_WITH(check_output_file(dir / "locked" / "out.json"),
                        Catch::Contains("not writable"));
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
}

TEST_CASE("/dev/null is a character device, written through and never replaced", "[io][output]") {
  // Only the write-through path may touch /dev/null: the classification is required first.
  REQUIRE(is_character_device("/dev/null"));
  const auto checked = check_output_file("/dev/null");
  REQUIRE(checked.mode == OutputMode::WriteThrough);
  CHECK(checked.file == "/dev/null");
  write_output_file("/dev/null", "discarded");
  CHECK(is_character_device("/dev/null"));
  // Through a symbolic link too.
  const TempDir dir;
  fs::create_symlink("/dev/null", dir / "null.json");
  REQUIRE(check_output_file(dir / "null.json").mode == OutputMode::WriteThrough);
  write_output_file(dir / "null.json", "discarded");
  CHECK(fs::is_symlink(dir / "null.json"));
  CHECK(is_character_device("/dev/null"));
  CHECK(output_names_in(dir.path()) == std::vector<std::string>{"null.json"});
}

TEST_CASE("a FIFO is written through to its reader, with no temporary file", "[io][output]") {
  const TempDir dir;
  const fs::path fifo = dir / "results.pipe";
  neurobench::test::make_fifo(fifo);
  REQUIRE(check_output_file(fifo).mode == OutputMode::WriteThrough);
  const std::string text(200000, 'x');  // more than a pipe holds: the writer waits for the reader
  neurobench::test::FifoReader reader(fifo);
  write_output_file(fifo, text);
  CHECK(reader.text() == text);
  CHECK(neurobench::test::is_fifo(fifo));
  CHECK(output_names_in(dir.path()) == std::vector<std::string>{"results.pipe"});
}

TEST_CASE("a FIFO that nobody reads is an error after a short wait, not a hang", "[io][output]") {
  const TempDir dir;
  const fs::path fifo = dir / "nobody.pipe";
  neurobench::test::make_fifo(fifo);
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    write_output_file(fifo, "x");
  } catch (const InputError& e) {
    message = e.what();
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(waited >= neurobench::kFifoReaderWaitSeconds);
  CHECK(waited < neurobench::kFifoReaderWaitSeconds + 10);
  CHECK_THAT(message, Catch::Contains(fifo.string()) && Catch::Contains("FIFO") &&
                          Catch::Contains("nothing opened it for reading"));
  CHECK(neurobench::test::is_fifo(fifo));
}

TEST_CASE("write_output_files writes nothing when one output cannot be written", "[io][output]") {
  const TempDir dir;
  fs::create_directory(dir / "SOMEDIR");
  write_output_text(dir / "old.json", "old");
  REQUIRE_THROWS_WITH(
      write_output_files(
          {{dir / "new.json", "a"}, {dir / "old.json", "b"}, {dir / "SOMEDIR", "c"}}),
      Catch::Contains("SOMEDIR"));
  CHECK_FALSE(fs::exists(dir / "new.json"));
  CHECK(read_file(dir / "old.json") == "old");
  // A FIFO without a reader is found only when it is opened: still before any rename.
  neurobench::test::make_fifo(dir / "nobody.pipe");
  REQUIRE_THROWS_WITH(
      write_output_files(
          {{dir / "new.json", "a"}, {dir / "old.json", "b"}, {dir / "nobody.pipe", "c"}}),
      Catch::Contains("nobody.pipe"));
  CHECK_FALSE(fs::exists(dir / "new.json"));
  CHECK(read_file(dir / "old.json") == "old");
  CHECK(output_names_in(dir.path()) ==
        std::vector<std::string>{"SOMEDIR", "nobody.pipe", "old.json"});
  // All of them when all can be.
  neurobench::test::FifoReader reader(dir / "nobody.pipe");
  write_output_files(
      {{dir / "new.json", "a"}, {dir / "old.json", "b"}, {dir / "nobody.pipe", "c"}});
  CHECK(read_file(dir / "new.json") == "a");
  CHECK(read_file(dir / "old.json") == "b");
  CHECK(reader.text() == "c");
}

TEST_CASE("two outputs that are the same file, or an output that is an input, are refused",
          "[io][output]") {
  const TempDir dir;
  write_output_text(dir / "model.pt", "weights");
  fs::create_symlink(dir / "model.pt", dir / "link.json");
  fs::create_hard_link(dir / "model.pt", dir / "hard.json");
  const std::vector<neurobench::NamedFile> inputs = {{dir / "model.pt", "--model"},
                                                     {dir / "missing.npz", "--data"}};
  for (const fs::path& out : {dir / "model.pt", dir / "link.json", dir / "hard.json"}) {
    INFO(out);
    REQUIRE_THROWS_AS(check_distinct_files({{out, "--json"}}, inputs), InputError);
    REQUIRE_THROWS_WITH(check_distinct_files({{out, "--json"}}, inputs),
                        Catch::Contains(out.string()) && Catch::Contains("--model") &&
                            Catch::Contains("same file"));
  }
  // New paths are compared by where they would be.
  REQUIRE_THROWS_WITH(
      check_distinct_files({{dir / "a.json", "--json"}, {dir / "." / "a.json", "--csv"}}, {}),
      Catch::Contains("--json") && Catch::Contains("--csv") && Catch::Contains("same file"));
  CHECK_NOTHROW(
      check_distinct_files({{dir / "a.json", "--json"}, {dir / "a.csv", "--csv"}}, inputs));
  REQUIRE_THROWS_WITH(write_output_files({{dir / "a.json", "1"}, {dir / "a.json", "2"}}),
                      Catch::Contains("same file"));
  CHECK_FALSE(fs::exists(dir / "a.json"));
  CHECK(read_file(dir / "model.pt") == "weights");
}

TEST_CASE("save_npz and save_npy write through symbolic links and to FIFOs, never replacing them",
          "[io][output]") {
  const TempDir dir;
  const torch::Tensor x = torch::arange(6, torch::kFloat).reshape({2, 3});
  fs::create_symlink(dir / "real.npz", dir / "link.npz");
  write_output_text(dir / "real.npz", "old");
  neurobench::save_npz(dir / "link.npz", {{"x", x}});
  CHECK(fs::is_symlink(dir / "link.npz"));
  CHECK(neurobench::load_npz(dir / "real.npz").at(0).second.equal(x));
  neurobench::test::make_fifo(dir / "out.pipe");
  {
    neurobench::test::FifoReader reader(dir / "out.pipe");
    neurobench::save_npy(dir / "out.pipe", x);
    write_output_text(dir / "copy.npy", reader.text());
  }
  CHECK(neurobench::load_npy(dir / "copy.npy").equal(x));
  CHECK(neurobench::test::is_fifo(dir / "out.pipe"));
  fs::create_directory(dir / "folder.npz");
  REQUIRE_THROWS_WITH(neurobench::save_npz(dir / "folder.npz", {{"x", x}}),
                      Catch::Contains("folder.npz") && Catch::Contains("is a directory"));
}
