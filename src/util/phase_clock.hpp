// SPDX-License-Identifier: Apache-2.0
#pragma once

// The clock of a run's phases (`_run.phases`, docs/cli.md): each phase's seconds, in the order
// they ran. Private to the library (src/).

#include <algorithm>
#include <chrono>
#include <utility>

#include <neurobench/json.hpp>

namespace neurobench::detail {

class PhaseClock {
 public:
  /// Starts timing the next phase now (time since the last lap is left out).
  void restart() { since_ = Clock::now(); }
  /// Records the seconds since the last lap (or restart) as phase `name`, and starts the next.
  void lap(const char* name) {
    const Clock::time_point now = Clock::now();
    phases_[name] = std::chrono::duration<double>(now - since_).count();
    since_ = now;
  }
  /// Moves `seconds` of the phase `from` (recorded) into a phase `to` recorded after it: a part
  /// the phase's own code measured (a sharded run's exchange inside its workload pass).
  void split(const char* from, const char* to, double seconds) {
    if (!phases_.contains(from)) return;
    const double whole = phases_[from].get<double>();
    seconds = std::min(std::max(seconds, 0.0), whole);
    phases_[from] = whole - seconds;
    phases_[to] = seconds;
  }
  /// Whether phase `name` was recorded.
  [[nodiscard]] bool has(const char* name) const { return phases_.contains(name); }
  /// The phases recorded, in order; the clock is left empty.
  [[nodiscard]] Json take() { return std::exchange(phases_, Json::object()); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point since_ = Clock::now();
  Json phases_ = Json::object();
};

/// The phase clock of the step being timed on this thread, while one is: lets the code deep
/// inside a phase (an `.npz`'s read, then the wait for its digest) record finer phases in its
/// place. Scopes nest; the innermost is current.
class PhaseScope {
 public:
  explicit PhaseScope(PhaseClock& clock) : outer_(std::exchange(current_, &clock)) {}
  ~PhaseScope() { current_ = outer_; }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;
  /// The innermost scope's clock on this thread, or nullptr.
  [[nodiscard]] static PhaseClock* current() { return current_; }

 private:
  PhaseClock* outer_;
  static inline thread_local PhaseClock* current_ = nullptr;
};

}  // namespace neurobench::detail
