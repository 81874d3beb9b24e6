// SPDX-License-Identifier: Apache-2.0
// What every fuzz target shares: the input bytes as a file (the loaders read paths, and so take
// the same route as `neurobench run`), and the rule that a documented neurobench::Error is the
// only acceptable way to refuse an input. Any other exception is a finding: the target aborts,
// and libFuzzer keeps the input as a crash.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <neurobench/errors.hpp>

namespace neurobench::fuzz {

/// A folder of this process's own under $TMPDIR, removed when the process exits normally.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/neurobench-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A file named `name` in this process's scratch folder, rewritten with each input.
inline std::filesystem::path input_file(const char* name, const std::uint8_t* data,
                                        std::size_t size) {
  static const ScratchFolder folder;
  const auto path = folder.path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror("writing the fuzz input");
    std::abort();
  }
  return path;
}

/// Runs `body`; a neurobench::Error is a refusal and fine, anything else aborts.
template <typename Body>
void expect_clean(Body&& body) {
  try {
    body();
  } catch (const neurobench::Error&) {
    // A documented refusal, with a message naming the input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: undocumented exception: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: a non-std exception\n");
    std::abort();
  }
}

}  // namespace neurobench::fuzz
