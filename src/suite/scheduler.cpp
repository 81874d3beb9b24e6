// SPDX-License-Identifier: Apache-2.0
// The suite's scheduler: one thread polling its children every few milliseconds, so that
// timeouts, signals and exits are handled in one loop without races.
#include "suite/scheduler.hpp"

#include <signal.h>
#include <time.h>

#include <chrono>
#include <deque>
#include <list>

namespace neurobench::suite {
namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_signal = 0;  // the first stop signal
volatile sig_atomic_t g_count = 0;   // how many arrived

extern "C" void on_stop_signal(int signal) {
  if (g_count == 0) g_signal = signal;
  g_count = g_count + 1;
}

// Handlers for SIGINT and SIGTERM while the jobs run; the old ones come back on destruction.
// A signal this process ignores (nohup) stays ignored.
class StopSignals {
 public:
  StopSignals() {
    g_signal = 0;
    g_count = 0;
    for (int i = 0; i < 2; ++i) {
      struct sigaction current {};
      ::sigaction(kSignals[i], nullptr, &current);
      if (current.sa_handler == SIG_IGN) continue;
      struct sigaction action {};
      action.sa_handler = on_stop_signal;
      sigemptyset(&action.sa_mask);
      installed_[i] = ::sigaction(kSignals[i], &action, &old_[i]) == 0;
    }
  }
  ~StopSignals() {
    for (int i = 0; i < 2; ++i) {
      if (installed_[i]) ::sigaction(kSignals[i], &old_[i], nullptr);
    }
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  struct sigaction old_[2] {};
  bool installed_[2] = {false, false};
};

struct Running {
  std::size_t index;
  ChildProcess child;
  Clock::time_point started;
  bool alone;
  bool timed_out = false;
  bool interrupted = false;
  bool killed = false;
  std::optional<Clock::time_point> signalled;  // SIGTERM or SIGINT sent: SIGKILL after grace
};

void sleep_briefly() {
  const struct timespec pause = {0, 5 * 1000 * 1000};  // 5 ms; a signal ends it sooner
  ::nanosleep(&pause, nullptr);
}

}  // namespace

ScheduleResult run_jobs(const std::vector<Job>& jobs, const ScheduleOptions& options,
                        const std::function<void(std::size_t)>& on_start,
                        const std::function<void(std::size_t, const JobEnd&)>& on_end) {
  const StopSignals signals;
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < jobs.size(); ++i) pending.push_back(i);
  std::list<Running> running;  // ChildProcess is not assignable: a list never moves them
  const auto grace = std::chrono::duration<double>(options.grace_seconds);
  ScheduleResult result;
  int handled_count = 0;
  // Whether the current job ran alone from start to end: a job is alone when it started
  // with nothing running and nothing started after it; `company[i]` says another ran.
  std::vector<bool> company(jobs.size(), false);

  while (!pending.empty() || !running.empty()) {
    const int count = g_count;
    if (count > handled_count) {
      const auto now = Clock::now();
      if (handled_count == 0) {
        result.interrupted_by = g_signal;
        pending.clear();
        for (auto& r : running) {
          r.interrupted = true;
          r.child.signal_group(g_signal);
          r.signalled = now;
        }
      } else {
        for (auto& r : running) {  // a second signal: at once
          r.child.signal_group(SIGKILL);
          r.killed = true;
        }
      }
      handled_count = count;
    }
    // Start what may start, in order: a job that must run alone waits for the others to end,
    // and holds back those after it.
    while (!pending.empty() && static_cast<int>(running.size()) < options.jobs) {
      const std::size_t next = pending.front();
      if (!running.empty() && (jobs[next].alone || running.front().alone)) break;
      pending.pop_front();
      on_start(next);
      try {
        ChildProcess child(jobs[next].argv, jobs[next].log);
        for (auto& other : running) {
          company[other.index] = true;
          company[next] = true;
        }
        running.push_back(Running{next, std::move(child), Clock::now(), jobs[next].alone, false,
                                  false, false, std::nullopt});
      } catch (const std::exception& e) {
        JobEnd end;
        end.start_error = e.what();
        on_end(next, end);
      }
    }
    // Reap, time out, escalate.
    for (auto it = running.begin(); it != running.end();) {
      Running& r = *it;
      if (auto exit = r.child.poll()) {
        JobEnd end;
        end.exit = exit;
        end.timed_out = r.timed_out;
        end.interrupted = r.interrupted && !r.timed_out;
        end.alone = !company[r.index];
        const std::size_t index = r.index;
        it = running.erase(it);
        on_end(index, end);
        continue;
      }
      const auto now = Clock::now();
      if (options.timeout_seconds && !r.timed_out && !r.interrupted &&
          now - r.started > std::chrono::duration<double>(*options.timeout_seconds)) {
        r.timed_out = true;
        r.child.signal_group(SIGTERM);
        r.signalled = now;
      }
      if (r.signalled && !r.killed && now - *r.signalled > grace) {
        r.child.signal_group(SIGKILL);
        r.killed = true;
      }
      ++it;
    }
    if (!running.empty() || !pending.empty()) sleep_briefly();
  }
  return result;
}

}  // namespace neurobench::suite
