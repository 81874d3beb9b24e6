// SPDX-License-Identifier: Apache-2.0
#include "suite/plan.hpp"

#include <system_error>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/run_results.hpp>

#include "suite/run_record.hpp"

namespace neurobench::suite {

namespace fs = std::filesystem;

namespace {

void create_folder(const fs::path& folder, const fs::path& out) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (!ec) return;
  if (folder == out) {
    throw InputError(fmt::format("--out {}: cannot create it: {}", out.string(), ec.message()));
  }
  throw InputError(
      fmt::format("--out {}: cannot create {}: {}", out.string(), folder.string(), ec.message()));
}

// `folder`, created first: the lock is taken on a folder that is there.
fs::path created(fs::path folder) {
  create_folder(folder, folder);
  return folder;
}

bool is_done(const PlannedRun& run) {
  std::error_code ec;
  if (!fs::is_regular_file(run.results, ec)) return false;
  const Json record = read_run_record(run.record);
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

}  // namespace

fs::path results_folder(const SuiteFile& suite, const std::string& out) {
  return out.empty() ? fs::path(suite.file.stem().string() + "-results") : fs::path(out);
}

ResultsFolder::ResultsFolder(fs::path folder) : path_(created(std::move(folder))), lock_(path_) {
  create_folder(path_ / "runs", path_);
}

Plan plan_suite(const SuiteFile& suite, const fs::path& folder, bool rerun) {
  Plan plan;
  plan.folder = folder;
  InputHasher hasher;
  for (std::size_t gi = 0; gi < suite.groups.size(); ++gi) {
    const SuiteGroup& g = suite.groups[gi];
    const fs::path dir = folder / "runs" / g.id;
    for (int k = 0; k < suite.repeats; ++k) {
      PlannedRun run;
      run.group = gi;
      run.repeat = k;
      run.key = run_key(g.config, k, hasher);
      run.config = dir / "config.json";
      run.results = dir / fmt::format("rep-{}.json", k);
      run.log = dir / fmt::format("rep-{}.log", k);
      run.record = dir / fmt::format("rep-{}.run.json", k);
      run.done = !rerun && is_done(run);
      if (!run.done) plan.to_run.push_back(plan.runs.size());
      plan.runs.push_back(std::move(run));
    }
  }
  return plan;
}

std::vector<std::string> run_argv(const fs::path& exe, const PlannedRun& run) {
  return {exe.string(),         "run",     run.config.string(), "--json",
          run.results.string(), "--quiet", "--distributed",     "off"};
}

RunFolders::RunFolders(const SuiteFile& suite, const Plan& plan)
    : suite_(suite), plan_(plan), written_(suite.groups.size(), false) {}

void RunFolders::prepare(const PlannedRun& run) {
  if (!written_.at(run.group)) {
    create_folder(run.config.parent_path(), plan_.folder);
    suite_.groups[run.group].config.write(run.config);
    written_[run.group] = true;
  }
  remove_with_temporaries(run.results);
  remove_with_temporaries(run.record);
}

void remove_with_temporaries(const fs::path& file) {
  std::error_code ec;
  fs::remove(file, ec);
  const std::string prefix = "." + file.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(file.parent_path(), ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) fs::remove(entry.path(), ec);
  }
}

}  // namespace neurobench::suite
