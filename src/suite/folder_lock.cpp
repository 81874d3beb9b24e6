// SPDX-License-Identifier: Apache-2.0
// flock(2) rather than a pid file checked for liveness: the kernel releases it when the holder
// dies, so there is no stale lock to judge and no race between checking and taking.
#include "suite/folder_lock.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench::suite {
namespace {

// The process id the lock file holds, or 0 when it holds none (its holder may be writing it).
long holder_pid(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  char* end = nullptr;
  const long pid = std::strtol(text, &end, 10);
  return end != text && pid > 0 ? pid : 0;
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / kLockFileName;
  // O_NOFOLLOW and O_NONBLOCK: a symbolic link or a FIFO planted there is refused, not
  // followed or waited on.
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    const int error = errno;
    throw InputError(fmt::format("--out {}: cannot open its lock file {}: {}", folder.string(),
                                 file.string(), std::strerror(error)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(fmt::format("--out {}: its lock file {} is not a regular file",
                                 folder.string(), file.string()));
  }
  int locked = -1;
  do {
    locked = ::flock(fd_, LOCK_EX | LOCK_NB);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0) {
    const int error = errno;
    const long pid = error == EWOULDBLOCK ? holder_pid(fd_) : 0;
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK) {
      throw InputError(fmt::format("--out {}: cannot lock {}: {}", folder.string(), file.string(),
                                   std::strerror(error)));
    }
    throw InputError(fmt::format(
        "--out {}: the results folder is in use by another suite ({}lock file {}): wait for it "
        "to end, or give another --out",
        folder.string(), pid > 0 ? fmt::format("process {}, ", pid) : std::string(),
        file.string()));
  }
  // The holder's id, for the message of a suite refused; a failure to write it only makes that
  // message vaguer.
  const std::string text = fmt::format("{}\n", static_cast<long>(::getpid()));
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, text.data(), text.size(), 0);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the file releases the lock
}

}  // namespace neurobench::suite
