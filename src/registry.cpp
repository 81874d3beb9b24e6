// SPDX-License-Identifier: Apache-2.0
// What every plugin registry shares: lookup keys, option checking, and the source recorded
// with each registration.
#include <neurobench/registry.hpp>

#include <algorithm>
#include <cctype>
#include <cxxabi.h>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>
#include <cmath>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "registry_source.hpp"
#include "util/text.hpp"

namespace neurobench {

std::string registry_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (const char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return key;
}

namespace detail {

namespace {

struct Source {
  std::mutex mutex;
  std::string current = "program";
};
Source& source() {
  static Source s;
  return s;
}

bool has_type(const Json& value, std::string_view type) {
  if (type == "number") return value.is_number();
  if (type == "integer") {
    return value.is_number_integer() ||
           (value.is_number_float() && std::isfinite(value.get<double>()) &&
            std::nearbyint(value.get<double>()) == value.get<double>());
  }
  if (type == "boolean") return value.is_boolean();
  if (type == "string") return value.is_string();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  return true;  // "" or "any": whatever JSON value
}

std::string option_names(const PluginDescription& plugin) {
  std::string names;
  for (const auto& o : plugin.options) names += (names.empty() ? "" : ", ") + o.name;
  return names;
}

}  // namespace

std::string short_type_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = (status == 0 && demangled) ? demangled.get() : mangled;
  const auto template_start = name.find('<');
  const auto scope = name.rfind("::", template_start);
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

std::string registered_class_name(const char* text) {
  std::string name;
  for (const char* c = text; *c != '\0'; ++c) {
    if (std::isspace(static_cast<unsigned char>(*c)) == 0) name.push_back(*c);
  }
  const auto scope = name.rfind("::");
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

namespace {
struct Pending {
  std::mutex mutex;
  std::vector<std::function<void()>> registrations;
  std::vector<std::string> errors;
};
Pending& pending() {
  static Pending p;
  return p;
}
}  // namespace

void record_registration_error(std::string message) noexcept {
  try {
    auto& p = pending();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.errors.push_back(std::move(message));
  } catch (...) {  // nothing more can be done during static initialisation
  }
}

void defer_registration(std::function<void()> add) noexcept {
  try {
    auto& p = pending();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.registrations.push_back(std::move(add));
  } catch (...) {
    record_registration_error("cannot defer a registration (out of memory)");
  }
}

namespace {
// Runs the user registrations made during static initialisation (once each).
void drain() {
  auto& p = pending();
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    todo.swap(p.registrations);
  }
  for (auto& add : todo) {
    try {
      add();
    } catch (const std::exception& e) {
      record_registration_error(e.what());
    }
  }
}
}  // namespace

void check_registration_errors() {
  drain();
  auto& p = pending();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (!p.errors.empty()) throw UsageError("registration failed: " + p.errors.front());
}

std::string registration_source() {
  auto& s = source();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.current;
}

ScopedRegistrationSource::ScopedRegistrationSource(std::string where) {
  auto& s = source();
  std::lock_guard<std::mutex> lock(s.mutex);
  previous_ = std::exchange(s.current, std::move(where));
}

ScopedRegistrationSource::~ScopedRegistrationSource() {
  auto& s = source();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.current = std::move(previous_);
}

Json complete_options(const PluginDescription& plugin, const Json& options,
                      const std::string& family) {
  if (!options.is_null() && !options.is_object()) {
    throw UsageError(fmt::format("{} '{}': options must be an object of name: value, got {}",
                                 family, plugin.name, json_excerpt(options)));
  }
  if (options.is_object()) {
    for (const auto& [key, value] : options.items()) {
      const auto it = std::find_if(plugin.options.begin(), plugin.options.end(),
                                   [&key = key](const auto& o) { return o.name == key; });
      if (it == plugin.options.end()) {
        throw UsageError(plugin.options.empty()
                             ? fmt::format("{} '{}' takes no options (got '{}')", family,
                                           plugin.name, printable(key, 60))
                             : fmt::format("{} '{}' has no option '{}' (options: {})", family,
                                           plugin.name, printable(key, 60), option_names(plugin)));
      }
      if (!has_type(value, it->type)) {
        const bool vowel = it->type.find_first_of("aeiou") == 0;
        throw UsageError(fmt::format("{} '{}': option '{}' must be {} {}, got {}", family,
                                     plugin.name, key, vowel ? "an" : "a", it->type,
                                     json_excerpt(value)));
      }
    }
  }
  Json complete = Json::object();
  for (const auto& o : plugin.options) {
    if (options.is_object() && options.contains(o.name)) {
      complete[o.name] = options[o.name];
    } else if (!o.default_value.is_null()) {
      complete[o.name] = o.default_value;
    } else {
      throw UsageError(fmt::format("{} '{}' needs option '{}' ({})", family, plugin.name, o.name,
                                   o.description));
    }
  }
  return complete;
}

}  // namespace detail
}  // namespace neurobench
