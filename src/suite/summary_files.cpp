// SPDX-License-Identifier: Apache-2.0
#include "suite/summary_files.hpp"

#include <string>
#include <system_error>
#include <utility>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "suite/run_record.hpp"

namespace neurobench::suite {

namespace fs = std::filesystem;

std::vector<SummaryRun> summary_runs(const SuiteFile& suite, const Plan& plan) {
  std::vector<SummaryRun> runs;
  std::error_code ec;
  for (const PlannedRun& run : plan.runs) {
    SummaryRun sr;
    sr.group = suite.groups.at(run.group).id;
    sr.repeat = run.repeat;
    sr.record = read_run_record(run.record);
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
    runs.push_back(std::move(sr));
  }
  return runs;
}

SummaryFiles write_summary(const SuiteFile& suite, const Plan& plan, int jobs,
                           std::optional<double> timeout_seconds) {
  const std::vector<SummaryRun> runs = summary_runs(suite, plan);
  SummaryFiles out;
  for (const SummaryRun& run : runs) {
    if (run.record.value("status", "") != "ok") ++out.failed;
  }
  out.summary = summary_json(suite, runs, jobs, timeout_seconds);
  std::vector<OutputFile> files = {
      {plan.folder / "summary.json", out.summary.dump(2) + "\n"},
      {plan.folder / "summary.md", summary_markdown(out.summary)},
  };
  const std::string html = summary_html(suite, runs);
  out.html = !html.empty();
  if (out.html) files.push_back({plan.folder / "summary.html", html});
  write_output_files(files);
  return out;
}

}  // namespace neurobench::suite
