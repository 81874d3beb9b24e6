// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/mswc.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// How the incremental sessions are drawn: NeuroBench's `IncrementalFewShot` arguments, with
/// the defaults of its `examples/mswc_fscil` (5 shots, 100 queries, pools of 100 and 100).
struct MswcSessionOptions {
  int64_t k_shot = 5;  ///< Support clips per new class (`k_shot`).
  /// Query clips per class (`query_shots`); -1: `k_shot`, as NeuroBench's default.
  int64_t query_shots = 100;
  /// Each evaluation class's 200 clips split into a support pool (its first `support_pool`
  /// clips in the list) and a query pool (the next `query_pool`): NeuroBench's
  /// `support_query_split`. Required: NeuroBench's draws without it index a class's first
  /// clip numbers instead of its clips (a slip), which we do not reproduce.
  int64_t support_pool = 100;
  int64_t query_pool = 100;  ///< See `support_pool`.
  /// The languages of the sessions, one session each, drawn in a random order
  /// (`inc_languages`; NeuroBench's default).
  std::vector<std::string> languages = {"fa", "eo", "pt", "eu", "pl", "cy", "nl", "ru", "es", "it"};
  int64_t ways = 10;              ///< New classes per session (NeuroBench's fixed `n_way`).
  int64_t clips_per_class = 200;  ///< Clips of a class in evaluation.csv (its fixed 200).

  /// The query clips per class: `query_shots`, or `k_shot` when that is -1.
  [[nodiscard]] int64_t queries() const { return query_shots == -1 ? k_shot : query_shots; }
  /// Throws UsageError naming the field: a count below 1 (query_shots may be -1), pools that
  /// do not fit in a class's clips, shots or queries more than their pool holds, no language,
  /// a language twice or not one folder name.
  void validate() const;
};

/// One incremental session as drawn: its language, its new classes and which clips make its
/// support set and the query clips it adds.
struct MswcSessionDraw {
  std::string language;          ///< The language whose evaluation.csv the clips come from.
  std::vector<int64_t> classes;  ///< The new classes (FSCIL keyword labels), in drawn order.
  /// Per new class (as `classes`), its `k_shot` support clips: the PATH field of
  /// `LANG/evaluation.csv`, in drawn order.
  std::vector<std::vector<std::string>> support;
  /// Per new class (as `classes`), its query clips, as `support`.
  std::vector<std::vector<std::string>> query;
};

/// Every session of one FSCIL run: what a draws file holds (docs/datasets.md, "MSWC session
/// draws").
struct MswcDraws {
  std::optional<uint64_t> seed;  ///< The seed draw_mswc_sessions() was given, if any.
  MswcSessionOptions options;    ///< k_shot, query_shots, the pools and the languages used.
  std::vector<MswcSessionDraw> sessions;  ///< In session order.
};

/// Draws the sessions from the release at `path` (as Mswc takes it) with our own seeded
/// generator, following NeuroBench's `IncrementalFewShot`: the languages in a random order;
/// per language `ways` of its classes sorted by label, drawn without replacement; per class
/// `queries()` clips of its query pool and `k_shot` of its support pool, each drawn without
/// replacement. The same seed, release and options give the same draws on every platform
/// (docs/datasets.md says how). A language's classes are its evaluation.csv read in blocks of
/// `clips_per_class` lines, as NeuroBench reads them.
///
/// Throws UsageError for invalid options; InputError naming the file as Mswc does, and when a
/// language's evaluation.csv is not whole blocks of one word each, has a word in two blocks, or
/// has fewer than `ways` classes.
[[nodiscard]] MswcDraws draw_mswc_sessions(const std::filesystem::path& path,
                                           const MswcSessionOptions& options, uint64_t seed);

/// The draws as a draws file's JSON (docs/datasets.md, "MSWC session draws").
[[nodiscard]] Json to_json(const MswcDraws& draws);
/// Draws from a draws file's JSON; `source` names it in messages. Throws InputError naming
/// `source` and the key at fault: a wrong format or version, a missing or mistyped key, options
/// that validate() refuses, a session whose classes, support or query lists do not match the
/// options' counts, or a clip given twice in a session.
[[nodiscard]] MswcDraws mswc_draws_from_json(const Json& json, const std::string& source);
/// Reads a draws file (JSON). Throws InputError naming the file when it is missing, not JSON,
/// or as mswc_draws_from_json().
[[nodiscard]] MswcDraws read_mswc_draws(const std::filesystem::path& file);
/// Writes a draws file whole or not at all. Throws InputError naming the file when it cannot
/// be written.
void write_mswc_draws(const MswcDraws& draws, const std::filesystem::path& file);

/// The incremental sessions of a run on the release at `path`, from their draws, as
/// NeuroBench's `IncrementalFewShot` yields them: session `i` (0-based; NeuroBench's session
/// `i + 1`, after the base session) gives a support set, a query set and the query classes.
///
/// ```cpp
/// auto draws = neurobench::datasets::read_mswc_draws("draws.json");
/// neurobench::datasets::MswcSessions sessions("data/MSWC", draws);
/// for (int64_t i = 0; i < sessions.size(); ++i) {
///   auto support = sessions.support(i);  // k_shot * ways clips, shot-major
///   auto query = sessions.query(i);      // every query clip of sessions 0..i
///   std::vector<int64_t> seen = sessions.query_classes(i);
/// }
/// ```
class MswcSessions {
 public:
  /// Checks `draws` against the release: every session's language has an evaluation.csv
  /// (read as Mswc reads it) whose clips are there; each drawn clip is listed in it once,
  /// belongs to its class and lies in its class's support or query pool. Throws InputError
  /// naming the list file and the clip at fault; UsageError for invalid options.
  MswcSessions(const std::filesystem::path& path, MswcDraws draws);

  /// The number of incremental sessions.
  [[nodiscard]] int64_t size() const;
  /// The draws.
  [[nodiscard]] const MswcDraws& draws() const { return draws_; }
  /// Session `i`'s support set: `k_shot * ways` clips, shot-major (clip `s * ways + c` is
  /// shot `s` of new class `c`), as NeuroBench's example concatenates the support's shots;
  /// data `(48000, 1)` float32, targets the classes. Throws UsageError for `i` out of range.
  [[nodiscard]] std::shared_ptr<Dataset> support(int64_t i) const;
  /// Session `i`'s query set: the query clips of sessions 0 to `i`, session by session, class
  /// by class (in each session's class order), each class's clips in drawn order; targets the
  /// classes. NeuroBench's `MSWC_query` of its cumulative query list. Throws UsageError for `i`
  /// out of range.
  [[nodiscard]] std::shared_ptr<Dataset> query(int64_t i) const;
  /// The new classes of sessions 0 to `i`, in order: NeuroBench's `query_classes`. Throws
  /// UsageError for `i` out of range.
  [[nodiscard]] std::vector<int64_t> query_classes(int64_t i) const;
  /// Session `i`'s new classes. Throws UsageError for `i` out of range.
  [[nodiscard]] const std::vector<int64_t>& new_classes(int64_t i) const;
  /// The files the sessions read: each session's evaluation.csv, then its support and query
  /// clips (as Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const;

 private:
  using Clip = std::pair<std::string, int64_t>;  // the clip's file and its class
  void check_index(int64_t i) const;

  std::filesystem::path folder_;
  MswcDraws draws_;
  std::vector<std::vector<Clip>> support_;  // per session, shot-major
  std::vector<std::vector<Clip>> query_;    // per session, the clips it adds
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
