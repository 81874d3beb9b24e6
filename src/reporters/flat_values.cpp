// SPDX-License-Identifier: Apache-2.0
#include "reporters/flat_values.hpp"

#include <cmath>
#include <set>
#include <vector>
#include <utility>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>

#include "util/non_finite.hpp"

namespace neurobench {

namespace detail {

FlatRun::FlatRun(const RunResults& run) : values_(flatten_metrics(run.metrics)) {
  // A null metric that `_run.unavailable` names could not be measured here: not a failure.
  const auto& meta = run.run;
  const bool any_unavailable =
      meta.is_object() && meta.contains("unavailable") && meta["unavailable"].is_object();
  for (std::size_t i = 0; i < values_.size(); ++i) {
    FlatValue& v = values_[i];
    if (any_unavailable && v.state == FlatValue::State::Failed &&
        meta["unavailable"].contains(v.key.substr(0, v.key.find('.')))) {
      v.state = FlatValue::State::Unavailable;
    }
    index_.emplace(v.key, i);
  }
}

FlatValue FlatRun::get(const std::string& key) const {
  const auto it = index_.find(key);
  if (it != index_.end()) return values_[it->second];
  FlatValue missing;
  missing.key = key;
  return missing;
}

std::optional<double> FlatRun::number(const std::string& key) const {
  const FlatValue v = get(key);
  if (v.state != FlatValue::State::Number || !std::isfinite(v.number)) return std::nullopt;
  return v.number;
}

std::vector<FlatRun> flat_runs(const std::vector<RunResults>& runs) {
  std::vector<FlatRun> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.emplace_back(r);
  return out;
}

std::vector<std::string> union_keys(const std::vector<FlatRun>& runs) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& r : runs) {
    for (const auto& v : r.values()) {
      if (seen.insert(v.key).second) keys.push_back(v.key);
    }
  }
  return keys;
}

bool is_finite(const FlatValue& v) {
  return v.state == FlatValue::State::Number && std::isfinite(v.number);
}

bool is_non_finite(const FlatValue& v) {
  return v.state == FlatValue::State::Number && !std::isfinite(v.number);
}

bool same_non_finite(const FlatValue& a, const FlatValue& b) {
  if (!is_non_finite(a) || !is_non_finite(b)) return false;
  return std::isnan(a.number) ? std::isnan(b.number) : a.number == b.number;
}

Difference difference(const FlatValue& a, const FlatValue& b, Better better) {
  Difference d;
  if (!is_finite(a) || !is_finite(b)) return d;
  d.available = true;
  d.abs = b.number - a.number;
  if (a.number != 0) {
    d.has_percent = true;
    d.percent = 100.0 * d.abs / std::abs(a.number);
  } else if (b.number == 0) {
    d.has_percent = true;  // 0 -> 0 is no change
  }
  if (d.abs == 0) {
    d.verdict = Difference::Verdict::Same;
  } else if (better == Better::None) {
    d.verdict = Difference::Verdict::Neutral;
  } else {
    const bool up = d.abs > 0;
    d.verdict = (up == (better == Better::Higher)) ? Difference::Verdict::Better
                                                   : Difference::Verdict::Worse;
  }
  return d;
}

std::string percent_text(const Difference& d) {
  if (!d.has_percent) return "new";
  if (d.percent == 0) return "0%";
  return fmt::format("{:+.1f}%", d.percent);
}

std::string value_text(const FlatValue& v, const char* failed, const char* missing) {
  switch (v.state) {
    case FlatValue::State::Number:
      return format_number(v.number);
    case FlatValue::State::Failed:
      return failed;
    case FlatValue::State::Unavailable:
      return "unavailable";
    case FlatValue::State::Missing:
      return missing;
  }
  return missing;
}

}  // namespace detail
}  // namespace neurobench
