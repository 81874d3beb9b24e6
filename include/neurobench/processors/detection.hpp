// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>
#include <neurobench/processors/processors.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::processors {

/// Options of BoxNms (the arguments of metavision_ml's `Anchors.decode` that NeuroBench's
/// object detection example passes, with its values as defaults).
struct BoxNmsOptions {
  /// A (box, class) pair is a candidate when its score is at least this (`score >= t`, with `t`
  /// rounded to float32 as PyTorch compares a float32 tensor with a number); a finite number.
  double score_threshold = 0.05;
  /// A candidate is suppressed when its IoU with a kept one of its group is above this (in
  /// double, as torchvision's kernel compares); 0 to 1.
  double nms_threshold = 0.5;
  /// Candidates per image (per time bin and slot): the best by score, chosen before the
  /// suppression, as metavision's `max_boxes_per_input`; 1 to 1,000,000.
  int64_t max_boxes = 500;
  /// Follow torchvision's CPU `batched_nms` where it shifts boxes: with at most 1,000 candidates
  /// in the whole input, one suppression over boxes moved by `group × (largest coordinate + 1)`
  /// in float32. false: one suppression per image and class on the boxes as they are, which is
  /// what torchvision does above 1,000 candidates.
  bool torchvision_offsets = true;
  /// Throws UsageError naming the option at fault.
  void validate() const;
};

/// Detections from a detector's decoded boxes and class scores, as metavision_ml's
/// `Anchors.decode` makes them after it has decoded the box deltas (NeuroBench's object
/// detection example): per image, per class, the candidates with a score of at least
/// `score_threshold` among the `max_boxes` best (box, class) pairs of the image, then
/// non-maximum suppression per image and class at `nms_threshold` with torchvision's
/// `batched_nms` semantics, with its shifted boxes for 1,000 candidates or fewer. See
/// docs/cli.md, "BoxNms: detections for object detection".
///
/// Input: float32 `(batch, tbins, anchors, 4 + classes)`: per slot, time bin and anchor the box
/// `x1, y1, x2, y2` in input pixels, then the score of each class (probabilities without the
/// background column: column `4 + c` is class `c + 1`). Output: float32 `(M, 8)`, one row per
/// detection, `[tbin, slot, x1, y1, x2, y2, class, score]` with class 1..classes, the layout
/// CocoMap takes. Rows are ordered by time bin, then slot, then score from high to low; equal
/// scores keep anchor order, then class order. A tensor on a device is processed on the CPU
/// and the result handed back on that device.
///
/// Throws InputError, naming the tensor and its shape, for another dtype, another number of
/// dimensions or a last dimension of 4 or less; and for a NaN or infinite box or score (with
/// their count and the index of the first).
class BoxNms final : public PostProcessor {
 public:
  /// metavision's values in NeuroBench's example: 0.05, 0.5, 500.
  BoxNms();
  /// Throws UsageError for invalid options.
  explicit BoxNms(BoxNmsOptions options);
  /// From options as the registry takes them (`score_threshold`, `nms_threshold`, `max_boxes`,
  /// `torchvision_offsets`; missing ones take their defaults); throws UsageError for unknown,
  /// mistyped or invalid ones.
  explicit BoxNms(const Json& options);
  /// The name, one line and options that `neurobench list` shows.
  [[nodiscard]] static PluginDescription describe();
  /// Detections `(M, 8)` of `preds` `(batch, tbins, anchors, 4 + classes)`.
  [[nodiscard]] at::Tensor operator()(const at::Tensor& preds) override;
  /// The options in use.
  [[nodiscard]] const BoxNmsOptions& options() const { return options_; }

 private:
  BoxNmsOptions options_;
};

}  // namespace neurobench::processors
NEUROBENCH_API_END
