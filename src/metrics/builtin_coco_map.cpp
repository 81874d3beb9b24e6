// SPDX-License-Identifier: Apache-2.0
// CocoMap: NeuroBench's COCO mAP for event-camera detection (neurobench/metrics/workload/
// coco_map.py) with what Prophesee's CocoEvaluator (metavision_ml/metrics/coco_eval.py) does
// around pycocotools' COCOeval: frames taken per recording, images formed per time stamp,
// detections matched in time. The evaluation itself is metrics/coco_eval.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "metrics/coco_eval.hpp"
#include "util/text.hpp"

namespace neurobench::metrics {

using detail::shape_string;
namespace coco = detail::coco;

namespace {

// coco_map.py: skip_us = 500000, frames before it are left out.
constexpr int64_t kCocoSkipUs = 500000;
// CocoEvaluator's default time_tol (eval_rate -1): detections within +/- 40 ms of an image's
// time stamp belong to it.
constexpr int64_t kCocoTimeTolUs = 40000;
// CocoEvaluator(classes=["background", "pedestrian", "two wheeler", "car"]): category ids 1..4,
// a box's category is its class + 1.
constexpr int64_t kCocoClasses = 4;
constexpr int kCocoTargetColumns = 7;  // tbin, slot, x1, y1, x2, y2, class
constexpr int kCocoPredColumns = 8;    // ... class, score

// A box as EventBbox holds it: float32 corner and size, uint32 class, float32 score.
struct CocoRow {
  int64_t t = 0;
  float x = 0;
  float y = 0;
  float w = 0;
  float h = 0;
  int32_t cls = 0;
  float score = 0;
};

// A detection or target row of a batch, checked, with its frame (tbin, slot).
struct CocoFrameRow {
  int64_t tbin = 0;
  int64_t slot = 0;
  CocoRow box;
};

// box_api.box_vectors_to_bboxes(): x = x1 and w = x2 - x1 computed in the array's dtype,
// then stored as float32.
float coco_extent(double lo, double hi, bool single) {
  return single ? static_cast<float>(hi) - static_cast<float>(lo) : static_cast<float>(hi - lo);
}

// The rows of `t` (`name`: "predictions" or "targets"), checked against the batch's frames.
std::vector<CocoFrameRow> coco_rows(const torch::Tensor& t, const char* name, int columns,
                                    int64_t tbins, int64_t slots) {
  const char* layout = columns == kCocoPredColumns ? "[tbin, slot, x1, y1, x2, y2, class, score]"
                                                   : "[tbin, slot, x1, y1, x2, y2, class]";
  if (!t.defined() || t.dim() != 2 || t.size(1) != columns ||
      (t.scalar_type() != torch::kFloat && t.scalar_type() != torch::kDouble)) {
    throw InputError(fmt::format(
        "CocoMap: {} of shape {} and dtype {}: expected float32 rows (boxes, {}) {}", name,
        t.defined() ? shape_string(t) : "(undefined)",
        t.defined() ? std::string(c10::toString(t.scalar_type())) : "none", columns, layout));
  }
  const bool single = t.scalar_type() == torch::kFloat;
  const torch::Tensor v = t.to(torch::kCPU, torch::kDouble).contiguous();
  const double* p = v.data_ptr<double>();
  std::vector<CocoFrameRow> rows(static_cast<std::size_t>(t.size(0)));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double* row = p + r * columns;
    for (int c = 0; c < columns; ++c) {
      if (!std::isfinite(row[c])) {
        throw InputError(fmt::format("CocoMap: {} of shape {}: row {} column {} is {}", name,
                                     shape_string(t), r, c, row[c]));
      }
    }
    const auto check_index = [&](double value, int64_t count, const char* what) {
      if (value != std::floor(value) || value < 0 || value >= static_cast<double>(count)) {
        throw InputError(fmt::format(
            "CocoMap: {} of shape {}: row {} has {} {}, expected a whole number 0 to {}", name,
            shape_string(t), r, what, value, count - 1));
      }
      return static_cast<int64_t>(value);
    };
    CocoFrameRow& out = rows[r];
    out.tbin = check_index(row[0], tbins, "tbin");
    out.slot = check_index(row[1], slots, "slot");
    out.box.cls = static_cast<int32_t>(check_index(row[6], kCocoClasses, "class"));
    out.box.x = static_cast<float>(row[2]);
    out.box.y = static_cast<float>(row[3]);
    out.box.w = coco_extent(row[2], row[4], single);
    out.box.h = coco_extent(row[3], row[5], single);
    if (columns == kCocoPredColumns) out.box.score = static_cast<float>(row[7]);
  }
  return rows;
}

// One of the batch's extras, checked: 1-d (slots) or 2-d (tbins, slots), bool or integer.
torch::Tensor coco_extra(const Batch& batch, const char* name, bool boolean,
                         std::vector<int64_t> shape) {
  const auto it = batch.extras.find(name);
  if (it == batch.extras.end()) {
    throw InputError(fmt::format(
        "CocoMap: the batch has no '{}' extra; it needs the sequential detection batches of the "
        "gen4-detection data set (recording, padding, tbin_start_us, delta_t_us, "
        "frame_is_labeled)",
        name));
  }
  const torch::Tensor& t = it->second;
  const bool dtype_ok = boolean ? t.scalar_type() == torch::kBool
                                : at::isIntegralType(t.scalar_type(), /*includeBool=*/false);
  bool shape_ok = t.dim() == static_cast<int64_t>(shape.size());
  for (std::size_t d = 0; shape_ok && d < shape.size(); ++d) {
    shape_ok = shape[d] < 0 || t.size(static_cast<int64_t>(d)) == shape[d];
  }
  if (!dtype_ok || !shape_ok) {
    throw InputError(fmt::format("CocoMap: extra '{}' of shape {} and dtype {}: expected {} {}",
                                 name, shape_string(t), c10::toString(t.scalar_type()),
                                 boolean ? "bool" : "int64",
                                 shape.size() == 1 ? "(slots)" : "(tbins, slots)"));
  }
  return t.to(torch::kCPU, boolean ? torch::kBool : torch::kLong).contiguous();
}

}  // namespace

// The boxes of one recording (NeuroBench's dt_detections[name] and gt_detections[name]); the
// time stamps of each list never decrease, as CocoEvaluator asserts.
struct CocoRecording {
  int64_t id = 0;
  std::vector<CocoRow> gt;
  std::vector<CocoRow> dt;
};

struct CocoMap::State {
  std::vector<CocoRecording> recordings;  // in the order first seen (the dicts' order)
  std::unordered_map<int64_t, std::size_t> index;

  CocoRecording& recording(int64_t id) {
    const auto it = index.find(id);
    if (it != index.end()) return recordings[it->second];
    index.emplace(id, recordings.size());
    recordings.push_back(CocoRecording{id, {}, {}});
    return recordings.back();
  }
  // The time stamp of the last ground truth (gt) or detection (!gt) of a recording, if any.
  [[nodiscard]] int64_t last_t(int64_t id, bool gt) const {
    const auto it = index.find(id);
    if (it == index.end()) return std::numeric_limits<int64_t>::min();
    const auto& rows = gt ? recordings[it->second].gt : recordings[it->second].dt;
    return rows.empty() ? std::numeric_limits<int64_t>::min() : rows.back().t;
  }
};

CocoMap::CocoMap() : state_(std::make_unique<State>()) {}

CocoMap::CocoMap(const Json& options) : CocoMap() {
  if (options.is_object() && options.contains("skip_unlabeled_frames")) {
    skip_unlabeled_frames_ = options.at("skip_unlabeled_frames").get<bool>();
  }
}

CocoMap::~CocoMap() = default;

void CocoMap::reset() { *state_ = State{}; }

// coco_map.py __call__: for t, for slot: padding slots are left out (and, with the option,
// unlabeled frames: see docs/metrics.md), the recording is registered, frames before 0.5 s are
// skipped, and the frame's boxes get the time stamp tbin_start + t * delta_t.
void CocoMap::update(const WorkloadInput& in) {
  const torch::Tensor recording = coco_extra(in.batch, "recording", false, {-1});
  const int64_t slots = recording.size(0);
  const torch::Tensor labeled = coco_extra(in.batch, "frame_is_labeled", true, {-1, slots});
  const int64_t tbins = labeled.size(0);
  const torch::Tensor padding = coco_extra(in.batch, "padding", true, {slots});
  const torch::Tensor start = coco_extra(in.batch, "tbin_start_us", false, {slots});
  const torch::Tensor delta = coco_extra(in.batch, "delta_t_us", false, {slots});
  const std::vector<CocoFrameRow> preds =
      coco_rows(in.preds, "predictions", kCocoPredColumns, tbins, slots);
  const std::vector<CocoFrameRow> targets =
      coco_rows(in.batch.targets, "targets", kCocoTargetColumns, tbins, slots);

  // Rows per frame (t * slots + slot), in row order.
  std::vector<std::vector<const CocoRow*>> frame_preds(static_cast<std::size_t>(tbins * slots));
  std::vector<std::vector<const CocoRow*>> frame_targets(frame_preds.size());
  for (const auto& r : preds) frame_preds[r.tbin * slots + r.slot].push_back(&r.box);
  for (const auto& r : targets) frame_targets[r.tbin * slots + r.slot].push_back(&r.box);

  const auto* rec = recording.data_ptr<int64_t>();
  const auto* pad = padding.data_ptr<bool>();
  const auto* lab = labeled.data_ptr<bool>();
  const auto* t0 = start.data_ptr<int64_t>();
  const auto* dt = delta.data_ptr<int64_t>();
  // Checked whole before anything is kept: a batch refused leaves the state as it was. Time
  // order is checked where CocoEvaluator asserts it: on the boxes of each list.
  struct Frame {
    int64_t recording;
    int64_t ts;
    std::size_t frame;
  };
  std::vector<Frame> frames;
  std::vector<int64_t> registered;  // recordings seen, skipped frames included
  std::unordered_map<int64_t, std::pair<int64_t, int64_t>> last_t;  // gt, dt
  for (int64_t t = 0; t < tbins; ++t) {
    for (int64_t i = 0; i < slots; ++i) {
      if (pad[i] || (skip_unlabeled_frames_ && !lab[t * slots + i])) continue;
      registered.push_back(rec[i]);
      const int64_t ts = t0[i] + t * dt[i];
      if (ts < kCocoSkipUs) continue;
      const auto frame = static_cast<std::size_t>(t * slots + i);
      auto known = last_t.find(rec[i]);
      if (known == last_t.end()) {
        known = last_t
                    .emplace(rec[i], std::make_pair(state_->last_t(rec[i], true),
                                                    state_->last_t(rec[i], false)))
                    .first;
      }
      for (const bool gt : {true, false}) {
        if ((gt ? frame_targets : frame_preds)[frame].empty()) continue;
        int64_t& last = gt ? known->second.first : known->second.second;
        if (ts < last) {
          throw InputError(fmt::format(
              "CocoMap: recording {} goes back in time: {} at {} us (slot {}, tbin {}) after {} "
              "at {} us; each recording's frames must come in time order",
              rec[i], gt ? "targets" : "predictions", ts, i, t, gt ? "targets" : "predictions",
              last));
        }
        last = ts;
      }
      frames.push_back(Frame{rec[i], ts, frame});
    }
  }
  for (const int64_t id : registered) (void)state_->recording(id);
  for (const Frame& f : frames) {
    CocoRecording& r = state_->recording(f.recording);
    for (const CocoRow* box : frame_targets[f.frame]) {
      r.gt.push_back(*box);
      r.gt.back().t = f.ts;
    }
    for (const CocoRow* box : frame_preds[f.frame]) {
      r.dt.push_back(*box);
      r.dt.back().t = f.ts;
    }
  }
}

namespace {

coco::Box coco_box(const CocoRow& r) {
  // _to_coco_format(): bbox [x, y, w, h] of float32 values, area = w * h in float32.
  return coco::Box{r.x, r.y, r.w, r.h, static_cast<double>(r.w * r.h)};
}

}  // namespace

// CocoEvaluator.partial_eval() per recording, then accumulate(): images are the distinct time
// stamps of a recording's boxes (ground truth or detections) in order, recordings in the order
// first seen, numbered on; an image holds the ground truth at its time stamp and the
// detections within kCocoTimeTolUs of it (match_times()).
Json CocoMap::compute() const {
  std::array<double, coco::kStatCount> stats{};
  if (state_->recordings.empty()) {
    stats.fill(-1.0);  // accumulate(): "No boxes were added to the evaluation"
  } else {
    std::vector<coco::GroundTruth> gts;
    std::vector<coco::Detection> dts;
    int64_t images = 0;
    for (const CocoRecording& r : state_->recordings) {
      std::vector<int64_t> all_ts;
      for (const auto& b : r.gt) all_ts.push_back(b.t);
      for (const auto& b : r.dt) all_ts.push_back(b.t);
      std::sort(all_ts.begin(), all_ts.end());
      all_ts.erase(std::unique(all_ts.begin(), all_ts.end()), all_ts.end());
      std::size_t low_gt = 0, high_gt = 0, low_dt = 0, high_dt = 0;
      for (const int64_t ts : all_ts) {
        while (low_gt < r.gt.size() && r.gt[low_gt].t < ts) ++low_gt;
        high_gt = std::max(low_gt, high_gt);
        while (high_gt < r.gt.size() && r.gt[high_gt].t <= ts) ++high_gt;
        while (low_dt < r.dt.size() && r.dt[low_dt].t < ts - kCocoTimeTolUs) ++low_dt;
        high_dt = std::max(low_dt, high_dt);
        while (high_dt < r.dt.size() && r.dt[high_dt].t <= ts + kCocoTimeTolUs) ++high_dt;
        for (std::size_t j = low_gt; j < high_gt; ++j) {
          gts.push_back(coco::GroundTruth{images, r.gt[j].cls + 1, coco_box(r.gt[j]), false});
        }
        for (std::size_t j = low_dt; j < high_dt; ++j) {
          dts.push_back(coco::Detection{images, r.dt[j].cls + 1, coco_box(r.dt[j]),
                                        static_cast<double>(r.dt[j].score)});
        }
        ++images;
      }
    }
    std::vector<int64_t> categories;
    for (int64_t c = 1; c <= kCocoClasses; ++c) categories.push_back(c);
    stats = coco::evaluate(images, categories, gts, dts).stats;
  }
  Json out = Json::object();
  for (std::size_t s = 0; s < stats.size(); ++s) out[keys::kCocoMapKeys[s]] = stats[s];
  return out;
}

namespace {

// A recording's boxes as state tensors: time stamps int64 (n), the rest float32 (n, 6):
// x, y, w, h, class, score, so that they come back bit for bit.
Json coco_rows_state(const std::vector<CocoRow>& rows) {
  const auto n = static_cast<int64_t>(rows.size());
  torch::Tensor t = torch::empty({n}, torch::kLong);
  torch::Tensor v = torch::empty({n, 6}, torch::kFloat);
  auto* tp = t.data_ptr<int64_t>();
  auto* vp = v.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const CocoRow& r = rows[static_cast<std::size_t>(i)];
    tp[i] = r.t;
    const float values[6] = {r.x, r.y, r.w, r.h, static_cast<float>(r.cls), r.score};
    std::copy(values, values + 6, vp + i * 6);
  }
  return Json{{"t", tensor_state(t)}, {"boxes", tensor_state(v)}};
}

std::vector<CocoRow> coco_rows_from_state(const Json& state) {
  if (!state.is_object() || !state.contains("t") || !state.contains("boxes")) {
    throw MetricError("CocoMap: a shard's recording lacks 't' or 'boxes'");
  }
  const torch::Tensor t = tensor_from_state(state["t"], "CocoMap");
  const torch::Tensor v = tensor_from_state(state["boxes"], "CocoMap");
  if (t.scalar_type() != torch::kLong || t.dim() != 1 || v.scalar_type() != torch::kFloat ||
      v.dim() != 2 || v.size(0) != t.size(0) || v.size(1) != 6) {
    throw MetricError(fmt::format("CocoMap: a shard's boxes of shapes {} and {} are malformed",
                                  shape_string(t), shape_string(v)));
  }
  std::vector<CocoRow> rows(static_cast<std::size_t>(t.size(0)));
  const auto* tp = t.data_ptr<int64_t>();
  const auto* vp = v.data_ptr<float>();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && tp[i] < tp[i - 1]) {
      throw MetricError("CocoMap: a shard's recording has boxes out of time order");
    }
    const float* r = vp + i * 6;
    rows[i] = CocoRow{tp[i], r[0], r[1], r[2], r[3], static_cast<int32_t>(r[4]), r[5]};
  }
  return rows;
}

}  // namespace

// Sharded runs: each recording's boxes, recordings in the order first seen. Shards are merged
// in data order, so appending reproduces a single process's lists and order.
Json CocoMap::export_state() const {
  Json recordings = Json::array();
  for (const CocoRecording& r : state_->recordings) {
    recordings.push_back(
        Json{{"id", r.id}, {"gt", coco_rows_state(r.gt)}, {"dt", coco_rows_state(r.dt)}});
  }
  return Json{{"recordings", std::move(recordings)}};
}

void CocoMap::merge_state(const Json& state) {
  if (!state.is_object() || !state.contains("recordings") || !state["recordings"].is_array()) {
    throw MetricError("CocoMap: a shard's state has no 'recordings' array");
  }
  // Read whole before anything is kept: a state refused leaves the boxes as they were.
  std::vector<CocoRecording> incoming;
  for (const Json& r : state["recordings"]) {
    if (!r.is_object() || !r.contains("gt") || !r.contains("dt")) {
      throw MetricError("CocoMap: a shard's state holds a malformed recording");
    }
    CocoRecording rec;
    rec.id = state_integer(r, "id", "CocoMap");
    rec.gt = coco_rows_from_state(r["gt"]);
    rec.dt = coco_rows_from_state(r["dt"]);
    for (const bool gt : {true, false}) {
      const auto& rows = gt ? rec.gt : rec.dt;
      const int64_t before = state_->last_t(rec.id, gt);
      if (!rows.empty() && rows.front().t < before) {
        throw MetricError(fmt::format(
            "CocoMap: a shard's recording {} has {} from {} us, before this one's last at {} "
            "us: shards must be merged in data order",
            rec.id, gt ? "targets" : "predictions", rows.front().t, before));
      }
    }
    incoming.push_back(std::move(rec));
  }
  for (CocoRecording& rec : incoming) {
    CocoRecording& mine = state_->recording(rec.id);
    mine.gt.insert(mine.gt.end(), rec.gt.begin(), rec.gt.end());
    mine.dt.insert(mine.dt.end(), rec.dt.begin(), rec.dt.end());
  }
}

MetricDescription CocoMap::describe() {
  MetricDescription d(
      "COCO mean average precision of detections, as NeuroBench's CocoMap (COCOeval through "
      "metavision's CocoEvaluator); mean_ap is NeuroBench's value");
  d.with_unit("fraction").higher_is_better();
  const char* what[coco::kStatCount] = {
      "AP over IoU 0.50:0.95, all areas, 100 detections (NeuroBench's value)",
      "AP at IoU 0.50",
      "AP at IoU 0.75",
      "AP of small boxes (area under 32x32)",
      "AP of medium boxes (32x32 to 96x96)",
      "AP of large boxes (over 96x96)",
      "AR with 1 detection per image",
      "AR with 10 detections per image",
      "AR with 100 detections per image",
      "AR of small boxes",
      "AR of medium boxes",
      "AR of large boxes"};
  for (int s = 0; s < coco::kStatCount; ++s) {
    d.with_key(keys::kCocoMapKeys[s], "fraction", Better::Higher, what[s]);
  }
  d.with_option("skip_unlabeled_frames", "boolean", false,
                "leave out frames frame_is_labeled marks unlabeled, as NeuroBench 1.0.2 did "
                "(NeuroBench 2.x keeps them)");
  return d;
}

}  // namespace neurobench::metrics
