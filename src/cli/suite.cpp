// SPDX-License-Identifier: Apache-2.0
// `neurobench suite`: many `neurobench run`s, each in its own process, resumable, with a
// summary of their repeats (docs/suites.md).
#include <signal.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "cli/commands.hpp"
#include "io/input_file.hpp"
#include "suite/folder_lock.hpp"
#include "suite/process.hpp"
#include "suite/run_key.hpp"
#include "suite/scheduler.hpp"
#include "suite/suite_file.hpp"
#include "suite/summary.hpp"
#include "util/json_input.hpp"

namespace neurobench::cli {

namespace fs = std::filesystem;

CLI::App* add_suite_command(CLI::App& app, SuiteArgs& a) {
  CLI::App* suite = app.add_subcommand(
      "suite",
      "Run a suite of benchmarks (models x data sets x settings x repeats), each run in its own "
      "process, resumable, with a summary of the repeats against a baseline (docs/suites.md)");
  suite->add_option("suite", a.file, "the suite file (JSON)")->required();
  suite
      ->add_option("--jobs,-j", a.jobs,
                   "runs at once (default: the suite's 'jobs', else 1); runs with timing "
                   "metrics always run alone")
      ->check(whole_text())
      ->check(CLI::Range(1, suite::kMaxJobs));
  suite
      ->add_option("--timeout", a.timeout_seconds,
                   "seconds a run may take before it is stopped (SIGTERM, then SIGKILL); "
                   "overrides the suite's 'timeout_seconds'; 0: no limit")
      ->check(decimal_text())
      ->check(CLI::Range(0.0, suite::kMaxTimeoutSeconds));
  suite
      ->add_option("--out,-o", a.out,
                   "the folder for the results (default: SUITE-results beside the current "
                   "directory, SUITE the suite file's name without .json)")
      ->check(output_path_text());
  suite->add_flag("--rerun", a.rerun, "run every run again, even those already done");
  return suite;
}

namespace {

// One run of the plan, with its files.
struct PlannedRun {
  std::size_t group = 0;
  int repeat = 0;
  suite::RunKey key;
  fs::path config;   // OUT/runs/GROUP/config.json
  fs::path results;  // rep-K.json
  fs::path log;      // rep-K.log
  fs::path record;   // rep-K.run.json
  bool done = false;
};

// A results file's or record's leftovers: the atomic writer's temporary files (".NAME.XXXXXX").
void remove_temporaries(const fs::path& file) {
  std::error_code ec;
  const std::string prefix = "." + file.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(file.parent_path(), ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) fs::remove(entry.path(), ec);
  }
}

Json read_record(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return nullptr;
  try {
    return detail::parse_user_json(detail::read_input_file(file, "run record", 1 << 20),
                                   file.string());
  } catch (const Error&) {
    return nullptr;  // a damaged record: the run is not done
  }
}

bool is_done(const PlannedRun& run) {
  std::error_code ec;
  if (!fs::is_regular_file(run.results, ec)) return false;
  const Json record = read_record(run.record);
  if (!(record.is_object() && record.value("status", "") == "ok" && record.contains("key") &&
        record["key"].is_object() && record["key"].value("key", "") == run.key.key)) {
    return false;
  }
  // A results file damaged after its run (truncated, overwritten) would make the summary say
  // `failed` for ever while its record says ok: such a run is not done, and runs again.
  try {
    (void)load_run_results(run.results);
  } catch (const Error&) {
    return false;
  }
  return true;
}

std::string relative_to(const fs::path& p, const fs::path& base) {
  return p.lexically_relative(base).string();
}

// What a run's end means: its status and cause, as the record keeps them.
void describe_end(const suite::JobEnd& end, const PlannedRun& run, double timeout, Json& r) {
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
    if (WIFSIGNALED(w)) r["signal"] = suite::signal_name(WTERMSIG(w));
    if (end.timed_out) {
      status = "timeout";
      cause = fmt::format("stopped after the timeout of {:g} s ({})", timeout,
                          WIFSIGNALED(w) && WTERMSIG(w) == SIGKILL
                              ? "SIGTERM, then SIGKILL after the grace"
                              : "SIGTERM");
    } else if (WIFSIGNALED(w)) {
      status = "crashed";
      cause = "killed by " + suite::signal_name(WTERMSIG(w));
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
    const std::string tail = suite::log_tail(run.log, 10);
    r["log_tail"] = tail;
    // The cause is the log's last line that says `error` (the run's own message), else its
    // last line.
    std::string last;
    std::size_t end = tail.size();
    while (end > 0) {
      const std::size_t nl = tail.rfind('\n', end - 1);
      const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
      std::string line = tail.substr(begin, end - begin);
      if (last.empty()) last = line;
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("error") != std::string::npos) {
        last = line;
        break;
      }
      if (nl == std::string::npos) break;
      end = nl;
    }
    if (!last.empty()) cause += ": " + last;
  }
  r["status"] = status;
  r["cause"] = cause;
}

std::string mib(std::int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

}  // namespace

int suite_command(const SuiteArgs& args, const CLI::App& command, std::ostream& out) {
  suite::SuiteFile s = suite::read_suite_file(args.file);
  const auto given = [&](const char* name) { return command.get_option(name)->count() > 0; };
  const int jobs = given("--jobs") ? args.jobs : s.jobs;
  std::optional<double> timeout = s.timeout_seconds;
  if (given("--timeout")) {
    timeout = args.timeout_seconds > 0 ? std::optional<double>(args.timeout_seconds) : std::nullopt;
  }
  const fs::path out_dir =
      args.out.empty() ? fs::path(s.file.stem().string() + "-results") : fs::path(args.out);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    throw InputError(fmt::format("--out {}: cannot create it: {}", out_dir.string(), ec.message()));
  }
  // Held for the suite's life: a second suite on the same folder would remove this one's
  // fresh results before each of its own runs, and run every run twice.
  const suite::FolderLock lock(out_dir);
  fs::create_directories(out_dir / "runs", ec);
  if (ec) {
    throw InputError(fmt::format("--out {}: cannot create {}: {}", out_dir.string(),
                                 (out_dir / "runs").string(), ec.message()));
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's path (/proc/self/exe): " + ec.message());

  // The plan: every group's repeats, their keys, and which are done.
  suite::InputHasher hasher;
  std::vector<PlannedRun> plan;
  for (std::size_t gi = 0; gi < s.groups.size(); ++gi) {
    const suite::SuiteGroup& g = s.groups[gi];
    const fs::path dir = out_dir / "runs" / g.id;
    for (int k = 0; k < s.repeats; ++k) {
      PlannedRun run;
      run.group = gi;
      run.repeat = k;
      run.key = suite::run_key(g.config, k, hasher);
      run.config = dir / "config.json";
      run.results = dir / fmt::format("rep-{}.json", k);
      run.log = dir / fmt::format("rep-{}.log", k);
      run.record = dir / fmt::format("rep-{}.run.json", k);
      run.done = !args.rerun && is_done(run);
      plan.push_back(std::move(run));
    }
  }
  std::vector<std::size_t> to_run;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].done) to_run.push_back(i);
  }
  out << fmt::format(
      "suite {}: {} group{} x {} repeat{} = {} runs ({} done), {} job{} at once, "
      "timeout {}; results in {}\n",
      s.name, s.groups.size(), s.groups.size() == 1 ? "" : "s", s.repeats,
      s.repeats == 1 ? "" : "s", plan.size(), plan.size() - to_run.size(), jobs,
      jobs == 1 ? "" : "s", timeout ? fmt::format("{:g} s", *timeout) : std::string("none"),
      out_dir.string());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].done) {
      out << fmt::format("  {}/rep-{}: skipped (done)\n", s.groups[plan[i].group].id,
                         plan[i].repeat);
    }
  }
  out.flush();

  std::vector<suite::Job> job_list;
  for (const std::size_t i : to_run) {
    const PlannedRun& run = plan[i];
    // Each run is one whole benchmark: a suite started by torchrun, srun or mpirun does not
    // make its runs shard (docs/distributed.md).
    job_list.push_back(suite::Job{{exe.string(), "run", run.config.string(), "--json",
                                   run.results.string(), "--quiet", "--distributed", "off"},
                                  run.log,
                                  s.groups[run.group].timed});
  }
  std::size_t finished = 0;
  // Each group's folder and config (as the runs read it; also for the user: `neurobench run
  // CONFIG`) are made when its first run starts, not all before the first run: a file written
  // whole is synced to disk, and thousands of them would hold back the first run for minutes.
  std::vector<bool> prepared(s.groups.size(), false);
  const auto on_start = [&](std::size_t j) {
    const PlannedRun& run = plan[to_run[j]];
    if (!prepared[run.group]) {
      const fs::path dir = run.config.parent_path();
      fs::create_directories(dir, ec);
      if (ec) {
        throw InputError(fmt::format("--out {}: cannot create {}: {}", out_dir.string(),
                                     dir.string(), ec.message()));
      }
      s.groups[run.group].config.write(run.config);
      prepared[run.group] = true;
    }
    // A stale results file must never pair with the new record.
    for (const fs::path& f : {run.results, run.record}) {
      fs::remove(f, ec);
      remove_temporaries(f);
    }
    out << fmt::format("  {}/rep-{}: running{}\n", s.groups[run.group].id, run.repeat,
                       job_list[j].alone ? " (alone: timing metrics)" : "");
    out.flush();
  };
  const auto on_end = [&](std::size_t j, const suite::JobEnd& end) {
    const PlannedRun& run = plan[to_run[j]];
    const std::string name = fmt::format("{}/rep-{}", s.groups[run.group].id, run.repeat);
    const bool completed = end.exit && WIFEXITED(end.exit->wait_status) &&
                           WEXITSTATUS(end.exit->wait_status) == 0 &&
                           fs::is_regular_file(run.results, ec);
    if (end.interrupted && !completed) {
      fs::remove(run.results, ec);
      remove_temporaries(run.results);
      out << fmt::format("  {}: interrupted (no results kept)\n", name);
      out.flush();
      return;
    }
    Json r = Json::object();
    r["group"] = s.groups[run.group].id;
    r["repeat"] = run.repeat;
    r["key"] = run.key.to_json();
    describe_end(end, run, timeout.value_or(0), r);
    r["wall_seconds"] = end.exit ? Json(end.exit->wall_seconds) : Json(nullptr);
    r["peak_rss_bytes"] = end.exit ? Json(end.exit->peak_rss_bytes) : Json(nullptr);
    r["user_seconds"] = end.exit ? Json(end.exit->user_seconds) : Json(nullptr);
    r["system_seconds"] = end.exit ? Json(end.exit->system_seconds) : Json(nullptr);
    r["jobs"] = jobs;
    r["alone"] = end.alone;
    r["config"] = relative_to(run.config, out_dir);
    r["results"] = fs::is_regular_file(run.results, ec) ? Json(relative_to(run.results, out_dir))
                                                        : Json(nullptr);
    r["log"] = relative_to(run.log, out_dir);
    write_output_file(run.record, r.dump(2) + "\n");
    ++finished;
    const std::string status = r["status"].get<std::string>();
    out << fmt::format("  {}: {}", name, status);
    if (end.exit) {
      out << fmt::format(" ({:.2f} s, peak {})", end.exit->wall_seconds,
                         mib(end.exit->peak_rss_bytes));
    }
    if (status != "ok") out << " - " << r["cause"].get<std::string>();
    out << "\n";
    out.flush();
  };
  suite::ScheduleOptions options;
  options.jobs = jobs;
  options.timeout_seconds = timeout;
  const suite::ScheduleResult result = suite::run_jobs(job_list, options, on_start, on_end);
  if (result.interrupted_by != 0) {
    out << fmt::format(
        "interrupted by {}: {} of {} runs finished this time ({} done before); no summary "
        "written. Run the same command again to resume: finished runs are skipped.\n",
        suite::signal_name(result.interrupted_by), finished, to_run.size(),
        plan.size() - to_run.size());
    out.flush();
    return 128 + result.interrupted_by;
  }

  // The summary, over every run with a record: those run now and those done before.
  std::vector<suite::SummaryRun> runs;
  int failed = 0;
  for (const PlannedRun& run : plan) {
    suite::SummaryRun sr;
    sr.group = s.groups[run.group].id;
    sr.repeat = run.repeat;
    sr.record = read_record(run.record);
    if (!sr.record.is_object()) {
      sr.record = Json{{"group", sr.group},
                       {"repeat", run.repeat},
                       {"status", "missing"},
                       {"cause", "no record of this run"}};
    }
    const std::string status = sr.record.value("status", "");
    if (!sr.record["results"].is_null() && fs::is_regular_file(run.results, ec) &&
        (status == "ok" || status == "failed")) {
      try {
        sr.results = load_run_results(run.results, sr.group);
      } catch (const Error& e) {
        sr.record["status"] = "failed";
        sr.record["cause"] = std::string("results file unreadable: ") + e.what();
      }
    }
    if (sr.record.value("status", "") != "ok") ++failed;
    runs.push_back(std::move(sr));
  }
  const Json summary = suite::summary_json(s, runs, jobs, timeout);
  std::vector<OutputFile> files = {
      {out_dir / "summary.json", summary.dump(2) + "\n"},
      {out_dir / "summary.md", suite::summary_markdown(summary)},
  };
  const std::string html = suite::summary_html(s, runs);
  if (!html.empty()) files.push_back({out_dir / "summary.html", html});
  write_output_files(files);
  for (const Json& g : summary["groups"]) {
    out << fmt::format("{}: {} of {} runs ok{}\n", g["id"].get<std::string>(), g["ok"].get<int>(),
                       g["runs"].get<int>(), g["baseline"].get<bool>() ? " (baseline)" : "");
  }
  out << fmt::format("wrote {}, summary.md{}\n", (out_dir / "summary.json").string(),
                     html.empty() ? "" : ", summary.html");
  if (failed > 0) {
    out << fmt::format("{} run{} failed: see the table in summary.md\n", failed,
                       failed == 1 ? "" : "s");
  }
  return failed > 0 ? kExitMetricFailed : kExitOk;
}

}  // namespace neurobench::cli
