// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// One option a plugin accepts (see PluginDescription::options).
struct OptionDescription {
  std::string name;         ///< Key in the options object.
  std::string type;         ///< "number", "integer", "boolean", "string", "array" or "object".
  Json default_value;       ///< Used when the option is not given; null: required.
  std::string description;  ///< One line.
};

/// What a registered plugin (metric, processor or data set kind) is: name, one line, where it
/// came from and the options it accepts. Filled in by the registration line. The registries
/// (<neurobench/registry.hpp>) keep one per plugin; a family may extend it (MetricDescription,
/// DatasetKind).
struct PluginDescription {
  std::string name;         ///< As used in configs and on the command line (the class name).
  std::string description;  ///< One line, shown by `neurobench list`.
  /// Where it was registered: "built-in", the path of a plugin library loaded with
  /// `--plugin`, or "program" for code linked into the running program.
  std::string source;
  std::vector<OptionDescription> options;  ///< Accepted options; none by default.
};

}  // namespace neurobench
NEUROBENCH_API_END
