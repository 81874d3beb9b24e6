// SPDX-License-Identifier: Apache-2.0
// The `gen4-detection` data set kind: Prophesee's Gen4 automotive histograms in NeuroBench's
// sequential batches.
#include <memory>

#include <neurobench/datasets/gen4_detection.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

datasets::Gen4DetectionOptions gen4_detection_options(const Json& options) {
  datasets::Gen4DetectionOptions o;
  o.batch_size = int64_option(options, "batch_size");
  o.num_tbins = int64_option(options, "num_tbins");
  o.delta_t_us = int64_option(options, "delta_t");
  o.channels = int64_option(options, "channels");
  o.height = int64_option(options, "height");
  o.width = int64_option(options, "width");
  o.min_box_diag = int64_option(options, "min_box_diag");
  o.validate();
  return o;
}

class Gen4DetectionKind final : public DatasetOpener {
 public:
  explicit Gen4DetectionKind(const Json& options)
      : subset_(datasets::gen4_subset(options.at("subset").get<std::string>())),
        options_(gen4_detection_options(options)) {}

  static DatasetKind describe() {
    return DatasetKind("gen4-detection",
                       "Prophesee's Gen4 1 MP automotive detection histograms in NeuroBench's "
                       "sequential batches: data (4, 12, 2, 360, 640) float32, boxes [tbin, slot, "
                       "x1, y1, x2, y2, label] (docs/datasets.md)")
        .with_path(
            "the Gen4 Histograms release folder (holding train/, val/ and test/ with "
            "NAME.h5 and NAME_bbox.npy)")
        .with_option("subset", "string", Json(), "the recordings: train, val or test (--subset)")
        .with_option("batch_size", "integer", 4,
                     "recordings read at once, the batch's slots (the run's batch size is this)")
        .with_option("num_tbins", "integer", 12, "time bins per batch")
        .with_option("delta_t", "integer", 50000,
                     "microseconds per bin; the files' delta_t attribute must be this")
        .with_option("channels", "integer", 2, "histogram channels (2 for histo)")
        .with_option("height", "integer", 360, "histogram rows")
        .with_option("width", "integer", 640, "histogram columns")
        .with_option("min_box_diag", "integer", 60,
                     "boxes with a smaller diagonal (histogram pixels) are dropped");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    datasets::Gen4DetectionOptions o = options_;
    o.quiet = open.quiet;
    return std::make_shared<datasets::Gen4Detection>(path, subset_, o);
  }

 private:
  datasets::Gen4Subset subset_;
  datasets::Gen4DetectionOptions options_;
};

}  // namespace

void add_gen4_detection_kind(DatasetKinds& kinds) { add_builtin_kind<Gen4DetectionKind>(kinds); }

}  // namespace neurobench::detail
