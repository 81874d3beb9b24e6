// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>
#include <neurobench/registry.hpp>

NEUROBENCH_API_BEGIN

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

/// What a kind of data set is: its name (`speech-commands`), one line, what its path names and
/// the options it takes. A kind's class says it in a static `describe()`:
///
/// ```cpp
/// static neurobench::DatasetKind describe() {
///   return neurobench::DatasetKind("tiny", "a few samples for trying things out")
///       .with_path("any path (not read)")
///       .with_option("samples", "integer", 4, "how many samples");
/// }
/// ```
struct DatasetKind : PluginDescription {
  std::string path_description;  ///< What the path names, one line, for `neurobench list`.

  DatasetKind() = default;
  /// A kind called `name` (looked up ignoring case, dashes and underscores), with one line.
  DatasetKind(std::string name, std::string one_line);

  /// Says what the path names (a folder, a file).
  DatasetKind& with_path(std::string path_description);
  /// Declares an option (see OptionDescription); `default_value` null makes it required.
  DatasetKind& with_option(std::string name, std::string type, Json default_value,
                           std::string description);
};

/// Opens data sets of one kind. The registry makes one from the kind's options (complete:
/// checked against what describe() declares, defaults filled in) through a constructor
/// `T(const neurobench::Json& options)` (or `T()` for a kind without options). The constructor
/// checks the options' values beyond their types and throws UsageError naming the option; a
/// spec is checked by making one (DatasetKinds::check), before anything is opened.
class DatasetOpener {
 public:
  virtual ~DatasetOpener() = default;
  /// Opens the data set at `path`. Throws InputError naming the file at fault.
  [[nodiscard]] virtual std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                                      const DatasetOpenOptions& open) const = 0;
};

/// The table of data set kinds: a Registry of DatasetOpener classes described by DatasetKind,
/// with the built-ins (`speech-commands`, `dvs-gesture`, `primate-reaching`, `wisdm`) and the
/// kinds registered with NEUROBENCH_REGISTER_DATASET_KIND. Lookup ignores case, underscores
/// and dashes (`SpeechCommands` finds `speech-commands`).
///
/// ```cpp
/// neurobench::DatasetSpec spec = neurobench::parse_dataset_spec("speech-commands:data");
/// spec.options["subset"] = "testing";
/// std::shared_ptr<neurobench::Dataset> test = neurobench::dataset_kinds().open(spec);
/// ```
class DatasetKinds : public Registry<DatasetOpener, DatasetKind> {
 public:
  DatasetKinds() : Registry("data set kind") {}

  /// Checks `spec` without opening anything and returns its options complete (defaults filled
  /// in). Throws UsageError for an unknown kind (listing the known ones), an empty path, an
  /// unknown option, an option of the wrong type or a value the kind refuses (naming it), or a
  /// required option missing.
  [[nodiscard]] Json check(const DatasetSpec& spec) const;
  /// Opens the data set `spec` names, after check(). Throws UsageError as check(), and what the
  /// kind throws: InputError naming the file at fault.
  [[nodiscard]] std::shared_ptr<Dataset> open(const DatasetSpec& spec,
                                              const DatasetOpenOptions& options = {}) const;

 private:
  const Entry& at(std::string_view name) const;
  std::unique_ptr<DatasetOpener> opener(const Entry& kind, const DatasetSpec& spec,
                                        Json& complete) const;
};

/// The data set kinds, built-ins included.
[[nodiscard]] DatasetKinds& dataset_kinds();

namespace detail {

/// Adds `T`, described by `description`, to `kinds`.
template <class T>
void add_dataset_kind(DatasetKinds& kinds, DatasetKind description) {
  static_assert(std::is_base_of_v<DatasetOpener, T>,
                "NEUROBENCH_REGISTER_DATASET_KIND needs a class derived from DatasetOpener");
  check_takes_options<T>(description);
  kinds.add(std::move(description), &make_plugin<T, DatasetOpener>);
}

/// Registers `T` (see NEUROBENCH_REGISTER_DATASET_KIND); never throws: a failed registration
/// is kept and reported by dataset_kinds() on first use.
template <class T>
bool register_dataset_kind(const char* class_text) noexcept {
  try {
    DatasetKind d = T::describe();
    if (d.name.empty()) d.name = registered_class_name(class_text);
    d.source = registration_source();
    defer_registration([d = std::move(d)] { add_dataset_kind<T>(dataset_kinds(), d); });
  } catch (...) {
    record_registration_error(std::string("cannot register data set kind ") + class_text);
  }
  return true;
}

}  // namespace detail

/// Registers a data set kind: a class derived from DatasetOpener with a static
/// `neurobench::DatasetKind describe()` (its name, or the class name when that is empty; one
/// line; what its path names; its options). The kind is then found by name by `--dataset
/// KIND:PATH`, configs' `"dataset"`, dataset_kinds() and `neurobench list` (`--plugin` for a
/// shared library). Use once in a `.cpp` file:
///
/// ```cpp
/// NEUROBENCH_REGISTER_DATASET_KIND(lab::TinyKind);
/// ```
#define NEUROBENCH_REGISTER_DATASET_KIND(Class)                                             \
  [[maybe_unused]] static const bool NEUROBENCH_PP_CAT(neurobench_registered_dataset_kind_, \
                                                       __COUNTER__) =                       \
      ::neurobench::detail::register_dataset_kind<Class>(#Class)

}  // namespace neurobench
NEUROBENCH_API_END
