// SPDX-License-Identifier: Apache-2.0
// BoxNms: metavision_ml's `Anchors.batched_decode` after the box deltas are decoded (per-image
// top-k of (box, class) scores, the score threshold, torchvision's `batched_nms`), written from
// its behaviour (docs/cli.md), checked against torchvision by
// tests/processors/check_box_nms.py.
#include <neurobench/processors/detection.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/registry.hpp>

#include "util/text.hpp"

namespace neurobench::processors {

namespace {
constexpr const char* kBoxNms = "BoxNms";
constexpr int64_t kBoxNmsMaxBoxesLimit = 1000000;
// torchvision's `batched_nms` shifts the boxes (its "coordinate trick") when `boxes.numel()` is
// at most 4000 on the CPU, and calls `nms` per group above that.
constexpr int64_t kBoxNmsOffsetCandidates = 1000;

// One (box, class) pair that passed the per-image top-k and the score threshold.
struct BoxNmsCandidate {
  float score;
  int64_t image;  // metavision's batch index: tbin × slots + slot
  int64_t flat;   // anchor × classes + class (0-based)
  std::array<float, 4> box;
};

BoxNmsOptions box_nms_options_from_json(const Json& options) {
  // Complete already when the registry made them; direct callers get defaults and checks.
  const Json o = detail::complete_options(BoxNms::describe(), options, "post-processor");
  BoxNmsOptions result;
  result.score_threshold = o.at("score_threshold").get<double>();
  result.nms_threshold = o.at("nms_threshold").get<double>();
  result.max_boxes = o.at("max_boxes").get<int64_t>();
  result.torchvision_offsets = o.at("torchvision_offsets").get<bool>();
  return result;
}

// Higher score first; equal scores keep the earlier pair (torch's sorts leave ties unordered).
bool box_nms_ranks_before(const std::pair<float, int64_t>& a, const std::pair<float, int64_t>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// Stops the compiler from fusing a product into the next addition (an FMA on targets that have
// one), so that each float32 operation rounds once, as PyTorch's separate tensor operations do.
float box_nms_rounded(float value) {
  volatile float stored = value;
  return stored;
}

void box_nms_check(const torch::Tensor& preds) {
  if (!preds.defined()) {
    throw InputError(fmt::format("{}: predictions are an undefined tensor", kBoxNms));
  }
  if (preds.scalar_type() != torch::kFloat || preds.dim() != 4 || preds.size(3) <= 4) {
    throw InputError(fmt::format(
        "{}: predictions must be float32 (batch, tbins, anchors, 4 + classes): boxes x1, y1, "
        "x2, y2 then a score per class; got {} of shape {}",
        kBoxNms, c10::toString(preds.scalar_type()), detail::shape_string(preds)));
  }
}

// NaN or infinite values: an InputError with their count and the index of the first.
void box_nms_check_finite(const torch::Tensor& x) {
  const float* data = x.data_ptr<float>();
  const int64_t n = x.numel();
  int64_t bad = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(data[i])) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return;
  const int64_t columns = x.size(3);
  const int64_t anchors = x.size(2);
  const int64_t tbins = x.size(1);
  const int64_t column = first % columns;
  const int64_t anchor = first / columns % anchors;
  const int64_t tbin = first / columns / anchors % tbins;
  const int64_t slot = first / columns / anchors / tbins;
  throw InputError(fmt::format(
      "{}: predictions of shape {} have {} NaN or infinite value{}; the first is {} at [{}, {}, "
      "{}, {}] ({} of slot {}, tbin {}, anchor {})",
      kBoxNms, detail::shape_string(x), bad, bad == 1 ? "" : "s", data[first], slot, tbin, anchor,
      column, column < 4 ? "box coordinate" : fmt::format("score of class {}", column - 3), slot,
      tbin, anchor));
}

// metavision's `_score_filtering_per_image`: the `max_boxes` best (box, class) pairs of each
// image with a score of at least the threshold, images in batch-index order, each image's pairs
// best first.
std::vector<BoxNmsCandidate> box_nms_candidates(const torch::Tensor& x,
                                                const BoxNmsOptions& options) {
  const int64_t slots = x.size(0);
  const int64_t tbins = x.size(1);
  const int64_t anchors = x.size(2);
  const int64_t columns = x.size(3);
  const int64_t classes = columns - 4;
  // PyTorch compares a float32 tensor with a Python number in float32.
  const auto threshold = static_cast<float>(options.score_threshold);
  const float* data = x.data_ptr<float>();
  std::vector<BoxNmsCandidate> out;
  std::vector<std::pair<float, int64_t>> pool;
  for (int64_t t = 0; t < tbins; ++t) {
    for (int64_t s = 0; s < slots; ++s) {
      const float* image = data + (s * tbins + t) * anchors * columns;
      pool.clear();
      for (int64_t a = 0; a < anchors; ++a) {
        for (int64_t c = 0; c < classes; ++c) {
          const float score = image[a * columns + 4 + c];
          if (score >= threshold) pool.emplace_back(score, a * classes + c);
        }
      }
      // Top-k then the threshold (metavision's order) keeps the same pairs as the threshold then
      // top-k: both are the best min(k, passing) pairs.
      const auto keep = static_cast<std::size_t>(options.max_boxes);
      if (pool.size() > keep) {
        std::nth_element(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(keep), pool.end(),
                         box_nms_ranks_before);
        pool.resize(keep);
      }
      std::sort(pool.begin(), pool.end(), box_nms_ranks_before);
      for (const auto& [score, flat] : pool) {
        const float* row = image + flat / classes * columns;
        out.push_back(
            BoxNmsCandidate{score, t * slots + s, flat, {row[0], row[1], row[2], row[3]}});
      }
    }
  }
  return out;
}

// torchvision's CPU `nms` kernel on the candidates `order` (best first) with boxes `boxes`:
// float32 areas and IoU, suppression when the IoU is above the threshold in double.
void box_nms_suppress(const std::vector<int64_t>& order,
                      const std::vector<std::array<float, 4>>& boxes, double threshold,
                      std::vector<char>& kept) {
  std::vector<char> suppressed(order.size(), 0);
  std::vector<float> areas(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& b = boxes[static_cast<std::size_t>(order[k])];
    areas[k] = (b[2] - b[0]) * (b[3] - b[1]);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (suppressed[i]) continue;
    kept[static_cast<std::size_t>(order[i])] = 1;
    const auto& bi = boxes[static_cast<std::size_t>(order[i])];
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      if (suppressed[j]) continue;
      const auto& bj = boxes[static_cast<std::size_t>(order[j])];
      // The kernel's own argument order: it decides which zero a tie of +0 and -0 gives.
      const float xx1 = std::max(bi[0], bj[0]);
      const float yy1 = std::max(bi[1], bj[1]);
      const float xx2 = std::min(bi[2], bj[2]);
      const float yy2 = std::min(bi[3], bj[3]);
      const float w = std::max(0.0F, xx2 - xx1);
      const float h = std::max(0.0F, yy2 - yy1);
      const float inter = box_nms_rounded(w * h);
      const float iou = inter / (areas[i] + areas[j] - inter);
      if (static_cast<double>(iou) > threshold) suppressed[j] = 1;
    }
  }
}

// torchvision's `batched_nms` over every candidate of the input, grouped by image and class
// (metavision's `idxs`, image × classes + class): which candidates are kept.
std::vector<char> box_nms_batched(const std::vector<BoxNmsCandidate>& candidates, int64_t classes,
                                  const BoxNmsOptions& options) {
  const std::size_t n = candidates.size();
  std::vector<char> kept(n, 0);
  if (n == 0) return kept;
  std::vector<std::array<float, 4>> boxes(n);
  for (std::size_t k = 0; k < n; ++k) boxes[k] = candidates[k].box;
  const auto group = [&](std::size_t k) {
    return candidates[k].image * classes + candidates[k].flat % classes;
  };
  if (options.torchvision_offsets && static_cast<int64_t>(n) <= kBoxNmsOffsetCandidates) {
    // The coordinate trick: boxes moved by group × (largest coordinate + 1), all in float32,
    // then one suppression over them all, best score first.
    float largest = boxes[0][0];
    for (const auto& b : boxes) largest = std::max({largest, b[0], b[1], b[2], b[3]});
    const float step = largest + 1.0F;
    for (std::size_t k = 0; k < n; ++k) {
      const float offset = box_nms_rounded(static_cast<float>(group(k)) * step);
      for (float& v : boxes[k]) v = v + offset;
    }
    std::vector<std::pair<float, int64_t>> ranked(n);
    for (std::size_t k = 0; k < n; ++k) {
      ranked[k] = {candidates[k].score, static_cast<int64_t>(k)};
    }
    std::sort(ranked.begin(), ranked.end(), box_nms_ranks_before);
    std::vector<int64_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = ranked[k].second;
    box_nms_suppress(order, boxes, options.nms_threshold, kept);
    return kept;
  }
  // One suppression per group. An image's candidates are contiguous and best first, so a
  // group's, taken in that order, are best first too.
  std::size_t begin = 0;
  std::vector<std::vector<int64_t>> orders(static_cast<std::size_t>(classes));
  while (begin < n) {
    std::size_t end = begin;
    while (end < n && candidates[end].image == candidates[begin].image) ++end;
    for (auto& order : orders) order.clear();
    for (std::size_t k = begin; k < end; ++k) {
      orders[static_cast<std::size_t>(candidates[k].flat % classes)].push_back(
          static_cast<int64_t>(k));
    }
    for (const auto& order : orders) box_nms_suppress(order, boxes, options.nms_threshold, kept);
    begin = end;
  }
  return kept;
}

torch::Tensor box_nms_cpu(const torch::Tensor& preds, const BoxNmsOptions& options) {
  const torch::Tensor x = preds.contiguous();
  box_nms_check_finite(x);
  const int64_t slots = x.size(0);
  const int64_t classes = x.size(3) - 4;
  const std::vector<BoxNmsCandidate> candidates = box_nms_candidates(x, options);
  const std::vector<char> kept = box_nms_batched(candidates, classes, options);
  const auto rows = static_cast<int64_t>(std::count(kept.begin(), kept.end(), 1));
  torch::Tensor out = torch::empty({rows, 8}, torch::kFloat);
  float* o = out.data_ptr<float>();
  // Candidates are in image order (tbin, then slot), each image's best first: the output order.
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    if (!kept[k]) continue;
    const BoxNmsCandidate& c = candidates[k];
    *o++ = static_cast<float>(c.image / slots);
    *o++ = static_cast<float>(c.image % slots);
    for (float v : c.box) *o++ = v;
    *o++ = static_cast<float>(c.flat % classes + 1);
    *o++ = c.score;
  }
  return out;
}

}  // namespace

void BoxNmsOptions::validate() const {
  if (!std::isfinite(score_threshold)) {
    throw UsageError(fmt::format("{}: score_threshold is {}; expected a finite number", kBoxNms,
                                 score_threshold));
  }
  if (!(nms_threshold >= 0 && nms_threshold <= 1)) {
    throw UsageError(fmt::format("{}: nms_threshold is {}; expected a number from 0 to 1", kBoxNms,
                                 nms_threshold));
  }
  if (max_boxes < 1 || max_boxes > kBoxNmsMaxBoxesLimit) {
    throw UsageError(fmt::format("{}: max_boxes is {}; expected 1 to {}", kBoxNms, max_boxes,
                                 kBoxNmsMaxBoxesLimit));
  }
}

BoxNms::BoxNms() : BoxNms(BoxNmsOptions{}) {}

BoxNms::BoxNms(BoxNmsOptions options) : options_(options) { options_.validate(); }

BoxNms::BoxNms(const Json& options) : BoxNms(box_nms_options_from_json(options)) {}

PluginDescription BoxNms::describe() {
  PluginDescription d;
  d.name = kBoxNms;
  d.description =
      "detections from decoded boxes and class scores (batch, tbins, anchors, 4 + classes) -> "
      "(M, 8) [tbin, slot, x1, y1, x2, y2, class, score]: metavision's per-image top-k, score "
      "threshold and torchvision's batched NMS per image and class";
  d.options = {
      {"score_threshold", "number", 0.05, "candidates have a score of at least this"},
      {"nms_threshold", "number", 0.5,
       "suppress a candidate whose IoU with a better one of its image and class is above this"},
      {"max_boxes", "integer", 500,
       "candidates per image (tbin and slot): the best by score, before the suppression"},
      {"torchvision_offsets", "boolean", true,
       "with at most 1000 candidates, shift boxes per group as torchvision's batched_nms does "
       "(false: suppression per image and class on the boxes as they are)"},
  };
  return d;
}

torch::Tensor BoxNms::operator()(const torch::Tensor& preds) {
  box_nms_check(preds);
  if (!preds.device().is_cpu()) {
    return box_nms_cpu(preds.to(c10::kCPU), options_).to(preds.device());
  }
  return box_nms_cpu(preds, options_);
}

}  // namespace neurobench::processors
