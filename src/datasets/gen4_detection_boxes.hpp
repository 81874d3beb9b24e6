// SPDX-License-Identifier: Apache-2.0
#pragma once

// The boxes of Prophesee's Gen4 automotive recordings (`_bbox.npy`) and what metavision_ml's
// `box_processing.load_boxes` makes of them for one chunk of a sequential batch, as NeuroBench's
// Gen4DetectionDataLoader configures it. Private to the library (src/).

#include <cstdint>
#include <filesystem>
#include <vector>

namespace neurobench::detail {

/// A recording's boxes as metavision's `EventBbox` holds them (`t` int64, `x, y, w, h`
/// float32, `class_id`, `track_id` uint32, `class_confidence` float32), sorted as
/// `load_box_events` sorts them: by every field in that order.
struct Gen4Boxes {
  std::vector<int64_t> t;
  std::vector<float> x, y, w, h;
  std::vector<std::uint32_t> class_id, track_id;
  std::vector<float> confidence;

  [[nodiscard]] std::size_t size() const { return t.size(); }
};

/// Reads a structured `_bbox.npy` file: fields `t` (or `ts`), `x`, `y`, `w`, `h`, `class_id`,
/// and optionally `track_id`, `class_confidence` (or `confidence`); other fields are ignored.
/// Throws InputError naming the file (and the box) when it is missing or not a 1-D structured
/// array, lacks a field, has a class id not below `classes`, a negative time, a non-finite
/// coordinate or a negative size, or a box wholly outside the `sensor_width` x
/// `sensor_height` frame.
[[nodiscard]] Gen4Boxes read_gen4_boxes(const std::filesystem::path& file, int64_t sensor_width,
                                        int64_t sensor_height, int64_t classes);

/// How load_boxes treats the boxes of one chunk.
struct Gen4BoxRules {
  int64_t sensor_width = 1280;  ///< The frame the boxes are in (the camera's pixels).
  int64_t sensor_height = 720;
  int64_t width = 640;  ///< The histograms' frame: boxes are rescaled to it.
  int64_t height = 360;
  int64_t channels = 2;
  int64_t num_tbins = 12;
  int64_t delta_t_us = 50000;
  int64_t min_box_diag = 60;  ///< NeuroBench's `min_box_diag_network`, in the histograms' pixels.
  std::vector<int64_t> class_lookup;  ///< Source class id to label (> 0), or -1 to drop.
};

/// The boxes of one chunk: `(tbin, x1, y1, x2, y2, label)` rows (x2 = x + w in float32) in bin
/// order, and whether each bin had any box before filtering.
struct Gen4ChunkBoxes {
  std::vector<float> rows;
  std::vector<bool> frame_is_labeled;
};

/// load_boxes for the chunk of `rules.num_tbins` bins from `start_us`, whose histograms are
/// `histograms` `(num_tbins, channels, height, width)`: boxes in `[start_us, start_us + T *
/// delta_t)`, clipped to the sensor, those over nearly empty histograms dropped in the first
/// 0.5 s, classes looked up, split into bins `(start + k dt, start + (k + 1) dt]` with a
/// non-maximum suppression by time, rescaled and filtered by size.
[[nodiscard]] Gen4ChunkBoxes gen4_chunk_boxes(const Gen4Boxes& boxes, int64_t start_us,
                                              const float* histograms, const Gen4BoxRules& rules);

/// The permutation NumPy 1.24's `argsort` (its introsort, `kind="quicksort"`) gives for int64
/// values, ties included.
[[nodiscard]] std::vector<int64_t> numpy_argsort(const std::vector<int64_t>& values);

}  // namespace neurobench::detail
