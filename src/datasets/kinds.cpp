// SPDX-License-Identifier: Apache-2.0
// The data set kinds that `--dataset KIND:PATH` and configs name, and the built-in ones.
#include <neurobench/datasets/kinds.hpp>

#include <memory>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "datasets/builtin_kinds.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

constexpr const char* kDatasetFamily = "data set";

}  // namespace

DatasetSpec parse_dataset_spec(std::string_view text) {
  const std::size_t colon = text.find(':');
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format(
        "data set '{}': {} (write KIND:PATH, such as speech-commands:data/speech_commands_v0.02; "
        "kinds: {})",
        detail::printable(text, 100), why, dataset_kinds().known_names()));
  };
  if (colon == std::string_view::npos) throw bad("no ':' between the kind and the path");
  if (colon == 0) throw bad("no kind before ':'");
  if (colon + 1 == text.size()) throw bad("no path after ':'");
  DatasetSpec spec;
  spec.kind = std::string(text.substr(0, colon));
  spec.path = std::string(text.substr(colon + 1));
  return spec;
}

DatasetKind::DatasetKind(std::string kind_name, std::string one_line) {
  name = std::move(kind_name);
  description = std::move(one_line);
}

DatasetKind& DatasetKind::with_path(std::string what) {
  path_description = std::move(what);
  return *this;
}

DatasetKind& DatasetKind::with_option(std::string option_name, std::string type, Json default_value,
                                      std::string option_description) {
  options.push_back({std::move(option_name), std::move(type), std::move(default_value),
                     std::move(option_description)});
  return *this;
}

const DatasetKinds::Entry& DatasetKinds::at(std::string_view name) const {
  const Entry* kind = find(name);
  if (kind == nullptr) {
    throw UsageError(fmt::format("unknown data set kind '{}' (known: {})",
                                 detail::printable(name, 60), known_names()));
  }
  return *kind;
}

// The kind's opener made from the spec's options, which checks their values; `complete` gets
// the options with the defaults filled in.
std::unique_ptr<DatasetOpener> DatasetKinds::opener(const Entry& kind, const DatasetSpec& spec,
                                                    Json& complete) const {
  if (spec.path.empty()) {
    throw UsageError(
        fmt::format("data set '{}' has no path ({})", kind.name, kind.path_description));
  }
  complete = detail::complete_options(kind, spec.options, kDatasetFamily);
  try {
    return kind.make(complete);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} '{}': {}", kDatasetFamily, kind.name, e.what()));
  }
}

Json DatasetKinds::check(const DatasetSpec& spec) const {
  Json complete;
  (void)opener(at(spec.kind), spec, complete);
  return complete;
}

std::shared_ptr<Dataset> DatasetKinds::open(const DatasetSpec& spec,
                                            const DatasetOpenOptions& options) const {
  Json complete;
  return opener(at(spec.kind), spec, complete)->open(spec.path, options);
}

DatasetKinds& dataset_kinds() {
  // The built-ins, in the order `neurobench list` shows them; kinds registered with
  // NEUROBENCH_REGISTER_DATASET_KIND follow.
  static DatasetKinds kinds = [] {
    DatasetKinds k;
    detail::add_speech_commands_kind(k);
    detail::add_dvs_gesture_kind(k);
    detail::add_primate_reaching_kind(k);
    detail::add_wisdm_kind(k);
    detail::add_thor_eeg_mi_kind(k);
    detail::add_mswc_kind(k);
    detail::add_gen4_detection_kind(k);
    return k;
  }();
  detail::check_registration_errors();
  return kinds;
}

}  // namespace neurobench
