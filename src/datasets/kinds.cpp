// SPDX-License-Identifier: Apache-2.0
// The data set kinds that `--dataset KIND:PATH` and configs name, and the built-in ones.
#include <neurobench/datasets/kinds.hpp>

#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "datasets/builtin_kinds.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

constexpr const char* kFamily = "data set";

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

void DatasetKinds::add(DatasetKind kind) {
  if (registry_key(kind.name).empty()) {
    throw UsageError("cannot register a data set kind with an empty name");
  }
  if (find(kind.name) != nullptr) {
    throw UsageError(fmt::format("data set kind '{}' is already registered", kind.name));
  }
  if (!kind.make) throw UsageError(fmt::format("data set kind '{}' has no factory", kind.name));
  kinds_.push_back(std::move(kind));
}

const DatasetKind* DatasetKinds::find(std::string_view name) const {
  const std::string key = registry_key(name);
  for (const auto& kind : kinds_) {
    if (registry_key(kind.name) == key) return &kind;
  }
  return nullptr;
}

const DatasetKind& DatasetKinds::at(std::string_view name) const {
  const DatasetKind* kind = find(name);
  if (kind == nullptr) {
    throw UsageError(fmt::format("unknown data set kind '{}' (known: {})",
                                 detail::printable(name, 60), known_names()));
  }
  return *kind;
}

Json DatasetKinds::check(const DatasetSpec& spec) const {
  const DatasetKind& kind = at(spec.kind);
  if (spec.path.empty()) {
    throw UsageError(
        fmt::format("data set '{}' has no path ({})", kind.name, kind.path_description));
  }
  Json options = detail::complete_options(kind, spec.options, kFamily);
  if (kind.check) {
    try {
      kind.check(options);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{} '{}': {}", kFamily, kind.name, e.what()));
    }
  }
  return options;
}

std::shared_ptr<Dataset> DatasetKinds::open(const DatasetSpec& spec,
                                            const DatasetOpenOptions& options) const {
  const Json complete = check(spec);
  return at(spec.kind).make(spec.path, complete, options);
}

std::string DatasetKinds::known_names() const {
  std::string known;
  for (const auto& kind : kinds_) known += (known.empty() ? "" : ", ") + kind.name;
  return known.empty() ? "none" : known;
}

DatasetKinds& dataset_kinds() {
  static DatasetKinds kinds = [] {
    DatasetKinds k;
    k.add(detail::speech_commands_kind());
    k.add(detail::dvs_gesture_kind());
    k.add(detail::primate_reaching_kind());
    k.add(detail::wisdm_kind());
    return k;
  }();
  return kinds;
}

}  // namespace neurobench
