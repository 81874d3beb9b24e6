// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs a reader the way a user without permission would: in a child process that, when the tests
// run as root (who may read anything), becomes `nobody` first. For tests of messages about files
// and folders of mode 000.

#include <sys/wait.h>
#include <unistd.h>

#include <exception>
#include <functional>
#include <string>

namespace neurobench::test {

/// The message of what `read` throws in such a child, "no error" when it throws nothing, or
/// "cannot drop root" when the child cannot become nobody.
inline std::string unprivileged_error(const std::function<void()>& read) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message = "no error";
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      message = "cannot drop root";
    } else {
      try {
        read();
      } catch (const std::exception& e) {
        message = e.what();
      }
    }
    (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return message;
}

}  // namespace neurobench::test
