// SPDX-License-Identifier: Apache-2.0
// `neurobench suite`: many `neurobench run`s, each in its own process, resumable, with a
// summary of their repeats (docs/suites.md).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugins.hpp>

#include "cli/commands.hpp"
#include "suite/plan.hpp"
#include "suite/process.hpp"
#include "suite/run_record.hpp"
#include "suite/scheduler.hpp"
#include "suite/suite_file.hpp"
#include "suite/summary_files.hpp"
#include "util/text.hpp"

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

std::string mib(std::int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

std::string run_name(const suite::SuiteFile& s, const suite::PlannedRun& run) {
  return fmt::format("{}/rep-{}", s.groups[run.group].id, run.repeat);
}

// What the plan is and which runs it skips.
void print_plan(const suite::SuiteFile& s, const suite::Plan& plan, int jobs,
                std::optional<double> timeout, std::ostream& out) {
  out << fmt::format(
      "suite {}: {} group{} x {} repeat{} = {} runs ({} done), {} job{} at once, "
      "timeout {}; results in {}\n",
      s.name, s.groups.size(), s.groups.size() == 1 ? "" : "s", s.repeats,
      s.repeats == 1 ? "" : "s", plan.runs.size(), plan.runs.size() - plan.to_run.size(), jobs,
      jobs == 1 ? "" : "s", timeout ? fmt::format("{:g} s", *timeout) : std::string("none"),
      plan.folder.string());
  for (const suite::PlannedRun& run : plan.runs) {
    if (run.done) out << fmt::format("  {}: skipped (done)\n", run_name(s, run));
  }
  out.flush();
}

// A run's end, as its record says it.
void print_end(const std::string& name, const Json& record, const suite::JobEnd& end,
               std::ostream& out) {
  const std::string status = record["status"].get<std::string>();
  out << fmt::format("  {}: {}", name, status);
  if (end.exit) {
    out << fmt::format(" ({:.2f} s, peak {})", end.exit->wall_seconds,
                       mib(end.exit->peak_rss_bytes));
  }
  if (status != "ok") out << " - " << record["cause"].get<std::string>();
  out << "\n";
  out.flush();
}

void print_summary(const suite::SummaryFiles& summary, const fs::path& folder, std::ostream& out) {
  for (const Json& g : summary.summary["groups"]) {
    out << fmt::format("{}: {} of {} runs ok{}\n", g["id"].get<std::string>(), g["ok"].get<int>(),
                       g["runs"].get<int>(), g["baseline"].get<bool>() ? " (baseline)" : "");
  }
  out << fmt::format("wrote {}, summary.md{}\n", (folder / "summary.json").string(),
                     summary.html ? ", summary.html" : "");
  if (summary.failed > 0) {
    out << fmt::format("{} run{} failed: see the table in summary.md\n", summary.failed,
                       summary.failed == 1 ? "" : "s");
  }
}

// The suite's records and summaries are JSON, which holds UTF-8 only: a suite file or results
// folder whose absolute path is not (a folder of that name, or the working folder) is refused
// before anything is read, made or run.
void check_utf8_path(const fs::path& path, const char* role) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const std::string text = (ec ? path : absolute).string();
  if (!detail::is_utf8(text)) {
    throw UsageError(fmt::format(
        "{}: the path {} is not valid UTF-8, which the suite's records (JSON) cannot hold: "
        "rename it, or give a symbolic link with a UTF-8 name",
        role, detail::path_text(ec ? path : absolute)));
  }
}

// The files the suite writes itself (the summaries, each group's config; each run's results
// are checked by its own `neurobench run`) against what it reads: the suite file, the groups'
// models and data, the plugin libraries. Before the results folder is made.
void check_suite_outputs(const suite::SuiteFile& s, const fs::path& folder) {
  std::vector<NamedFile> outputs;
  for (const char* name : {"summary.json", "summary.md", "summary.html"}) {
    outputs.push_back({folder / name, "the suite's summary"});
  }
  std::vector<NamedFile> inputs = {{s.file, "the suite file"}};
  for (const auto& g : s.groups) {
    outputs.push_back({folder / "runs" / g.id / "config.json", "group " + g.id + "'s config"});
    inputs.push_back({g.config.model, "group " + g.id + "'s model"});
    if (!g.config.data.empty()) inputs.push_back({g.config.data, "group " + g.id + "'s data"});
    if (!g.config.dataset.empty()) {
      inputs.push_back({g.config.dataset.path, "group " + g.id + "'s data set"});
    }
  }
  for (const auto& plugin : loaded_plugins()) inputs.push_back({plugin, "a plugin library"});
  check_distinct_files(outputs, inputs);
}

}  // namespace

int suite_command(const SuiteArgs& args, const CLI::App& command, std::ostream& out) {
  check_utf8_path(args.file, "the suite file");
  // Without --out, the results go to SUITE-results in the working folder (results_folder()).
  check_utf8_path(args.out.empty() ? fs::path(fs::path(args.file).stem().string() + "-results")
                                   : fs::path(args.out),
                  "--out");
  const suite::SuiteFile s = suite::read_suite_file(args.file);
  const auto given = [&](const char* name) { return command.get_option(name)->count() > 0; };
  const int jobs = given("--jobs") ? args.jobs : s.jobs;
  std::optional<double> timeout = s.timeout_seconds;
  if (given("--timeout")) {
    timeout = args.timeout_seconds > 0 ? std::optional<double>(args.timeout_seconds) : std::nullopt;
  }
  check_suite_outputs(s, suite::results_folder(s, args.out));
  const suite::ResultsFolder folder(suite::results_folder(s, args.out));
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's path (/proc/self/exe): " + ec.message());

  const suite::Plan plan = suite::plan_suite(s, folder.path(), args.rerun);
  print_plan(s, plan, jobs, timeout, out);
  std::vector<suite::Job> job_list;
  for (const std::size_t i : plan.to_run) {
    const suite::PlannedRun& run = plan.runs[i];
    job_list.push_back(suite::Job{suite::run_argv(exe, run), run.log, s.groups[run.group].timed});
  }
  std::size_t finished = 0;
  suite::RunFolders run_folders(s, plan);
  const auto on_start = [&](std::size_t j) {
    const suite::PlannedRun& run = plan.runs[plan.to_run[j]];
    run_folders.prepare(run);
    out << fmt::format("  {}: running{}\n", run_name(s, run),
                       job_list[j].alone ? " (alone: timing metrics)" : "");
    out.flush();
  };
  const auto on_end = [&](std::size_t j, const suite::JobEnd& end) {
    const suite::PlannedRun& run = plan.runs[plan.to_run[j]];
    if (end.interrupted && !suite::completed(run, end)) {
      suite::remove_with_temporaries(run.results);
      out << fmt::format("  {}: interrupted (no results kept)\n", run_name(s, run));
      out.flush();
      return;
    }
    const Json record = suite::write_run_record(s, plan, run, end, timeout.value_or(0), jobs);
    ++finished;
    print_end(run_name(s, run), record, end, out);
  };
  suite::ScheduleOptions options;
  options.jobs = jobs;
  options.timeout_seconds = timeout;
  const suite::ScheduleResult result = suite::run_jobs(job_list, options, on_start, on_end);
  if (result.interrupted_by != 0) {
    out << fmt::format(
        "interrupted by {}: {} of {} runs finished this time ({} done before); no summary "
        "written. Run the same command again to resume: finished runs are skipped.\n",
        suite::signal_name(result.interrupted_by), finished, plan.to_run.size(),
        plan.runs.size() - plan.to_run.size());
    out.flush();
    return 128 + result.interrupted_by;
  }
  const suite::SummaryFiles summary = suite::write_summary(s, plan, jobs, timeout);
  print_summary(summary, folder.path(), out);
  return summary.failed > 0 ? kExitMetricFailed : kExitOk;
}

}  // namespace neurobench::cli
