// SPDX-License-Identifier: Apache-2.0
// The `wisdm` data set kind: NeuroBench's WISDM activity recognition windows by file.
#include <memory>

#include <neurobench/datasets/wisdm.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

class WisdmKind final : public DatasetOpener {
 public:
  explicit WisdmKind(const Json& options)
      : subset_(datasets::wisdm_subset(options.at("subset").get<std::string>())) {}

  static DatasetKind describe() {
    return DatasetKind("wisdm",
                       "NeuroBench's WISDM human activity recognition windows: (40, 6) float32, "
                       "7 classes (docs/datasets.md)")
        .with_path("watch_subset2_40.npz (a path ending in .npz), or the folder holding it")
        .with_option("subset", "string", Json(), "the windows: train, val or test (--subset)");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    NpzReadOptions npz;
    npz.max_array_bytes = open.max_array_bytes;
    return std::make_shared<datasets::Wisdm>(path, subset_, npz);
  }

 private:
  datasets::WisdmSubset subset_;
};

}  // namespace

void add_wisdm_kind(DatasetKinds& kinds) { add_builtin_kind<WisdmKind>(kinds); }

}  // namespace neurobench::detail
