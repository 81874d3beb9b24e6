// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/errors.hpp>

namespace neurobench {

/// Reduces a plugin name to its lookup key: lower case, underscores, dashes and spaces
/// removed, so `classification_accuracy` finds `ClassificationAccuracy`.
[[nodiscard]] std::string registry_key(std::string_view name);

/// A table of plugins of one family (static metrics, workload metrics, pre- or
/// post-processors), each made on demand by a factory.
///
/// Lookup ignores case and underscores. Each `create()` returns a fresh object, since
/// plugins hold per-run state.
template <class Base>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Base>()>;
  /// One registered plugin.
  struct Entry {
    std::string name;         ///< Class name, as shown by `neurobench list`.
    std::string description;  ///< One line.
    Factory make;             ///< Makes a new object.
  };

  /// `family` names the plugins in messages ("workload metric").
  explicit Registry(std::string family) : family_(std::move(family)) {}

  /// Adds a plugin. Throws UsageError if the name (as a lookup key) is taken or empty.
  void add(Entry entry) {
    const std::string key = registry_key(entry.name);
    if (key.empty()) throw UsageError(family_ + ": cannot register a plugin with an empty name");
    if (find(entry.name) != nullptr) {
      throw UsageError(family_ + " '" + entry.name + "' is already registered");
    }
    entries_.push_back(std::move(entry));
  }

  /// The entry registered under `name`, or nullptr.
  [[nodiscard]] const Entry* find(std::string_view name) const {
    const std::string key = registry_key(name);
    for (const auto& e : entries_) {
      if (registry_key(e.name) == key) return &e;
    }
    return nullptr;
  }

  /// True when `name` is registered.
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }

  /// A new object of the plugin called `name`. Throws UsageError listing the known names
  /// when there is none.
  [[nodiscard]] std::unique_ptr<Base> create(std::string_view name) const {
    const Entry* e = find(name);
    if (e == nullptr) {
      std::string known;
      for (const auto& entry : entries_) known += (known.empty() ? "" : ", ") + entry.name;
      throw UsageError("unknown " + family_ + " '" + std::string(name) + "' (known: " +
                       (known.empty() ? "none" : known) + ")");
    }
    return e->make();
  }

  /// Every entry, in registration order.
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

  /// The family name given at construction.
  [[nodiscard]] const std::string& family() const { return family_; }

 private:
  std::string family_;
  std::vector<Entry> entries_;
};

}  // namespace neurobench
