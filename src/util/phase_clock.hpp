// SPDX-License-Identifier: Apache-2.0
#pragma once

// The clock of a run's phases (`_run.phases`, docs/cli.md): each phase's seconds, in the order
// they ran. Private to the library (src/).

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
  /// The phases recorded, in order; the clock is left empty.
  [[nodiscard]] Json take() { return std::exchange(phases_, Json::object()); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point since_ = Clock::now();
  Json phases_ = Json::object();
};

}  // namespace neurobench::detail
