// SPDX-License-Identifier: Apache-2.0
// The `thor-eeg-mi` data set kind: NeuroBench's THOR EEG motor imagery trials by folder.
#include <memory>

#include <neurobench/datasets/thor_eeg_mi.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

class ThorEegMiKind final : public DatasetOpener {
 public:
  explicit ThorEegMiKind(const Json& options)
      : subset_(datasets::thor_eeg_mi_subset(options.at("subset").get<std::string>())) {}

  static DatasetKind describe() {
    return DatasetKind("thor-eeg-mi",
                       "NeuroBench's THOR EEG motor imagery trials: (timesteps, 62) float32, "
                       "2 classes (docs/datasets.md)")
        .with_path("the folder holding train_X.npy, train_y.npy, val_X.npy and val_y.npy")
        .with_option("subset", "string", Json(), "the trials: train or val (--subset)");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& /*open*/) const override {
    return std::make_shared<datasets::ThorEegMi>(path, subset_);
  }

 private:
  datasets::ThorEegMiSubset subset_;
};

}  // namespace

void add_thor_eeg_mi_kind(DatasetKinds& kinds) { add_builtin_kind<ThorEegMiKind>(kinds); }

}  // namespace neurobench::detail
