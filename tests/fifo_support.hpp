// SPDX-License-Identifier: Apache-2.0
#pragma once

// FIFOs (named pipes) for the tests of inputs and outputs that are not regular files.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace neurobench::test {

/// Makes a FIFO at `path`; throws when mkfifo fails.
inline void make_fifo(const std::filesystem::path& path) {
  if (::mkfifo(path.c_str(), 0600) != 0) {
    throw std::runtime_error("mkfifo " + path.string() + " failed");
  }
}

/// True when `path` is a FIFO (stat, following symbolic links).
inline bool is_fifo(const std::filesystem::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

/// A thread that opens a FIFO for reading and reads it to its end, as `cat fifo` would.
class FifoReader {
 public:
  explicit FifoReader(std::filesystem::path path)
      : thread_([this, path = std::move(path)] {
          const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
          if (fd < 0) return;
          char buffer[4096];
          for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n <= 0) break;
            text_.append(buffer, static_cast<std::size_t>(n));
          }
          ::close(fd);
        }) {}
  ~FifoReader() {
    if (thread_.joinable()) thread_.join();
  }
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;
  /// Waits for the end of the data (the writer closed the FIFO) and returns what was read.
  std::string text() {
    if (thread_.joinable()) thread_.join();
    return text_;
  }

 private:
  std::string text_;
  std::thread thread_;
};

/// Opens a FIFO for writing and closes it again after `seconds`, unless destroyed before: a
/// reader blocked in open() (the bug under test) then gets an end of file, so that a broken
/// check fails its test instead of hanging it.
class FifoUnblocker {
 public:
  FifoUnblocker(std::filesystem::path path, double seconds)
      : thread_([this, path = std::move(path), seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                           [this] { return done_; })) {
            return;
          }
          const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
          if (fd >= 0) ::close(fd);
        }) {}
  ~FifoUnblocker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  FifoUnblocker(const FifoUnblocker&) = delete;
  FifoUnblocker& operator=(const FifoUnblocker&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace neurobench::test
