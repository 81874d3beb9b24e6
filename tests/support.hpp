// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace neurobench::test {

/// A file under tests/fixtures.
inline std::filesystem::path fixture(const std::string& relative) {
  return std::filesystem::path(NEUROBENCH_TEST_FIXTURES) / relative;
}

/// A fresh empty directory under the system temp dir, removed when destroyed.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("neurobench_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Reads a whole file.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
/// Writes `bytes` to `path`, replacing it; throws when it cannot.
inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    throw std::runtime_error("cannot write " + path.string());
  }
}

/// The names of the entries of a folder, sorted: what a command left behind.
inline std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The outcome of running a command.
struct CommandResult {
  int status = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `args` (already shell-quoted) with the neurobench CLI; captures both streams.
inline CommandResult run_cli(const std::string& args) {
  TempDir tmp;
  const auto out = tmp / "out";
  const auto err = tmp / "err";
  const std::string cmd = std::string("'") + NEUROBENCH_CLI + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  CommandResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

/// Single-quotes a path for the shell.
inline std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace neurobench::test
