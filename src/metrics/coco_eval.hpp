// SPDX-License-Identifier: Apache-2.0
#pragma once

// COCO's bounding-box evaluation, as pycocotools' COCOeval computes it (iouType 'bbox', default
// parameters): evaluate(), accumulate() and summarize() on boxes given as values, without the
// COCO data structures. Used by the CocoMap metric (builtin_coco_map.cpp); reusable by any
// detection metric that reports COCO's numbers.

#include <array>
#include <cstdint>
#include <vector>

namespace neurobench::detail::coco {

/// A box as COCO stores it: corner, width and height (`bbox: [x, y, w, h]`), and the `area`
/// field that COCOeval compares with the area ranges (not recomputed from w and h: COCO takes
/// the annotation's own).
struct Box {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
  double area = 0;
};

/// A ground-truth annotation. `crowd` is COCO's `iscrowd`: the box is ignored, matches any
/// number of detections, and its IoU is the intersection over the detection's area.
struct GroundTruth {
  int64_t image = 0;     ///< Index of the image, 0 to images - 1.
  int64_t category = 0;  ///< COCO category id; ids not in the evaluated list are left out.
  Box box;
  bool crowd = false;
};

/// A detection with its score.
struct Detection {
  int64_t image = 0;
  int64_t category = 0;
  Box box;
  double score = 0;
};

/// COCOeval's default parameters for boxes.
inline constexpr int kIouThresholdCount = 10;      ///< T: 0.50:0.05:0.95
inline constexpr int kRecallThresholdCount = 101;  ///< R: 0:0.01:1
inline constexpr int kAreaRangeCount = 4;          ///< A: all, small, medium, large
inline constexpr int kMaxDetsCount = 3;            ///< M: 1, 10, 100
inline constexpr int kStatCount = 12;              ///< COCOeval.stats for boxes

/// What accumulate() and summarize() produce. Undefined entries are -1, as in COCOeval.
struct Evaluation {
  std::vector<double> iou_thresholds;     ///< As np.linspace(.5, .95, 10) computes them.
  std::vector<double> recall_thresholds;  ///< As np.linspace(0, 1, 101) computes them.
  std::vector<int64_t> categories;        ///< Sorted, as COCOeval's params.catIds.
  /// `eval['precision']`, (T, R, K, A, M) row-major.
  std::vector<double> precision;
  /// `eval['recall']`, (T, K, A, M) row-major.
  std::vector<double> recall;
  /// `stats`: AP@[.5:.95], AP@.5, AP@.75, AP small, medium, large (100 detections), AR with 1,
  /// 10 and 100 detections, AR small, medium, large (100 detections).
  std::array<double, kStatCount> stats{};
};

/// Evaluates `detections` against `ground_truth` on images 0 to `images` - 1 (in that order,
/// which decides ties in score between images, as COCOeval's image id order does) and the
/// given categories. Annotations and detections of an image keep their order within it (ties
/// in score within an image: the first given ranks first). Throws std::invalid_argument for an
/// image index out of range.
[[nodiscard]] Evaluation evaluate(int64_t images, std::vector<int64_t> categories,
                                  const std::vector<GroundTruth>& ground_truth,
                                  const std::vector<Detection>& detections);

}  // namespace neurobench::detail::coco
