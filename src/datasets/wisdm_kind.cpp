// SPDX-License-Identifier: Apache-2.0
// The `wisdm` data set kind: NeuroBench's WISDM activity recognition windows by file.
#include <memory>

#include <neurobench/datasets/wisdm.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {

DatasetKind wisdm_kind() {
  DatasetKind kind;
  kind.name = "wisdm";
  kind.description =
      "NeuroBench's WISDM human activity recognition windows: (40, 6) float32, 7 classes "
      "(docs/datasets.md)";
  kind.source = "built-in";
  kind.path_description = "watch_subset2_40.npz (a path ending in .npz), or the folder holding it";
  kind.options = {
      dataset_option("subset", "string", Json(), "the windows: train, val or test (--subset)"),
  };
  kind.check = [](const Json& options) {
    (void)datasets::wisdm_subset(options.at("subset").get<std::string>());
  };
  kind.make = [](const std::filesystem::path& path, const Json& options,
                 const DatasetOpenOptions& open) -> std::shared_ptr<Dataset> {
    NpzReadOptions npz;
    npz.max_array_bytes = open.max_array_bytes;
    return std::make_shared<datasets::Wisdm>(
        path, datasets::wisdm_subset(options.at("subset").get<std::string>()), npz);
  };
  return kind;
}

}  // namespace neurobench::detail
