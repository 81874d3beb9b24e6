// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/data/sequential.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::detail {
struct Gen4Boxes;
}  // namespace neurobench::detail

namespace neurobench::datasets {

/// Which folder of the release a Gen4Detection data set reads.
enum class Gen4Subset {
  Train,  ///< `train` (NeuroBench's split `training`).
  Val,    ///< `val` (`validation`).
  Test,   ///< `test` (`testing`).
};

/// The folder name of a subset: `train`, `val` or `test`.
[[nodiscard]] std::string_view to_string(Gen4Subset subset);
/// The subset called `name`: `train`, `val`, `test`, or NeuroBench's `training`, `validation`,
/// `testing`. Throws UsageError naming it and listing the valid names.
[[nodiscard]] Gen4Subset gen4_subset(std::string_view name);

/// The classes of the Gen4 labels by source `class_id` (NeuroBench's `create_class_lookup`).
inline constexpr std::array<const char*, 7> kGen4ClassNames = {
    "pedestrian", "two wheeler", "car", "truck", "bus", "traffic sign", "traffic light"};
/// The classes NeuroBench keeps, in label order: label 1, 2, 3 (0 is the background).
inline constexpr std::array<const char*, 3> kGen4Classes = {"pedestrian", "two wheeler", "car"};
/// The test recordings NeuroBench skips for lacking labels (`skip_files`).
inline constexpr std::array<const char*, 4> kGen4SkippedRecordings = {
    "moorea_2019-06-17_test_01_000_1769500000_1829500000.h5",
    "moorea_2019-06-14_000_549500000_609500000.h5",
    "moorea_2019-06-14_000_1220500000_1280500000.h5",
    "moorea_2019-06-26_test_02_000_1708500000_1768500000.h5",
};

/// NeuroBench's class lookup, `create_class_lookup(["pedestrian", "two wheeler", "car"])`: the
/// label of each source class id, `{1, 2, 3, -1, -1, -1, -1}` (-1: dropped).
[[nodiscard]] std::vector<int64_t> gen4_class_lookup();

/// How a Gen4Detection data set batches the release: NeuroBench's Gen4DetectionDataLoader
/// defaults (the "Gen4 Histograms" release, `histo`, 2 channels, 360 x 640, 50 ms bins, 12 bins
/// per batch, 4 recordings at a time).
struct Gen4DetectionOptions {
  int64_t batch_size = 4;      ///< Recordings read at once: the batch's slots.
  int64_t num_tbins = 12;      ///< Time bins per batch.
  int64_t delta_t_us = 50000;  ///< Microseconds per bin; the files' `delta_t` must be this.
  int64_t channels = 2;        ///< Histogram channels (2 for `histo`).
  int64_t height = 360;        ///< Histogram rows; the files' must be these.
  int64_t width = 640;         ///< Histogram columns.
  int64_t min_box_diag = 60;   ///< Boxes of a smaller diagonal (histogram pixels) are dropped.
  bool quiet = false;          ///< No progress bar on stderr while the recordings are indexed.

  /// Throws UsageError naming the field: a value not positive, or min_box_diag negative or
  /// over 4095.
  void validate() const;
};

/// Prophesee's 1 Megapixel Automotive detection data set (Gen4), pre-computed histograms, in
/// the sequential batches NeuroBench's Gen4DetectionDataLoader makes with metavision_ml's
/// SequentialDataLoader; see docs/datasets.md.
///
/// `path` is the release folder holding `train/`, `val/` and `test/`; each recording is
/// `NAME.h5` (dataset `data` `(bins, channels, height, width)` of any numeric type, attributes
/// `delta_t`, optionally `mode` (`delta_t`), `event_input_height` / `event_input_width` or
/// `downsampling_factor` / `shift`, `store_as_uint8` (values divided by 255)) with its boxes
/// `NAME_bbox.npy` (structured: `t` in microseconds, `x`, `y`, `w`, `h` in sensor pixels,
/// `class_id`; see read_gen4_boxes in docs). Recordings in name order; in `test`, the four
/// NeuroBench skips (kGen4SkippedRecordings).
///
/// Batches (SequentialDataset): data `(batch, num_tbins, channels, height, width)` float32,
/// targets `(boxes, 7)` float32 rows `[tbin, slot, x1, y1, x2, y2, label]` (label 1-3,
/// kGen4Classes, coordinates in histogram pixels), and the extras SequentialDataset lists.
///
/// The constructor reads every recording's header and boxes (progress bar unless
/// `options.quiet`); a batch reads its bins from the files. Throws UsageError for invalid
/// options, InputError naming the file for: no such folder or no `.h5` in it, a recording
/// without its boxes file, a histogram of the wrong shape, type (differing from the first
/// recording's) or `delta_t`, a `mode` other than `delta_t`, a sensor size that is not the
/// histograms' times a power of two, a malformed boxes file or a box out of the frame.
///
/// ```cpp
/// neurobench::datasets::Gen4Detection test("data/Gen 4 Histograms",
///                                          neurobench::datasets::Gen4Subset::Test);
/// neurobench::Batch first = test.batch(0);  // data (4, 12, 2, 360, 640)
/// ```
class Gen4Detection final : public SequentialDataset {
 public:
  /// Indexes `subset` of the release at `path`; see the class comment.
  Gen4Detection(const std::filesystem::path& path, Gen4Subset subset,
                Gen4DetectionOptions options = {});
  ~Gen4Detection() override;

  /// `Gen4 detection 'test' subset of FOLDER (N recordings, M batches of 4)`.
  [[nodiscard]] std::string describe() const override;
  /// The SHA-256 of the index (subset, options; each recording's name, file sizes and bins).
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;
  /// The `.h5` file of recording `index`. Throws UsageError when out of range.
  [[nodiscard]] std::string recording_name(int64_t index) const override;
  /// Number of recordings (skipped ones not counted).
  [[nodiscard]] int64_t num_recordings() const;
  /// The `_bbox.npy` file of recording `index`. Throws UsageError when out of range.
  [[nodiscard]] std::filesystem::path boxes_file(int64_t index) const;
  /// The recordings NeuroBench skips that were found (file names), in name order.
  [[nodiscard]] const std::vector<std::string>& skipped() const { return skipped_; }

 protected:
  [[nodiscard]] SequenceChunk read_chunk(int64_t recording, int64_t start_us) const override;

 private:
  struct Recording {
    std::filesystem::path h5;
    std::filesystem::path boxes;
    int64_t bins = 0;
    int64_t sensor_height = 0;
    int64_t sensor_width = 0;
    bool store_as_uint8 = false;
  };
  struct Index {
    std::vector<Recording> recordings;
    std::vector<std::string> skipped;
    std::string sha256;
  };
  Gen4Detection(const std::filesystem::path& folder, Gen4Subset subset,
                const Gen4DetectionOptions& options, Index index);
  static Index index_folder(const std::filesystem::path& folder, Gen4Subset subset,
                            const Gen4DetectionOptions& options);
  const Recording& recording(int64_t index) const;
  std::shared_ptr<const detail::Gen4Boxes> boxes(int64_t index) const;

  std::filesystem::path folder_;
  Gen4Subset subset_;
  Gen4DetectionOptions options_;
  std::vector<Recording> recordings_;
  std::vector<std::string> skipped_;
  std::string sha256_;
  // The boxes of the recordings read lately (a batch reads one chunk of each slot's).
  mutable std::mutex boxes_mutex_;
  mutable std::map<int64_t, std::shared_ptr<const detail::Gen4Boxes>> boxes_cache_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
