// SPDX-License-Identifier: Apache-2.0
// Output files. A regular file is replaced whole through a temporary file and a rename; a
// character device or a FIFO is written in place; anything else is refused. Renaming over
// whatever a path names turned /dev/null into a regular file when run as root (issue 11).
#include <neurobench/io/output_file.hpp>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/file_type.hpp"

namespace neurobench {

namespace {

namespace fs = std::filesystem;

std::string errno_message(int error) { return std::generic_category().message(error); }

[[noreturn]] void cannot_open(const fs::path& path, const std::string& why) {
  throw InputError(fmt::format("{}: cannot open for writing: {}", path.string(), why));
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

std::string link_target(const fs::path& path) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path, ec);
  return ec ? std::string("a missing file") : target.string();
}

// The folder that will hold the temporary file and see the rename: there, and writable.
void check_folder(const fs::path& path, const fs::path& file) {
  const fs::path dir = folder_of(file);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT)
      cannot_open(path, fmt::format("directory {} does not exist", dir.string()));
    cannot_open(path, fmt::format("directory {}: {}", dir.string(), errno_message(error)));
  }
  if (!S_ISDIR(st.st_mode)) cannot_open(path, fmt::format("{} is not a directory", dir.string()));
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    cannot_open(
        path, fmt::format("directory {} is not writable ({})", dir.string(), errno_message(errno)));
  }
}

// What a path is, for telling two paths apart: a file by device and inode, a path where nothing
// is yet by where it would be.
struct Identity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  fs::path where;
};

Identity identify(const fs::path& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
    return id;
  }
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  id.where = ec ? path.lexically_normal() : fs::weakly_canonical(absolute, ec);
  if (ec) id.where = absolute.lexically_normal();
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (a.exists != b.exists) return false;
  return a.exists ? a.device == b.device && a.inode == b.inode : a.where == b.where;
}

// Writes every byte or throws; `written` counts what went out.
int write_all(int fd, std::string_view bytes, std::size_t& written) {
  written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

[[noreturn]] void write_failed(const fs::path& path, const std::string& what, int error) {
  throw InputError(
      fmt::format("{}: write failed ({}): {}", path.string(), what, errno_message(error)));
}

// One output on its way: the temporary file of a Replace output, the descriptor of a
// WriteThrough one, and how far the rename went.
struct Pending {
  std::string_view contents;
  OutputTarget target;
  std::string temporary;  // a Replace output's temporary file, once written
  int fd = -1;            // a WriteThrough output's descriptor, while open
  enum class Done { Nothing, Exchanged, Renamed, Created } done = Done::Nothing;
};

// The contents in a new temporary file beside the target, flushed to disk and closed.
std::string write_temporary(const OutputTarget& target, std::string_view contents) {
  const fs::path dir = folder_of(target.file);
  std::string name = (dir / ("." + target.file.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    cannot_open(target.path, fmt::format("cannot create a temporary file in {}: {}", dir.string(),
                                         errno_message(errno)));
  }
  // A replaced file keeps its permissions; a new one is readable by all, as before.
  mode_t mode = 0644;
  struct stat old {};
  if (target.exists && ::stat(target.file.c_str(), &old) == 0) mode = old.st_mode & 07777;
  std::size_t written = 0;
  const char* step = "write";
  int error = write_all(fd, contents, written);
  if (error == 0 && ::fchmod(fd, mode) != 0) {
    error = errno;
    step = "chmod";
  }
  if (error == 0 && ::fsync(fd) != 0) {
    error = errno;
    step = "fsync";
  }
  if (::close(fd) != 0 && error == 0) {
    error = errno;
    step = "close";
  }
  if (error != 0) {
    ::unlink(name.c_str());
    write_failed(target.path, step, error);
  }
  return name;
}

// Opens a character device or FIFO for writing without blocking: a FIFO with no reader yet gets
// kFifoReaderWaitSeconds to have one. Checks the descriptor's type again, since the path could
// have changed since check_output_file() (writing over a regular file in place would leave it
// half old, half new).
int open_write_through(const OutputTarget& target) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kFifoReaderWaitSeconds);
  for (;;) {
    const int fd = ::open(target.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
      struct stat st {};
      if (::fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        ::close(fd);
        cannot_open(target.path,
                    "it changed since it was checked: it is no longer a character device or FIFO");
      }
      // Blocking writes from here: a slow reader is waited for, not an error.
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int error = errno;
        ::close(fd);
        cannot_open(target.path, errno_message(error));
      }
      return fd;
    }
    const int error = errno;
    if (error == EINTR) continue;
    struct stat st {};
    const bool fifo = ::stat(target.path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
    if (error == ENXIO && fifo) {
      if (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      cannot_open(target.path,
                  fmt::format("it is a FIFO (named pipe) and nothing opened it for reading within "
                              "{:g} s",
                              kFifoReaderWaitSeconds));
    }
    cannot_open(target.path, errno_message(error));
  }
}

// Writes to a device or FIFO with SIGPIPE held back, so that a reader that went away is an
// error naming the file rather than the end of the program.
void write_through(int fd, std::string_view contents, const fs::path& path) {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t old_mask;
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool already_pending = sigismember(&pending, SIGPIPE) == 1;
  std::size_t written = 0;
  const int error = write_all(fd, contents, written);
  if (error == EPIPE && !already_pending) {
    const timespec no_wait{0, 0};
    (void)sigtimedwait(&pipe_signal, nullptr, &no_wait);  // the SIGPIPE this write raised
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (error != 0) {
    throw InputError(fmt::format("{}: write failed after {} of {} bytes: {}{}", path.string(),
                                 written, contents.size(), errno_message(error),
                                 error == EPIPE ? " (the reader closed it)" : ""));
  }
}

// Closes descriptors and removes temporary files of outputs not renamed.
void discard(std::vector<Pending>& pending) {
  for (Pending& p : pending) {
    if (p.fd >= 0) ::close(p.fd);
    p.fd = -1;
    if (!p.temporary.empty() && p.done == Pending::Done::Nothing) ::unlink(p.temporary.c_str());
  }
}

// Undoes the renames of pending[0, end): an exchanged file is exchanged back (the old one
// returns), a created file removed. Returns the files that could not be put back.
std::vector<std::string> roll_back(std::vector<Pending>& pending, std::size_t end) {
  std::vector<std::string> not_restored;
  for (std::size_t i = end; i-- > 0;) {
    Pending& p = pending[i];
    const std::string file = p.target.file.string();
    switch (p.done) {
      case Pending::Done::Exchanged:
        if (::renameat2(AT_FDCWD, p.temporary.c_str(), AT_FDCWD, file.c_str(), RENAME_EXCHANGE) ==
            0) {
          ::unlink(p.temporary.c_str());  // now the new contents
        } else {
          not_restored.push_back(fmt::format("{} (its old contents are in {})", file, p.temporary));
        }
        break;
      case Pending::Done::Created:
        if (::unlink(file.c_str()) != 0) not_restored.push_back(file + " (new)");
        break;
      case Pending::Done::Renamed:
        not_restored.push_back(file + " (replaced; the file system cannot exchange files)");
        break;
      case Pending::Done::Nothing:
        break;
    }
    p.done = Pending::Done::Nothing;
    p.temporary.clear();
  }
  return not_restored;
}

// Renames every temporary file over its target, in order. An existing file is exchanged with
// its temporary file (renameat2 RENAME_EXCHANGE), so that it can be put back should a later
// rename fail; file systems without the exchange get a plain rename.
void commit(std::vector<Pending>& pending) {
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    if (p.target.mode != OutputMode::Replace) continue;
    const char* temporary = p.temporary.c_str();
    const char* file = p.target.file.c_str();
    if (p.target.exists) {
      if (::renameat2(AT_FDCWD, temporary, AT_FDCWD, file, RENAME_EXCHANGE) == 0) {
        p.done = Pending::Done::Exchanged;
        continue;
      }
    }
    if (::rename(temporary, file) == 0) {
      p.done = p.target.exists ? Pending::Done::Renamed : Pending::Done::Created;
      continue;
    }
    const int error = errno;
    const std::vector<std::string> not_restored = roll_back(pending, i);
    discard(pending);
    std::string undone = "no other output was changed";
    if (!not_restored.empty()) {
      undone = "these outputs could not be put back: ";
      for (std::size_t k = 0; k < not_restored.size(); ++k) {
        undone += (k ? ", " : "") + not_restored[k];
      }
    } else if (i > 0) {
      undone = "the outputs renamed before it were put back";
    }
    throw InputError(fmt::format("{}: write failed (rename): {}; {}", p.target.path.string(),
                                 errno_message(error), undone));
  }
  std::set<std::string> folders;
  for (Pending& p : pending) {
    if (p.done == Pending::Done::Exchanged) ::unlink(p.temporary.c_str());  // the old contents
    if (p.target.mode == OutputMode::Replace) folders.insert(folder_of(p.target.file).string());
  }
  // The renames themselves reach the disk with their folders.
  for (const std::string& folder : folders) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      (void)::fsync(fd);
      ::close(fd);
    }
  }
}

}  // namespace

OutputTarget check_output_file(const fs::path& path) {
  if (path.empty()) throw InputError("cannot write to an empty path");
  OutputTarget target{path, path, OutputMode::Replace, false};
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    const int error = errno;
    if (error != ENOENT) cannot_open(path, errno_message(error));
    check_folder(path, path);
    return target;
  }
  struct stat st = link;
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      cannot_open(path, fmt::format("it is a symbolic link to {}, which does not exist (create "
                                    "the file it names, or remove the link)",
                                    link_target(path)));
    }
    cannot_open(path, errno_message(error));
  }
  target.exists = true;
  if (S_ISREG(st.st_mode)) {
    if (S_ISLNK(link.st_mode)) {
      std::error_code ec;
      target.file = fs::canonical(path, ec);
      if (ec) cannot_open(path, "cannot resolve the symbolic link: " + ec.message());
    }
    check_folder(path, target.file);
    return target;
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    target.mode = OutputMode::WriteThrough;
    if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
      cannot_open(path, errno_message(errno));
    }
    return target;
  }
  if (S_ISDIR(st.st_mode)) cannot_open(path, "it is a directory (give a file name)");
  cannot_open(path, fmt::format("it is {}; an output may be a regular file, a character device "
                                "or a FIFO",
                                detail::describe_file_type(st.st_mode)));
}

void check_distinct_files(const std::vector<NamedFile>& outputs,
                          const std::vector<NamedFile>& inputs) {
  std::vector<Identity> out;
  out.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    out.push_back(identify(outputs[i].path));
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(out[j], out[i])) {
        throw InputError(fmt::format(
            "{} ({}) and {} ({}) are the same file: give each output a file of its own",
            outputs[j].path.string(), outputs[j].role, outputs[i].path.string(), outputs[i].role));
      }
    }
  }
  // An input exists (one that does not is left to its reader), so only an output that exists
  // can be one: with none, the inputs (a data set's thousands of clips) need no look.
  if (std::none_of(out.begin(), out.end(), [](const Identity& o) { return o.exists; })) return;
  for (const NamedFile& input : inputs) {
    const Identity in = identify(input.path);
    if (!in.exists) continue;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (same_file(out[i], in)) {
        throw InputError(fmt::format(
            "{} ({}) is the same file as {} ({}): an output must not overwrite an input",
            outputs[i].path.string(), outputs[i].role, input.path.string(), input.role));
      }
    }
  }
}

std::vector<NamedFile> named_files(const std::vector<fs::path>& files, const std::string& role) {
  std::vector<NamedFile> named;
  named.reserve(files.size());
  for (const fs::path& f : files) named.push_back({f, role});
  return named;
}

namespace {

// write_output_files() on contents the caller keeps, so that a large file is not copied.
void write_outputs(const std::vector<std::pair<const fs::path*, std::string_view>>& files) {
  std::vector<Pending> pending;
  std::vector<NamedFile> named;
  pending.reserve(files.size());
  for (const auto& [path, contents] : files) {
    Pending p;
    p.contents = contents;
    p.target = check_output_file(*path);
    pending.push_back(std::move(p));
    named.push_back({*path, "output"});
  }
  check_distinct_files(named, {});
  try {
    for (Pending& p : pending) {
      if (p.target.mode == OutputMode::Replace) {
        p.temporary = write_temporary(p.target, p.contents);
      }
    }
    // Every device and FIFO is open (a FIFO has its reader) before any is written.
    for (Pending& p : pending) {
      if (p.target.mode == OutputMode::WriteThrough) p.fd = open_write_through(p.target);
    }
    for (Pending& p : pending) {
      if (p.target.mode != OutputMode::WriteThrough) continue;
      write_through(p.fd, p.contents, p.target.path);
      const int fd = p.fd;
      p.fd = -1;
      if (::close(fd) != 0) write_failed(p.target.path, "close", errno);
    }
  } catch (...) {
    discard(pending);
    throw;
  }
  commit(pending);
}

}  // namespace

void write_output_files(const std::vector<OutputFile>& files) {
  std::vector<std::pair<const fs::path*, std::string_view>> views;
  views.reserve(files.size());
  for (const OutputFile& f : files) views.emplace_back(&f.path, f.contents);
  write_outputs(views);
}

void write_output_file(const fs::path& path, std::string_view contents) {
  write_outputs({{&path, contents}});
}

}  // namespace neurobench
