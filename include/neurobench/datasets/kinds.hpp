// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>

namespace neurobench {

/// A data set asked for by kind: `--dataset KIND:PATH` with `--subset` and
/// `--dataset-options`, or a config's `"dataset": {"kind": ..., "path": ..., OPTION: ...}`.
struct DatasetSpec {
  std::string kind;               ///< A registered kind (`speech-commands`); empty: none.
  std::filesystem::path path;     ///< The folder or file the kind reads.
  Json options = Json::object();  ///< The kind's options (`{"subset": "testing"}`).

  /// True when no data set is asked for: no kind, path or options.
  [[nodiscard]] bool empty() const { return kind.empty() && path.empty() && options.empty(); }
};

/// Parses `--dataset` as the command line writes it: `KIND:PATH`, split at the first `:` (the
/// path may hold more). Options are empty. Throws UsageError quoting `text` when there is no
/// `:`, no kind or no path.
[[nodiscard]] DatasetSpec parse_dataset_spec(std::string_view text);

/// How a data set is opened, beyond its kind's options.
struct DatasetOpenOptions {
  bool quiet = false;  ///< No progress bar on stderr while the data set is indexed or read.
  /// The largest array a kind reads from an `.npz` file (`wisdm`), as
  /// NpzReadOptions::max_array_bytes: a config's `max_array_bytes`, `--max-array-bytes`.
  std::uint64_t max_array_bytes = kDefaultMaxArrayBytes;
};

/// A kind of data set that benchmarks read by name: what it is, what its path names, the
/// options it takes, and how to open one.
struct DatasetKind : PluginDescription {
  /// Opens a data set from its path and its options (complete: checked, defaults filled in).
  using Factory = std::function<std::shared_ptr<Dataset>(
      const std::filesystem::path& path, const Json& options, const DatasetOpenOptions& open)>;

  std::string path_description;  ///< What the path names, one line, for `neurobench list`.
  /// Checks the options' values beyond their types (complete options); throws UsageError. May
  /// be empty.
  std::function<void(const Json& options)> check;
  Factory make;  ///< Opens a data set.
};

/// The table of data set kinds: `speech-commands` built in, more added with add().
/// Lookup ignores case, underscores and dashes (`SpeechCommands` finds `speech-commands`).
///
/// ```cpp
/// neurobench::DatasetSpec spec = neurobench::parse_dataset_spec("speech-commands:data");
/// spec.options["subset"] = "testing";
/// std::shared_ptr<neurobench::Dataset> test = neurobench::dataset_kinds().open(spec);
/// ```
class DatasetKinds {
 public:
  /// Adds a kind. Throws UsageError when its name is empty or taken, or it has no factory.
  void add(DatasetKind kind);
  /// The kind called `name`, or nullptr.
  [[nodiscard]] const DatasetKind* find(std::string_view name) const;
  /// Checks `spec` without opening anything and returns its options complete (defaults filled
  /// in). Throws UsageError for an unknown kind (listing the known ones), an empty path, an
  /// unknown option, an option of the wrong type or a value the kind refuses (naming it), or a
  /// required option missing.
  [[nodiscard]] Json check(const DatasetSpec& spec) const;
  /// Opens the data set `spec` names, after check(). Throws UsageError as check(), and what the
  /// kind throws: InputError naming the file at fault.
  [[nodiscard]] std::shared_ptr<Dataset> open(const DatasetSpec& spec,
                                              const DatasetOpenOptions& options = {}) const;
  /// Every kind, in the order added.
  [[nodiscard]] const std::vector<DatasetKind>& entries() const { return kinds_; }
  /// The names of the kinds, comma-separated.
  [[nodiscard]] std::string known_names() const;

 private:
  const DatasetKind& at(std::string_view name) const;
  std::vector<DatasetKind> kinds_;
};

/// The data set kinds, built-ins included.
[[nodiscard]] DatasetKinds& dataset_kinds();

}  // namespace neurobench
