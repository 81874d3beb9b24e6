// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/events/events.hpp>
#include <neurobench/events/to_frame.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where IBM's DVS128 Gesture release is described and linked (`DvsGesture.tar.gz`).
inline constexpr const char* kDvsGestureUrl = "http://research.ibm.com/dvsgesture/";
/// Where tonic's export of its test subset is (`ibmGestureTest.tar.gz`).
inline constexpr const char* kDvsGestureTonicTestUrl =
    "https://figshare.com/ndownloader/files/38020584";
/// Where tonic's export of its training subset is (`ibmGestureTrain.tar.gz`).
inline constexpr const char* kDvsGestureTonicTrainUrl =
    "https://figshare.com/ndownloader/files/38022171";

/// Which recordings a DvsGesture data set holds.
enum class DvsGestureSubset {
  Train,  ///< `train`: users 1-23 (`trials_to_train.txt`, tonic's `ibmGestureTrain`).
  Test,   ///< `test`: users 24-29 (`trials_to_test.txt`, tonic's `ibmGestureTest`).
};

/// The name of a subset: `train` or `test`.
[[nodiscard]] std::string_view to_string(DvsGestureSubset subset);
/// The subset called `name`. Throws UsageError naming it and listing the valid names.
[[nodiscard]] DvsGestureSubset dvs_gesture_subset(std::string_view name);

/// How a DvsGesture data set turns events into frames: NeuroBench's DVS Gesture benchmark
/// (tonic's `Denoise(filter_time=10000)`, `Downsample(spatial_factor=0.25)`,
/// `ToFrame(sensor_size=(32, 32, 2), n_time_bins=150)`) by default.
struct DvsGestureOptions {
  double filter_time = 10000;    ///< Denoise filter in microseconds; 0 leaves the events as read.
  double spatial_factor = 0.25;  ///< Downsample factor; 1 leaves the 128 x 128 pixels.
  /// The frames (events::to_frame()); when no slicing is set, `n_time_bins = 150`.
  events::FrameOptions frames;
  bool quiet = false;  ///< No progress bar on stderr while the recordings are indexed.

  /// Throws UsageError naming the field: a negative or non-finite filter_time, a spatial factor
  /// not in (0, 1], frame options FrameOptions::validate() refuses.
  void validate() const;
  /// `frames` with `n_time_bins = 150` when no slicing is set.
  [[nodiscard]] events::FrameOptions frame_options() const;
};

/// IBM's DVS128 Gesture data set (11 gestures, 128 x 128 event camera) as NeuroBench's DVS
/// Gesture benchmark reads it through tonic; see docs/datasets.md.
///
/// `path` is one of:
/// - the original release (the folder holding `trials_to_train.txt` and `trials_to_test.txt`,
///   or one holding `DvsGesture/` with them): each listed `userNN_lighting.aedat` (AEDAT 3.1,
///   read_aedat3_polarity()) with its `userNN_lighting_labels.csv` (`class,startTime_usec,
///   endTime_usec`); a sample is the events of one csv row with `start <= t < end`, label
///   `class - 1`, timestamps as recorded; samples in list order, then csv order.
/// - tonic's export (a folder holding `ibmGestureTrain` / `ibmGestureTest`, or tonic's root
///   holding `DVSGesture/` with them): one folder per trial (`userNN_lighting`), one
///   `LABEL.npy` per sample; tonic's 2-D `(events, 4)` arrays of `x, y, p, t` with `t` in
///   milliseconds (multiplied by 1000, as tonic does), or structured arrays with fields `x`,
///   `y`, `p`, `t` in microseconds. Folders in name order, files in label order.
///
/// Samples: the events denoised (unless filter_time is 0), downsampled and framed (events::)
/// as DvsGestureOptions says: data `(frames, 2, 32, 32)` float32 counts by default, target the
/// label 0-10 (int64). A batch is zero-padded at the end of time to its longest sample
/// (tonic's `PadTensors(batch_first=True)`): `(batch, frames, 2, size, size)`.
///
/// The constructor indexes the subset (the list file, each trial's csv and AEDAT header, or
/// the export's folders and .npy headers) with a progress bar on stderr unless
/// `options.quiet`; get() reads the events. The last AEDAT file read is kept decoded, so a
/// batch of samples of one recording reads it once.
///
/// Throws UsageError for invalid options; InputError naming the file (and line) when `path` is
/// neither layout (saying what was looked for), a list file, recording or labels csv is
/// missing or malformed, a label is not 1-11, a file is not AEDAT 3.x or not a readable .npy of
/// that shape. get() throws InputError for a malformed recording (a truncated packet,
/// naming its offset), for events outside the 128 x 128 sensor and for timestamps that
/// decrease within a sample.
///
/// ```cpp
/// neurobench::datasets::DvsGesture test("data/DvsGesture",
///                                       neurobench::datasets::DvsGestureSubset::Test);
/// neurobench::Batch first = test.get({0});  // data (1, 150, 2, 32, 32), targets (1)
/// ```
class DvsGesture final : public Dataset {
 public:
  static constexpr std::int64_t kSensorSize = 128;  ///< The DVS128's pixels per side.
  static constexpr std::int64_t kClasses = 11;      ///< Gestures, labels 0-10.

  /// Indexes `subset` of the data at `path`; see the class comment.
  DvsGesture(const std::filesystem::path& path, DvsGestureSubset subset,
             DvsGestureOptions options = {});

  [[nodiscard]] std::int64_t size() const override;
  /// Frames of the samples `indices`, padded to the longest: `(n, frames, 2, size, size)`
  /// float32, targets `(n)` int64. Throws UsageError for an index out of range, InputError as
  /// the class comment says.
  [[nodiscard]] Batch get(const std::vector<std::int64_t>& indices) const override;
  /// `DVS Gesture 'test' subset of FOLDER (release, 264 samples)`.
  [[nodiscard]] std::string describe() const override;
  /// The SHA-256 of the index (the subset and a line per sample: file, size, label, and its
  /// start and end for the release), not of the events.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The events of sample `index` as read (before the transforms), timestamps in
  /// microseconds. Throws as get().
  [[nodiscard]] events::Events events(std::int64_t index) const;
  /// The frames of sample `index`: `(frames, 2, size, size)` float32. Throws as get().
  [[nodiscard]] at::Tensor frames(std::int64_t index) const;
  /// The label of sample `index` (0-10). Throws UsageError for an index out of range.
  [[nodiscard]] std::int64_t label(std::int64_t index) const;
  /// The file sample `index` is read from. Throws UsageError for an index out of range.
  [[nodiscard]] std::filesystem::path file(std::int64_t index) const;
  /// True for the original release, false for tonic's export.
  [[nodiscard]] bool is_release() const { return release_; }
  /// The side of the frames: downsampled_size(128, spatial_factor).
  [[nodiscard]] std::int64_t frame_size() const { return frame_size_; }

 private:
  struct Sample {
    std::string file;  // the .aedat or .npy file
    std::int32_t label = 0;
    std::int64_t start = 0;  // release: [start, end) in microseconds
    std::int64_t end = 0;
  };
  const Sample& sample(std::int64_t index) const;
  void index_release(const std::filesystem::path& folder);
  void index_export(const std::filesystem::path& folder);

  std::filesystem::path folder_;
  DvsGestureSubset subset_;
  DvsGestureOptions options_;
  bool release_ = true;
  std::int64_t frame_size_ = 32;
  std::vector<Sample> samples_;
  std::string sha256_;
  // The last AEDAT file decoded, shared by the samples of one recording.
  struct Cache {
    std::string file;
    std::shared_ptr<const events::Events> events;
  };
  mutable std::mutex cache_mutex_;
  mutable Cache cache_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
