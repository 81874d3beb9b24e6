// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/description.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

std::string_view to_string(Better better) {
  switch (better) {
    case Better::Higher:
      return "higher";
    case Better::Lower:
      return "lower";
    case Better::None:
      return "none";
  }
  return "none";
}

Better better_from_string(std::string_view text) {
  if (text == "higher") return Better::Higher;
  if (text == "lower") return Better::Lower;
  if (text == "none" || text.empty()) return Better::None;
  throw UsageError(fmt::format("'{}' is not a direction (higher, lower or none)", text));
}

MetricDescription::MetricDescription(std::string one_line) { description = std::move(one_line); }
MetricDescription::MetricDescription(const char* one_line)
    : MetricDescription(std::string(one_line == nullptr ? "" : one_line)) {}

MetricDescription& MetricDescription::with_unit(std::string unit) {
  value.unit = std::move(unit);
  return *this;
}

MetricDescription& MetricDescription::higher_is_better() {
  value.better = Better::Higher;
  return *this;
}

MetricDescription& MetricDescription::lower_is_better() {
  value.better = Better::Lower;
  return *this;
}

MetricDescription& MetricDescription::with_key(std::string key, std::string unit, Better better,
                                               std::string key_description) {
  keys.emplace_back(std::move(key),
                    ValueDescription{std::move(unit), better, std::move(key_description)});
  return *this;
}

MetricDescription& MetricDescription::with_option(std::string option_name, std::string type,
                                                  Json default_value,
                                                  std::string option_description) {
  options.push_back({std::move(option_name), std::move(type), std::move(default_value),
                     std::move(option_description)});
  return *this;
}

ValueDescription MetricDescription::describe_key(std::string_view key) const {
  if (key.empty()) return {value.unit, value.better, description};
  for (const auto& [k, v] : keys) {
    if (k == key) return v;
  }
  const std::string_view first = key.substr(0, key.find('.'));
  for (const auto& [k, v] : keys) {
    if (k == first) return v;
  }
  return {value.unit, value.better, ""};
}

namespace {

Json value_json(const ValueDescription& v) {
  Json j = Json::object();
  if (!v.unit.empty()) j["unit"] = v.unit;
  j["better"] = std::string(to_string(v.better));
  if (!v.description.empty()) j["description"] = v.description;
  return j;
}

std::string string_field(const Json& j, const char* field, const std::string& where) {
  if (!j.contains(field)) return "";
  if (!j[field].is_string()) throw InputError(fmt::format("{}: '{}' is not a string", where, field));
  return j[field].get<std::string>();
}

ValueDescription value_from_json(const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(fmt::format("{}: not an object", where));
  ValueDescription v;
  v.unit = string_field(j, "unit", where);
  v.description = string_field(j, "description", where);
  try {
    v.better = better_from_string(string_field(j, "better", where));
  } catch (const UsageError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  return v;
}

}  // namespace

Json MetricDescription::to_json() const {
  Json j = Json::object();
  if (!kind.empty()) j["kind"] = kind;
  if (!description.empty()) j["description"] = description;
  if (!value.unit.empty()) j["unit"] = value.unit;
  j["better"] = std::string(to_string(value.better));
  if (!keys.empty()) {
    Json k = Json::object();
    for (const auto& [key, v] : keys) k[key] = value_json(v);
    j["keys"] = std::move(k);
  }
  if (!source.empty()) j["source"] = source;
  return j;
}

MetricDescription MetricDescription::from_json(const Json& entry, std::string name,
                                               const std::string& where) {
  const std::string here = fmt::format("{}: _metrics.{}", where, name);
  const ValueDescription v = value_from_json(entry, here);
  MetricDescription d(v.description);
  d.name = std::move(name);
  d.value = {v.unit, v.better, ""};
  d.kind = string_field(entry, "kind", here);
  d.source = string_field(entry, "source", here);
  if (entry.contains("keys")) {
    const Json& keys = entry["keys"];
    if (!keys.is_object()) throw InputError(fmt::format("{}: 'keys' is not an object", here));
    for (const auto& [key, kv] : keys.items()) {
      d.keys.emplace_back(key, value_from_json(kv, fmt::format("{}.keys.{}", here, key)));
    }
  }
  return d;
}

}  // namespace neurobench
