// SPDX-License-Identifier: Apache-2.0
// The `primate-reaching` data set kind: one session of NeuroBench's Primate Reaching task.
#include <memory>

#include <neurobench/datasets/primate_reaching.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

datasets::PrimateReachingOptions primate_reaching_options(const Json& options) {
  datasets::PrimateReachingOptions o;
  o.num_steps = int64_option(options, "num_steps");
  o.train_ratio = options.at("train_ratio").get<double>();
  o.label_series = options.at("label_series").get<bool>();
  o.biological_delay = int64_option(options, "biological_delay");
  o.stride = options.at("stride").get<double>();
  o.bin_width = options.at("bin_width").get<double>();
  o.max_segment_length = int64_option(options, "max_segment_length");
  o.split_num = int64_option(options, "split_num");
  o.remove_segments_inactive = options.at("remove_segments_inactive").get<bool>();
  return o;
}

class PrimateReachingKind final : public DatasetOpener {
 public:
  explicit PrimateReachingKind(const Json& options)
      : subset_(datasets::primate_reaching_subset(options.at("subset").get<std::string>())),
        options_(primate_reaching_options(options)) {
    options_.validate();
  }

  static DatasetKind describe() {
    const datasets::PrimateReachingOptions defaults;
    return DatasetKind("primate-reaching",
                       "NeuroBench's Primate Reaching (motor cortex spikes to cursor velocity): "
                       "samples (num_steps, channels) float32 spike counts, targets (2) float32 "
                       "velocity (docs/datasets.md)")
        .with_path(
            "one session's MATLAB v7.3 .mat file, such as indy_20160622_01.mat "
            "(https://zenodo.org/record/583331)")
        .with_option("subset", "string", Json(),
                     "the steps: train, val or test (NeuroBench's ind_train, ind_val, "
                     "ind_test; --subset)")
        .with_option("num_steps", "integer", defaults.num_steps,
                     "windows per sample, each round(bin_width / 0.004) steps before the last")
        .with_option("train_ratio", "number", defaults.train_ratio,
                     "share of each chunk's segments in train; the rest halved into val, test")
        .with_option("label_series", "boolean", defaults.label_series,
                     "targets (num_steps, 2), one per window, instead of (2)")
        .with_option("biological_delay", "integer", defaults.biological_delay,
                     "steps of 4 ms the velocity lags the spikes by")
        .with_option("stride", "number", defaults.stride,
                     "seconds between a segment's samples (0.004 to 1e9)")
        .with_option("bin_width", "number", defaults.bin_width,
                     "seconds of spikes one window counts (0.004 to 1e9)")
        .with_option("max_segment_length", "integer", defaults.max_segment_length,
                     "steps; with remove_segments_inactive, longer segments are dropped")
        .with_option("split_num", "integer", defaults.split_num,
                     "chunks the segments are cut into, each split into train, val, test; "
                     "more than the segments leave none")
        .with_option("remove_segments_inactive", "boolean", defaults.remove_segments_inactive,
                     "drop segments of max_segment_length steps or more (inactivity)");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    datasets::PrimateReachingOptions o = options_;
    o.quiet = open.quiet;
    o.max_array_bytes = open.max_array_bytes;
    return std::make_shared<datasets::PrimateReaching>(path, subset_, o);
  }

 private:
  datasets::PrimateReachingSubset subset_;
  datasets::PrimateReachingOptions options_;
};

}  // namespace

void add_primate_reaching_kind(DatasetKinds& kinds) {
  add_builtin_kind<PrimateReachingKind>(kinds);
}

}  // namespace neurobench::detail
