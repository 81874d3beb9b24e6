// SPDX-License-Identifier: Apache-2.0
#pragma once

// Stopping a run from outside it: another thread, a signal handler, a GUI's cancel button.

#include <string_view>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Asks the running Benchmark::run(), in any thread, to stop: it finishes the batch (or timed
/// run) in progress, then throws Interrupted, with no results. A run that starts while a stop
/// is requested throws before its first pass. The request stays until clear_stop_request().
///
/// Async-signal-safe (it only stores to lock-free atomics), so a signal handler may call it.
/// `signal` is the signal that asked, for the message and the exit status; 0 from code.
///
/// ```cpp
/// std::thread watchdog([] { std::this_thread::sleep_for(10min); neurobench::request_stop(); });
/// ```
void request_stop(int signal = 0) noexcept;

/// True once request_stop() was called (and not cleared since).
[[nodiscard]] bool stop_requested() noexcept;

/// The signal given to the first request_stop() since the last clear, 0 for none or from code.
[[nodiscard]] int stop_signal() noexcept;

/// Forgets a stop request, so that the next run runs.
void clear_stop_request() noexcept;

/// Throws Interrupted when a stop was requested: `interrupted by SIGINT WHERE` (or `interrupted
/// on request (request_stop()) WHERE`), with the signal. For a program's own long loops;
/// Benchmark::run() polls by itself.
void throw_if_stop_requested(std::string_view where);

/// Installs handlers for SIGINT and SIGTERM that call request_stop() with the signal and put
/// back the default action of both, so that a second signal ends the program at once. A signal
/// the program was started with ignored (`nohup`, a background job of a non-interactive shell)
/// stays ignored. For programs: the library never installs a handler by itself. Throws
/// UsageError when sigaction() fails.
void stop_on_signals();

}  // namespace neurobench
NEUROBENCH_API_END
