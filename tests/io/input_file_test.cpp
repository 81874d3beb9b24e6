// SPDX-License-Identifier: Apache-2.0
// Every file input refuses what is not a regular file, by name and before opening it: a FIFO
// would block the open for ever, /dev/zero would be read without end.
#include "io/input_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/idx.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/plugins.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "fifo_support.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::test::fixture;
using neurobench::test::TempDir;

namespace {

// One reader of each kind of input file, with the words its messages use.
struct Reader {
  const char* name;
  const char* what;  // "model file", ...
  std::function<void(const fs::path&)> read;
};

std::vector<Reader> readers() {
  return {
      {"TorchScriptModel", "model file",
       [](const fs::path& p) { neurobench::TorchScriptModel model(p); }},
      {"TensorDataset::from_npz", "data file",
       [](const fs::path& p) { (void)neurobench::TensorDataset::from_npz(p); }},
      {"load_npz", "file", [](const fs::path& p) { (void)neurobench::load_npz(p); }},
      {"load_npy", "file", [](const fs::path& p) { (void)neurobench::load_npy(p); }},
      {"load_idx", "file", [](const fs::path& p) { (void)neurobench::load_idx(p); }},
      {"BenchmarkConfig::read", "config file",
       [](const fs::path& p) { (void)neurobench::BenchmarkConfig::read(p); }},
      {"load_run_results", "results file",
       [](const fs::path& p) { (void)neurobench::load_run_results(p); }},
  };
}

// A sparse file of `bytes` bytes: its size without the disk space.
void make_sparse(const fs::path& path, std::uint64_t bytes) {
  std::ofstream(path, std::ios::binary) << "{";
  fs::resize_file(path, bytes);
}

}  // namespace

TEST_CASE("every file input refuses a FIFO by name without opening it", "[io][input]") {
  const TempDir dir;
  const fs::path fifo = dir / "input.pipe";
  neurobench::test::make_fifo(fifo);
  for (const Reader& r : readers()) {
    INFO(r.name);
    // Should a reader open the FIFO after all, this writer ends its wait so the test fails.
    const neurobench::test::FifoUnblocker unblock(fifo, 5.0);
    REQUIRE_THROWS_AS(r.read(fifo), InputError);
    REQUIRE_THROWS_WITH(r.read(fifo), fifo.string() + ": the " + r.what +
                                          " is a FIFO (named pipe), not a regular file");
  }
}

TEST_CASE("every file input refuses a directory and a character device by name", "[io][input]") {
  const TempDir dir;
  for (const Reader& r : readers()) {
    INFO(r.name);
    REQUIRE_THROWS_WITH(r.read(dir.path()), dir.path().string() + ": the " + r.what +
                                                " is a directory, not a regular file");
    // /dev/zero would never end: refused from stat() alone.
    REQUIRE_THROWS_WITH(r.read("/dev/zero"), std::string("/dev/zero: the ") + r.what +
                                                 " is a character device, not a regular file");
  }
}

TEST_CASE("load_plugin refuses a FIFO, a directory and a device before dlopen() opens them",
          "[io][input][plugin]") {
  const TempDir dir;
  const fs::path fifo = dir / "metrics.so";
  neurobench::test::make_fifo(fifo);
  {
    const neurobench::test::FifoUnblocker unblock(fifo, 5.0);
    REQUIRE_THROWS_AS(neurobench::load_plugin(fifo), neurobench::UsageError);
    REQUIRE_THROWS_WITH(neurobench::load_plugin(fifo),
                        fifo.string() + ": the plugin library is a FIFO (named pipe), not a "
                                        "regular file");
  }
  REQUIRE_THROWS_WITH(neurobench::load_plugin(dir.path()),
                      dir.path().string() + ": the plugin library is a directory, not a regular "
                                            "file");
  REQUIRE_THROWS_WITH(neurobench::load_plugin("/dev/zero"),
                      "/dev/zero: the plugin library is a character device, not a regular file");
  REQUIRE_THROWS_WITH(neurobench::load_plugin(dir / "none.so"),
                      (dir / "none.so").string() + ": no such plugin library");
  // A regular file that is not a library: the dynamic loader's reason, with the name.
  std::ofstream(dir / "text.so") << "not a library";
  REQUIRE_THROWS_WITH(neurobench::load_plugin(dir / "text.so"),
                      Catch::StartsWith("cannot load plugin " + (dir / "text.so").string()));
}

TEST_CASE("a missing input and a dangling symbolic link say there is no such file", "[io][input]") {
  const TempDir dir;
  fs::create_symlink(dir / "gone.json", dir / "link.json");
  for (const Reader& r : readers()) {
    INFO(r.name);
    REQUIRE_THROWS_WITH(r.read(dir / "missing"),
                        (dir / "missing").string() + ": no such " + r.what);
    REQUIRE_THROWS_WITH(r.read(dir / "link.json"),
                        Catch::StartsWith((dir / "link.json").string() + ": no such " + r.what) &&
                            Catch::Contains("a symbolic link to " + (dir / "gone.json").string()));
  }
}

TEST_CASE("a symbolic link to a regular input file is read", "[io][input]") {
  const TempDir dir;
  fs::create_symlink(fixture("core/classifier.pt"), dir / "model.pt");
  fs::create_symlink(fixture("core/classifier.npz"), dir / "data.npz");
  CHECK_NOTHROW(neurobench::TorchScriptModel(dir / "model.pt"));
  CHECK(neurobench::TensorDataset::from_npz(dir / "data.npz").size() == 10);
  CHECK(neurobench::detail::check_regular_input(dir / "data.npz", "data file") ==
        fs::file_size(fixture("core/classifier.npz")));
}

TEST_CASE(
    "config and results files larger than their documented limits are refused from "
    "their size alone",
    "[io][input]") {
  const TempDir dir;
  make_sparse(dir / "huge.json", neurobench::kMaxResultsFileBytes + 1);
  REQUIRE_THROWS_AS(neurobench::load_run_results(dir / "huge.json"), InputError);
  REQUIRE_THROWS_WITH(neurobench::load_run_results(dir / "huge.json"),
                      (dir / "huge.json").string() +
                          ": the results file is 268435457 bytes, "
                          "more than the limit of 256 MiB");
  make_sparse(dir / "big_config.json", neurobench::BenchmarkConfig::kMaxFileBytes + 1);
  REQUIRE_THROWS_WITH(neurobench::BenchmarkConfig::read(dir / "big_config.json"),
                      (dir / "big_config.json").string() +
                          ": the config file is 16777217 bytes, "
                          "more than the limit of 16 MiB");
}

TEST_CASE("read_input_file reads a whole small file and refuses one over the limit",
          "[io][input]") {
  const TempDir dir;
  std::ofstream(dir / "small.txt", std::ios::binary) << "hello";
  CHECK(neurobench::detail::read_input_file(dir / "small.txt", "file", 5) == "hello");
  REQUIRE_THROWS_WITH(neurobench::detail::read_input_file(dir / "small.txt", "file", 4),
                      Catch::Contains("5 bytes, more than the limit of 4 bytes"));
  std::ofstream(dir / "empty.txt", std::ios::binary) << "";
  CHECK(neurobench::detail::read_input_file(dir / "empty.txt", "file", 4).empty());
}
