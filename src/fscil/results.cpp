// SPDX-License-Identifier: Apache-2.0
// The results file of an FSCIL run: the means as a run's metrics, every session in `_fscil`.
#include <neurobench/fscil.hpp>

#include <algorithm>
#include <string>
#include <utility>

#include <neurobench/io/output_file.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/reporters/results.hpp>

#include "util/non_finite.hpp"

namespace neurobench {

namespace {

constexpr const char* kFscilNewClassesKey = "FscilNewClassesAccuracy";

Json fscil_session_json(const FscilSessionResult& s) {
  Json values = s.all.values;
  detail::encode_non_finite(values);
  Json out = {{"session", s.session}, {"name", s.name},           {"new_classes", s.new_classes},
              {"classes", s.classes}, {"samples", s.all.samples}, {"values", values}};
  if (s.new_classes_only) {
    Json accuracy = s.new_classes_only->values.value("ClassificationAccuracy", Json());
    detail::encode_non_finite(accuracy);
    out["new_classes_accuracy"] = accuracy;
    out["query_samples"] = s.new_classes_only->samples;
  } else {
    out["new_classes_accuracy"] = nullptr;
    out["query_samples"] = 0;
  }
  Json failures = Json::object();
  for (const auto& f : s.all.failures) failures[f.metric] = f.message;
  if (s.new_classes_only) {
    for (const auto& f : s.new_classes_only->failures)
      failures["new classes: " + f.metric] = f.message;
  }
  out["failures"] = failures;
  return out;
}

}  // namespace

Json fscil_results_document(const FscilResults& results) {
  Results summary;
  summary.values = results.means();
  if (const auto mean = results.mean_new_classes_accuracy()) {
    summary.values[kFscilNewClassesKey] = *mean;
  }
  if (!results.sessions.empty()) {
    const Results& first = results.sessions.front().all;
    summary.metrics = first.metrics;
    summary.environment = first.environment;
  }
  if (summary.values.contains(kFscilNewClassesKey)) {
    MetricDescription d(
        "FSCIL: mean over the incremental sessions of the accuracy on every incremental class's "
        "query samples so far");
    d.kind = "workload";
    d.with_unit("fraction").higher_is_better();
    summary.metrics[kFscilNewClassesKey] = d.to_json();
  }
  summary.run = results.run;
  for (const auto& s : results.sessions) {
    summary.samples += s.all.samples;
    summary.batches += s.all.batches;
    for (const auto* r : {&s.all, s.new_classes_only ? &*s.new_classes_only : nullptr}) {
      if (r == nullptr) continue;
      for (const auto& f : r->failures) {
        summary.failures.push_back(
            {f.metric, "session " + std::to_string(s.session) + ": " + f.message});
      }
      for (const auto& w : r->warnings) {
        if (std::find(summary.warnings.begin(), summary.warnings.end(), w) ==
            summary.warnings.end()) {
          summary.warnings.push_back(w);
        }
      }
    }
  }
  const Json doc = results_document(summary);

  Json fscil = {{"features", results.options.features},
                {"readout", results.options.readout},
                {"base_classes", results.options.base_classes},
                {"base_prototypes", results.base_prototypes}};
  Json sessions = Json::array();
  for (const auto& s : results.sessions) sessions.push_back(fscil_session_json(s));
  fscil["sessions"] = sessions;
  // `_fscil` after the values and `_metrics`, before `_run`: the file's order.
  Json out = Json::object();
  for (const auto& [key, value] : doc.items()) {
    if (key == "_run") out["_fscil"] = fscil;
    out[key] = value;
  }
  if (!out.contains("_fscil")) out["_fscil"] = fscil;
  return out;
}

void save_fscil_results(const FscilResults& results, const std::filesystem::path& path) {
  write_output_file(
      path,
      fscil_results_document(results).dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace neurobench
