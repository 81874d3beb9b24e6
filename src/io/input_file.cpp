// SPDX-License-Identifier: Apache-2.0
#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/file_type.hpp"
#include "util/text.hpp"

namespace neurobench::detail {

namespace {

std::string errno_message(int error) { return std::generic_category().message(error); }

// The target a dangling symbolic link names, for the message; empty when it cannot be read.
std::string link_target(const std::filesystem::path& path) {
  std::error_code ec;
  const auto target = std::filesystem::read_symlink(path, ec);
  return ec ? std::string() : path_text(target);
}

}  // namespace

std::uint64_t check_regular_input(const std::filesystem::path& path, std::string_view what) {
  const std::string where = path_text(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      struct stat link {};
      if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        throw InputError(fmt::format("{}: no such {} (a symbolic link to {}, which does not exist)",
                                     where, what, link_target(path)));
      }
      throw InputError(fmt::format("{}: no such {}", where, what));
    }
    if (error == ELOOP) {
      throw InputError(fmt::format(
          "{}: the {} is a symbolic link loop (following its links leads back to one of them)",
          where, what));
    }
    throw InputError(fmt::format("{}: cannot read the {}: {}", where, what, errno_message(error)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(fmt::format("{}: the {} is {}, not a regular file", where, what,
                                 describe_file_type(st.st_mode)));
  }
  return static_cast<std::uint64_t>(st.st_size);
}

void check_entry_resolves(const std::filesystem::path& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return;
  const int error = errno;
  const std::string where = path_text(path);
  struct stat link {};
  if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    throw InputError(fmt::format("{}: the {} is a symbolic link to {}, which does not exist", where,
                                 what, link_target(path)));
  }
  if (error == ELOOP) {
    throw InputError(fmt::format(
        "{}: the {} is a symbolic link loop (following its links leads back to one of them)", where,
        what));
  }
  if (error == ENOENT) return;  // gone since the listing: as if it had not been there
  throw InputError(fmt::format("{}: cannot read the {}: {}", where, what, errno_message(error)));
}

std::string byte_count(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

std::uint64_t check_regular_input(const std::filesystem::path& path, std::string_view what,
                                  std::uint64_t max_bytes) {
  const std::uint64_t size = check_regular_input(path, what);
  if (size > max_bytes) {
    throw InputError(fmt::format("{}: the {} is {} bytes, more than the limit of {}",
                                 path_text(path), what, size, byte_count(max_bytes)));
  }
  return size;
}

void check_openable(const std::filesystem::path& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    throw InputError(
        fmt::format("{}: cannot open the {}: {}", path_text(path), what, errno_message(errno)));
  }
  ::close(fd);
}

void check_listable(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  std::filesystem::directory_iterator it(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
    throw InputError(
        fmt::format("{}: cannot list the {}: {}", path_text(path), what, ec.message()));
  }
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  const std::string where = path_text(path);
  const std::uint64_t size = check_regular_input(path, what, max_bytes);
  // O_NONBLOCK: should the path have become a FIFO since the check, open() does not wait for a
  // writer; the fstat() below then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    throw InputError(fmt::format("{}: cannot open the {}: {}", where, what, errno_message(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw InputError(
        fmt::format("{}: the {} changed while it was opened: it is no longer a "
                    "regular file",
                    where, what));
  }
  std::string text;
  text.resize(static_cast<std::size_t>(size) + 1);  // one more: to see a file that grew
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > max_bytes) {
        throw InputError(fmt::format("{}: the {} grew past the limit of {} while it was read",
                                     where, what, byte_count(max_bytes)));
      }
      text.resize(static_cast<std::size_t>(
          std::min<std::uint64_t>(std::uint64_t{text.size()} * 2, max_bytes + 1)));
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(
          fmt::format("{}: cannot read the {}: {}", where, what, errno_message(errno)));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

}  // namespace neurobench::detail
