// SPDX-License-Identifier: Apache-2.0
#include "suite/run_record.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cctype>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>

#include "io/input_file.hpp"
#include "suite/process.hpp"
#include "util/json_input.hpp"

namespace neurobench::suite {

namespace fs = std::filesystem;

namespace {

// The log's last line that says `error` (the run's own message), else its last line.
std::string telling_line(const std::string& tail) {
  std::string last;
  std::size_t end = tail.size();
  while (end > 0) {
    const std::size_t nl = tail.rfind('\n', end - 1);
    const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
    std::string line = tail.substr(begin, end - begin);
    if (last.empty()) last = line;
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("error") != std::string::npos) return line;
    if (nl == std::string::npos) break;
    end = nl;
  }
  return last;
}

// What a run's end means: its status and cause, as the record keeps them.
void describe_end(const JobEnd& end, const PlannedRun& run, double timeout, Json& r) {
  std::error_code ec;
  const bool has_results = fs::is_regular_file(run.results, ec);
  std::string status = "ok";
  std::string cause;
  r["exit_code"] = nullptr;
  r["signal"] = nullptr;
  if (!end.exit) {
    status = "failed";
    cause = "could not start: " + end.start_error;
  } else {
    const int w = end.exit->wait_status;
    if (WIFEXITED(w)) r["exit_code"] = WEXITSTATUS(w);
    if (WIFSIGNALED(w)) r["signal"] = signal_name(WTERMSIG(w));
    if (end.timed_out) {
      status = "timeout";
      cause = fmt::format("stopped after the timeout of {:g} s ({})", timeout,
                          WIFSIGNALED(w) && WTERMSIG(w) == SIGKILL
                              ? "SIGTERM, then SIGKILL after the grace"
                              : "SIGTERM");
    } else if (WIFSIGNALED(w)) {
      status = "crashed";
      cause = "killed by " + signal_name(WTERMSIG(w));
      if (WTERMSIG(w) == SIGKILL) cause += " (the kernel's out-of-memory killer sends SIGKILL)";
    } else if (WEXITSTATUS(w) == kExitMetricFailed && has_results) {
      status = "failed";
      cause = "a metric failed (exit status 1); the other metrics are in the results file";
    } else if (WEXITSTATUS(w) != 0) {
      status = "failed";
      cause = fmt::format("exit status {}", WEXITSTATUS(w));
    } else if (!has_results) {
      status = "failed";
      cause = "exit status 0 but no results file";
    }
  }
  if (status != "ok") {
    const std::string tail = log_tail(run.log, 10);
    r["log_tail"] = tail;
    const std::string line = telling_line(tail);
    if (!line.empty()) cause += ": " + line;
  }
  r["status"] = status;
  r["cause"] = cause;
}

std::string relative_to(const fs::path& p, const fs::path& base) {
  return p.lexically_relative(base).string();
}

}  // namespace

Json read_run_record(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return nullptr;
  try {
    return detail::parse_user_json(detail::read_input_file(file, "run record", 1 << 20),
                                   file.string());
  } catch (const Error&) {
    return nullptr;  // a damaged record: the run is not done
  }
}

bool completed(const PlannedRun& run, const JobEnd& end) {
  std::error_code ec;
  return end.exit && WIFEXITED(end.exit->wait_status) && WEXITSTATUS(end.exit->wait_status) == 0 &&
         fs::is_regular_file(run.results, ec);
}

Json run_record(const SuiteFile& suite, const Plan& plan, const PlannedRun& run, const JobEnd& end,
                double timeout_seconds, int jobs) {
  std::error_code ec;
  Json r = Json::object();
  r["group"] = suite.groups.at(run.group).id;
  r["repeat"] = run.repeat;
  r["key"] = run.key.to_json();
  describe_end(end, run, timeout_seconds, r);
  r["wall_seconds"] = end.exit ? Json(end.exit->wall_seconds) : Json(nullptr);
  r["peak_rss_bytes"] = end.exit ? Json(end.exit->peak_rss_bytes) : Json(nullptr);
  r["user_seconds"] = end.exit ? Json(end.exit->user_seconds) : Json(nullptr);
  r["system_seconds"] = end.exit ? Json(end.exit->system_seconds) : Json(nullptr);
  r["jobs"] = jobs;
  r["alone"] = end.alone;
  r["config"] = relative_to(run.config, plan.folder);
  r["results"] = fs::is_regular_file(run.results, ec) ? Json(relative_to(run.results, plan.folder))
                                                      : Json(nullptr);
  r["log"] = relative_to(run.log, plan.folder);
  return r;
}

Json write_run_record(const SuiteFile& suite, const Plan& plan, const PlannedRun& run,
                      const JobEnd& end, double timeout_seconds, int jobs) {
  Json r = run_record(suite, plan, run, end, timeout_seconds, jobs);
  write_output_file(run.record, r.dump(2) + "\n");
  return r;
}

}  // namespace neurobench::suite
