// SPDX-License-Identifier: Apache-2.0
#include "util/non_finite.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace neurobench::detail {

const char* non_finite_token(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return "";
}

std::optional<double> non_finite_from_token(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  const auto& s = value.get_ref<const std::string&>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

void encode_non_finite(Json& value) {
  std::vector<Json*> pending{&value};
  while (!pending.empty()) {
    Json* v = pending.back();
    pending.pop_back();
    if (v->is_structured()) {
      for (auto& child : *v) pending.push_back(&child);
    } else if (v->is_number_float() && !std::isfinite(v->get<double>())) {
      *v = non_finite_token(v->get<double>());
    }
  }
}

std::vector<NonFiniteValue> non_finite_values(const Json& value, const std::string& key) {
  std::vector<NonFiniteValue> found;
  // Depth first in the value's order: children are pushed last to first.
  std::vector<std::pair<const Json*, std::string>> pending{{&value, key}};
  while (!pending.empty()) {
    auto [v, name] = std::move(pending.back());
    pending.pop_back();
    if (v->is_object()) {
      for (auto it = v->crbegin(); it != v->crend(); ++it) {
        pending.emplace_back(&it.value(), name + "." + it.key());
      }
    } else if (v->is_array()) {
      for (std::size_t i = v->size(); i-- > 0;) {
        pending.emplace_back(&(*v)[i], fmt::format("{}[{}]", name, i));
      }
    } else if (v->is_number_float() && !std::isfinite(v->get<double>())) {
      found.push_back({std::move(name), v->get<double>()});
    }
  }
  return found;
}

std::vector<std::string> non_finite_keys(const Json& values) {
  std::vector<std::string> keys;
  if (!values.is_object()) return keys;
  for (const auto& [name, value] : values.items()) {
    for (auto& found : non_finite_values(value, name)) keys.push_back(std::move(found.key));
  }
  return keys;
}

}  // namespace neurobench::detail
