// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Results, metric values, options and configs: JSON objects that keep their keys in
/// insertion order.
using Json = nlohmann::ordered_json;

}  // namespace neurobench
NEUROBENCH_API_END
