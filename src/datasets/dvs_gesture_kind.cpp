// SPDX-License-Identifier: Apache-2.0
// The `dvs-gesture` data set kind: IBM's DVS128 Gesture, release or tonic's export, as frames.
#include <memory>

#include <neurobench/datasets/dvs_gesture.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

datasets::DvsGestureOptions dvs_gesture_options(const Json& options) {
  datasets::DvsGestureOptions o;
  o.filter_time = options.at("filter_time").get<double>();
  o.spatial_factor = options.at("spatial_factor").get<double>();
  const auto n_time_bins = int64_option(options, "n_time_bins");
  const auto time_window = options.at("time_window").get<double>();
  const auto event_count = int64_option(options, "event_count");
  // 0 means "not set"; none set is NeuroBench's 150 time bins (DvsGestureOptions).
  if (n_time_bins != 0) o.frames.n_time_bins = n_time_bins;
  if (time_window != 0) o.frames.time_window = time_window;
  if (event_count != 0) o.frames.event_count = event_count;
  o.frames.overlap = options.at("overlap").get<double>();
  o.frames.include_incomplete = options.at("include_incomplete").get<bool>();
  o.validate();
  return o;
}

class DvsGestureKind final : public DatasetOpener {
 public:
  explicit DvsGestureKind(const Json& options)
      : subset_(datasets::dvs_gesture_subset(options.at("subset").get<std::string>())),
        options_(dvs_gesture_options(options)) {}

  static DatasetKind describe() {
    return DatasetKind(
               "dvs-gesture",
               "IBM DVS128 Gesture as NeuroBench's benchmark frames it with tonic: denoised, "
               "downsampled to 32x32, 150 time bins (frames, 2, 32, 32) float32, 11 labels "
               "(docs/datasets.md)")
        .with_path(
            "the release folder (holding trials_to_test.txt and the .aedat files), or tonic's "
            "export (holding ibmGestureTest/ and ibmGestureTrain/)")
        .with_option("subset", "string", Json(), "the recordings: train or test (--subset)")
        .with_option("filter_time", "number", 10000,
                     "tonic's Denoise filter in microseconds; 0 turns it off")
        .with_option("spatial_factor", "number", 0.25,
                     "tonic's Downsample factor: 0.25 maps 128x128 pixels to 32x32")
        .with_option("n_time_bins", "integer", 0,
                     "frames per sample, of equal duration; 0 means 150 unless time_window or "
                     "event_count is set")
        .with_option("time_window", "number", 0,
                     "frames of this many microseconds instead (0: not used)")
        .with_option("event_count", "integer", 0,
                     "frames of this many events instead (0: not used)")
        .with_option("overlap", "number", 0,
                     "overlap of frames: microseconds (time_window), events (event_count) or a "
                     "fraction of a bin (n_time_bins)")
        .with_option("include_incomplete", "boolean", false,
                     "keep the last, shorter frame (time_window, event_count)");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    datasets::DvsGestureOptions o = options_;
    o.quiet = open.quiet;
    o.frames.max_bytes = open.max_array_bytes;
    return std::make_shared<datasets::DvsGesture>(path, subset_, o);
  }

 private:
  datasets::DvsGestureSubset subset_;
  datasets::DvsGestureOptions options_;
};

}  // namespace

void add_dvs_gesture_kind(DatasetKinds& kinds) { add_builtin_kind<DvsGestureKind>(kinds); }

}  // namespace neurobench::detail
