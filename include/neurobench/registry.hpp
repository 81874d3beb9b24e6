// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <neurobench/errors.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A plugin (metric, pre- or post-processor) asked for by name, with the options it should run
/// with (an object; see PluginDescription::options). Configs write it as `"Name"` or
/// `{"name": "Name", "options": {...}}`, the command line as `Name` or `Name:key=value,...`
/// (parse_plugin_spec() in <neurobench/config.hpp>). A name converts to a spec without options:
/// `std::vector<PluginSpec> post = {"ChooseMaxCount"};`.
struct PluginSpec {
  std::string name;               ///< Registered name (lookup ignores case and underscores).
  Json options = Json::object();  ///< Options; empty for none.

  PluginSpec() = default;
  /// A plugin by name, with `options` (an object).
  // NOLINTNEXTLINE(google-explicit-constructor)
  PluginSpec(std::string name, Json options = Json::object())
      : name(std::move(name)), options(std::move(options)) {}
  /// A plugin by name, without options.
  PluginSpec(const char* name) : name(name) {}  // NOLINT(google-explicit-constructor)
};

/// A metric asked for by name, with the options it should run with (an object; see
/// MetricDescription::options in <neurobench/metrics/description.hpp>): a PluginSpec.
using MetricSpec = PluginSpec;

/// A spec as configs write it: `"Name"` without options, `{"name": "Name", "options": {...}}`
/// with (nlohmann::json's conversion, so `Json j = spec;` works).
inline void to_json(Json& j, const PluginSpec& spec) {
  if (spec.options.is_object() && spec.options.empty()) {
    j = spec.name;
  } else {
    j = Json{{"name", spec.name}, {"options", spec.options}};
  }
}

/// Reduces a plugin name to its lookup key: lower case, underscores, dashes and spaces
/// removed, so `classification_accuracy` finds `ClassificationAccuracy`.
[[nodiscard]] std::string registry_key(std::string_view name);

namespace detail {
/// Checks `options` against what `plugin` accepts and fills in the defaults, in the order the
/// plugin declares its options. Throws UsageError naming the plugin and the option when an
/// option is unknown, of the wrong type, or required and missing, or when `options` is not an
/// object (null counts as none given).
[[nodiscard]] Json complete_options(const PluginDescription& plugin, const Json& options,
                                    const std::string& family);
/// The source recorded for registrations made now: "program", or the plugin library being
/// loaded (see load_plugin).
[[nodiscard]] std::string registration_source();
/// `typeid(T).name()` demangled, without namespaces: `neurobench::metrics::MSE` gives `MSE`.
[[nodiscard]] std::string short_type_name(const char* mangled);
/// The class name as written in a registration line, without namespaces or spaces:
/// `ns::inner::Foo` gives `Foo`.
[[nodiscard]] std::string registered_class_name(const char* text);

/// Records a failed static registration (reported later).
void record_registration_error(std::string message) noexcept;
/// Throws the first recorded registration error, if any.
void check_registration_errors();
/// Defers a registration until the registries are first used.
void defer_registration(std::function<void()> add) noexcept;

/// A new `T` made from its options: through `T(const Json&)` when it has one, else `T()`.
template <class T, class Base>
std::unique_ptr<Base> make_plugin(const Json& options) {
  if constexpr (std::is_constructible_v<T, const Json&>) {
    return std::make_unique<T>(options);
  } else {
    static_assert(std::is_default_constructible_v<T>,
                  "a registered class needs a constructor T() or T(const neurobench::Json&)");
    return std::make_unique<T>();
  }
}

/// Throws UsageError when `description` declares options that `T` cannot take.
template <class T>
void check_takes_options(const PluginDescription& description) {
  if (!description.options.empty() && !std::is_constructible_v<T, const Json&>) {
    throw UsageError(description.name +
                     " declares options but has no constructor taking const neurobench::Json&");
  }
}

}  // namespace detail

#define NEUROBENCH_PP_CAT_(a, b) a##b
#define NEUROBENCH_PP_CAT(a, b) NEUROBENCH_PP_CAT_(a, b)
#define NEUROBENCH_PP_STR_(x) #x
#define NEUROBENCH_PP_STR(x) NEUROBENCH_PP_STR_(x)
#define NEUROBENCH_PP_FIRST(first, ...) first
#define NEUROBENCH_PP_REST(first, ...) __VA_ARGS__


/// A table of plugins of one family (static, workload or timing metrics, pre- or
/// post-processors), each made on demand by a factory from its options.
///
/// Lookup ignores case and underscores. Each `create()` returns a fresh object, since
/// plugins hold per-run state.
template <class Base, class Description = PluginDescription>
class Registry {
 public:
  /// Makes a new object from its options (complete: defaults filled in, types checked).
  using Factory = std::function<std::unique_ptr<Base>(const Json& options)>;
  /// One registered plugin: its description and its factory.
  struct Entry : Description {
    Factory make;  ///< Makes a new object.
    Entry(Description description, Factory factory)
        : Description(std::move(description)), make(std::move(factory)) {}
  };

  /// `family` names the plugins in messages ("workload metric").
  explicit Registry(std::string family) : family_(std::move(family)) {}

  /// Adds a plugin. `make` takes the options (`const Json&`) or nothing. Throws UsageError if
  /// the name (as a lookup key) is taken or empty, or `make` is empty.
  template <class F>
  void add(Description description, F make) {
    const std::string key = registry_key(description.name);
    if (key.empty()) throw UsageError(family_ + ": cannot register a plugin with an empty name");
    if (const Entry* other = find(description.name)) {
      throw UsageError(family_ + " '" + description.name + "' is already registered (by " +
                       (other->source.empty() ? std::string("program") : other->source) + ")");
    }
    Factory factory;
    if constexpr (std::is_invocable_v<F, const Json&>) {
      factory = std::move(make);
    } else {
      static_assert(std::is_invocable_v<F>, "a factory takes (const neurobench::Json&) or ()");
      factory = [f = std::move(make)](const Json& /*options*/) { return f(); };
    }
    if (!factory) throw UsageError(family_ + " '" + description.name + "' has no factory");
    entries_.emplace_back(std::move(description), std::move(factory));
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

  /// A new object of the plugin called `name`, made with `options` (checked against the
  /// options it declares, defaults filled in). Throws UsageError listing the known names when
  /// there is none, or naming the option at fault.
  [[nodiscard]] std::unique_ptr<Base> create(std::string_view name,
                                             const Json& options = Json::object()) const {
    const Entry* e = find(name);
    if (e == nullptr) {
      throw UsageError("unknown " + family_ + " '" + std::string(name) + "' (known: " +
                       known_names() + ")");
    }
    return e->make(detail::complete_options(*e, options, family_));
  }

  /// Every entry, in registration order.
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

  /// The registered names, comma separated ("none" when empty).
  [[nodiscard]] std::string known_names() const {
    std::string known;
    for (const auto& e : entries_) known += (known.empty() ? "" : ", ") + e.name;
    return known.empty() ? "none" : known;
  }

  /// The family name given at construction.
  [[nodiscard]] const std::string& family() const { return family_; }

 private:
  std::string family_;
  std::vector<Entry> entries_;
};

}  // namespace neurobench
NEUROBENCH_API_END
