// SPDX-License-Identifier: Apache-2.0
#include "reporters/run_context.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "reporters/text.hpp"

namespace neurobench::detail {

std::optional<Correctness> correctness_metric(const std::vector<FlatRun>& runs) {
  static const std::array<std::pair<const char*, const char*>, 4> kCandidates = {{
      {"ClassificationAccuracy", "Accuracy"},
      {"SMAPE", "sMAPE (%)"},
      {"R2", "R\xC2\xB2"},  // R²
      {"MSE", "MSE"},
  }};
  for (const auto& [key, header] : kCandidates) {
    for (const auto& r : runs) {
      if (r.get(key).state != FlatValue::State::Missing) return Correctness{key, header};
    }
  }
  return std::nullopt;
}

TimingBasis timing_basis(const RunResults& run, const FlatRun& flat) {
  TimingBasis t;
  for (const char* m : {"Latency", "InferenceTime", "Throughput"}) {
    if (!t.runs) t.runs = flat.number(std::string(m) + ".runs");
    if (!t.warmup) t.warmup = flat.number(std::string(m) + ".warmup_runs");
  }
  if (run.run.is_object() && run.run.contains("timing") && run.run["timing"].is_object()) {
    const auto& timing = run.run["timing"];
    if (!t.runs && timing.contains("runs") && timing["runs"].is_number() &&
        timing["runs"].get<double>() > 0) {
      t.runs = timing["runs"].get<double>();
    }
    if (!t.warmup && timing.contains("warmup") && timing["warmup"].is_number()) {
      t.warmup = timing["warmup"].get<double>();
    }
  }
  return t;
}

std::string env_field(const RunResults& run, const char* key) {
  if (!run.environment.is_object() || !run.environment.contains(key)) return "";
  const auto& v = run.environment[key];
  if (v.is_null()) return "";
  return json_text(v);
}

std::string run_field(const RunResults& run, const char* key) {
  if (!run.run.is_object() || !run.run.contains(key)) return "";
  const auto& v = run.run[key];
  if (v.is_null()) return "";
  return json_text(v);
}

std::string phases_text(const Json& phases) {
  if (!phases.is_object()) return "";
  std::string out;
  for (const auto& [key, v] : phases.items()) {
    if (!v.is_number()) continue;
    std::string name = key;
    if (name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0) name.resize(name.size() - 2);
    std::replace(name.begin(), name.end(), '_', ' ');
    out += fmt::format("{}{} {:.3g} s", out.empty() ? "" : ", ", name, v.get<double>());
  }
  return out;
}

std::string commit_text(const RunResults& run) {
  std::string commit = env_field(run, "git_commit");
  if (!commit.empty() && run.environment.contains("git_dirty") &&
      run.environment["git_dirty"].is_boolean() && run.environment["git_dirty"].get<bool>()) {
    commit += " (dirty)";
  }
  return commit;
}

std::string device_text(const RunResults& run) {
  const std::string device = env_field(run, "device");
  if (device.empty() || !run.environment.contains("gpu") || !run.environment["gpu"].is_object()) {
    return device;
  }
  const Json& gpu = run.environment["gpu"];
  if (!gpu.contains("name") || !gpu["name"].is_string() || gpu["name"].get<std::string>().empty()) {
    return device;
  }
  return gpu["name"].get<std::string>() + " (" + device + ")";
}

}  // namespace neurobench::detail
