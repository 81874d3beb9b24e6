// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Which way a metric improves.
enum class Better {
  Higher,  ///< More is better (accuracy, sparsity, throughput).
  Lower,   ///< Less is better (operations, latency, memory, footprint, errors).
  None,    ///< Neither: counts, settings and metrics that do not say.
};

/// The text of a direction: "higher", "lower" or "none".
[[nodiscard]] std::string_view to_string(Better better);
/// The direction named "higher", "lower" or "none"; throws UsageError for anything else.
[[nodiscard]] Better better_from_string(std::string_view text);

/// What one number means: its unit and which way it improves.
struct ValueDescription {
  std::string unit;              ///< "ms", "bytes", "fraction", "ops/sample"; empty if none.
  Better better = Better::None;  ///< Which way is an improvement.
  std::string description;       ///< One line; may be empty.
};

/// What a metric's value means, declared with the metric class, either with the registration
/// line or by a `static neurobench::MetricDescription describe()` member:
///
/// ```cpp
/// static neurobench::MetricDescription describe() {
///   return neurobench::MetricDescription("spikes per neuron per timestep")
///       .with_unit("spikes/step")
///       .lower_is_better()
///       .with_option("threshold", "number", 0.5, "counts values above this as spikes");
/// }
/// ```
///
/// A metric whose value is an object describes its keys with `with_key`; keys it does not
/// name (per-layer values, say) take the metric's own unit and direction. Benchmark writes the
/// descriptions into every results file (`_metrics`), where `report` and `compare` read them.
struct MetricDescription : PluginDescription {
  std::string kind;       ///< "static", "workload" or "timing"; set at registration.
  ValueDescription value;  ///< The value's unit and direction (description: this->description).
  /// Object values: the keys the metric knows of, in the order it writes them.
  std::vector<std::pair<std::string, ValueDescription>> keys;

  MetricDescription() = default;
  /// A description from its one line (implicit, so that a registration line can give a string).
  MetricDescription(std::string one_line);  // NOLINT(google-explicit-constructor)
  MetricDescription(const char* one_line);  // NOLINT(google-explicit-constructor)

  /// Sets the unit of the value (and of object keys not described on their own).
  MetricDescription& with_unit(std::string unit);
  /// More is better.
  MetricDescription& higher_is_better();
  /// Less is better.
  MetricDescription& lower_is_better();
  /// Describes one key of an object value.
  MetricDescription& with_key(std::string key, std::string unit, Better better,
                              std::string description = "");
  /// Declares an option (see OptionDescription); `default_value` null makes it required.
  MetricDescription& with_option(std::string name, std::string type, Json default_value,
                                 std::string description);

  /// The unit and direction of `key`: "" for the value itself, or a key of an object value
  /// (nested keys joined with dots: the first part is looked up, then the whole).
  [[nodiscard]] ValueDescription describe_key(std::string_view key) const;

  /// The `_metrics` entry of a results file: `{"kind", "description", "unit", "better",
  /// "keys": {...}, "source"}` (empty fields left out).
  [[nodiscard]] Json to_json() const;
  /// Reads a `_metrics` entry back; throws InputError naming `where` when it is malformed.
  [[nodiscard]] static MetricDescription from_json(const Json& entry, std::string name,
                                                   const std::string& where);
};

}  // namespace neurobench
NEUROBENCH_API_END
