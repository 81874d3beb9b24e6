// SPDX-License-Identifier: Apache-2.0
// The sessions of FSCIL results files (RunResults::fscil) as the reports and compare show
// them: one table column per value, the tables in Markdown and HTML. Private to the reporters
// (src/reporters).
#pragma once

#include <string>
#include <vector>

#include <neurobench/reporters/run_results.hpp>

namespace neurobench::detail {

/// The key of a session's accuracy on the new classes alone (FscilSessionEntry's
/// `new_classes_accuracy`).
inline constexpr const char* kFscilNewClassesKey = "new_classes_accuracy";

/// One column of a session table: a value of the session and its header.
struct FscilColumn {
  std::string key;     ///< A flattened key of the session's values, or kFscilNewClassesKey.
  std::string header;  ///< The column's header, with its unit.
};

/// The session tables' value columns, in order: accuracy on all classes seen
/// (`ClassificationAccuracy`), on the new classes alone, ActivationSparsity,
/// `SynapticOperations.Effective_MACs` and `.Effective_ACs`.
[[nodiscard]] const std::vector<FscilColumn>& fscil_session_columns();

/// A session's value of `key` (a flattened key of its values, or kFscilNewClassesKey);
/// State::Missing when it has none.
[[nodiscard]] FlatValue fscil_session_value(const FscilSessionEntry& session,
                                            const std::string& key);

/// A Markdown table of every session of each FSCIL run (a heading per run), with a line
/// naming the runs that are not FSCIL runs; empty when no run is one.
[[nodiscard]] std::string fscil_sessions_markdown(const std::vector<RunResults>& runs);

/// The HTML report's `<section id="fscil">`: a table of every session of each FSCIL run
/// (`<table class="fscil-sessions" data-run=...>`, a row per session with `data-session`, a
/// cell per value with `data-key` and `data-value`), then the chart of accuracy over sessions
/// (fscil_accuracy_chart()); empty when no run is an FSCIL run.
[[nodiscard]] std::string fscil_sessions_html(const std::vector<RunResults>& runs);

/// The line chart of accuracy over sessions (`<svg id="svg-fscil">`): per FSCIL run, a
/// polyline of the accuracy on all classes seen (`class="line all-seen"`, solid) and of the
/// accuracy on the new classes alone (`class="line new-classes"`, dashed), a point per session
/// with a finite value, in the run's colour. Empty when no run has such a value.
[[nodiscard]] std::string fscil_accuracy_chart(const std::vector<RunResults>& runs);

}  // namespace neurobench::detail
