// SPDX-License-Identifier: Apache-2.0
// Stop requests: a flag that signal handlers and other threads set, and that the passes of a
// run poll between batches.
#include <neurobench/stop.hpp>

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <system_error>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "stop_detail.hpp"

namespace neurobench {

namespace {

// Plain lock-free atomics: the only state a signal handler may touch.
std::atomic<bool> g_requested{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "a signal handler needs lock-free atomics");

void on_signal(int signal) {
  request_stop(signal);
  // A second SIGINT or SIGTERM ends the program: sigaction is async-signal-safe.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGINT, &default_action, nullptr);
  sigaction(SIGTERM, &default_action, nullptr);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    default:
      return fmt::format("signal {}", signal);
  }
}

}  // namespace

void request_stop(int signal) noexcept {
  int none = 0;
  if (signal != 0) g_signal.compare_exchange_strong(none, signal);  // the first signal counts
  g_requested.store(true);
}

bool stop_requested() noexcept { return g_requested.load(); }

int stop_signal() noexcept { return g_signal.load(); }

void clear_stop_request() noexcept {
  g_requested.store(false);
  g_signal.store(0);
}

void stop_on_signals() {
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) {
      throw UsageError(fmt::format("cannot read the action of {}: {}", signal_name(signal),
                                   std::generic_category().message(errno)));
    }
    if (current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // reads and writes in progress go on; the flag is polled
    if (sigaction(signal, &action, nullptr) != 0) {
      throw UsageError(fmt::format("cannot handle {}: {}", signal_name(signal),
                                   std::generic_category().message(errno)));
    }
  }
}

namespace detail {

void throw_interrupted(const std::string& where) {
  const int signal = stop_signal();
  const std::string by =
      signal != 0 ? "by " + signal_name(signal) : std::string("on request (request_stop())");
  throw Interrupted(fmt::format("interrupted {} {}", by, where), signal);
}

}  // namespace detail

void throw_if_stop_requested(std::string_view where) {
  if (stop_requested()) detail::throw_interrupted(std::string(where));
}

}  // namespace neurobench
