// SPDX-License-Identifier: Apache-2.0
// CocoMap and the COCO evaluation under it (src/metrics/coco_eval.hpp) on cases computed by
// hand; tests/metrics/check_coco_map.py compares both with pycocotools' COCOeval on random ones.
#include <neurobench/metrics/builtin.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/keys.hpp>

#include "metrics/coco_eval.hpp"

using neurobench::Json;
using neurobench::WorkloadInput;
namespace coco = neurobench::detail::coco;

namespace {

// COCOeval's precision for a true positive is tp / (fp + tp + np.spacing(1)): a perfect
// detection scores 1 / (1 + eps), not 1 (pycocotools prints it as 1.000).
const double kCocoOne = 1.0 / (1.0 + std::numeric_limits<double>::epsilon());

class CocoTestModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& b) override { return b; }
  std::vector<neurobench::ModuleInfo> modules() const override { return {}; }
  std::string describe() const override { return "coco test model"; }
};

coco::GroundTruth coco_test_gt(int64_t image, double x, double y, double w, double h,
                               bool crowd = false) {
  return coco::GroundTruth{image, 1, coco::Box{x, y, w, h, w * h}, crowd};
}

coco::Detection coco_test_dt(int64_t image, double x, double y, double w, double h, double score) {
  return coco::Detection{image, 1, coco::Box{x, y, w, h, w * h}, score};
}

// One batch of the gen4-detection layout: `slots` slots of one recording each (ids 10, 11,
// ...), all labeled, none padding.
struct CocoTestBatch {
  neurobench::Batch batch;
  CocoTestBatch(int64_t tbins, int64_t slots, int64_t start_us, int64_t delta_us) {
    batch.data = torch::zeros({tbins, slots});
    batch.targets = torch::zeros({0, 7});
    batch.extras["recording"] = torch::arange(10, 10 + slots, torch::kLong);
    batch.extras["padding"] = torch::zeros({slots}, torch::kBool);
    batch.extras["tbin_start_us"] = torch::full({slots}, start_us, torch::kLong);
    batch.extras["delta_t_us"] = torch::full({slots}, delta_us, torch::kLong);
    batch.extras["frame_is_labeled"] = torch::ones({tbins, slots}, torch::kBool);
    batch.extras["starts_recording"] = torch::zeros({slots}, torch::kBool);
  }
  void target(float t, float slot, float x1, float y1, float x2, float y2, float cls) {
    batch.targets = torch::cat({batch.targets, torch::tensor({{t, slot, x1, y1, x2, y2, cls}})});
  }
};

torch::Tensor coco_test_preds(const std::vector<std::vector<float>>& rows) {
  torch::Tensor out = torch::zeros({0, 8});
  for (const auto& r : rows) out = torch::cat({out, torch::tensor(r).reshape({1, 8})});
  return out;
}

Json coco_test_run(neurobench::metrics::CocoMap& m,
                   const std::vector<std::pair<neurobench::Batch, torch::Tensor>>& batches) {
  CocoTestModel model;
  m.reset();
  for (const auto& [batch, preds] : batches) m.update(WorkloadInput{model, preds, batch});
  return m.compute();
}

}  // namespace

TEST_CASE("coco::evaluate: a perfect detection scores 1, its area range alone defined",
          "[metrics][coco]") {
  const auto ev = coco::evaluate(1, {1}, {coco_test_gt(0, 10, 10, 50, 50)},
                                 {coco_test_dt(0, 10, 10, 50, 50, 0.9)});
  REQUIRE(ev.stats[0] == kCocoOne);                         // mAP
  REQUIRE(ev.stats[1] == Approx(kCocoOne).epsilon(1e-15));  // AP50: a mean of 101 of them
  REQUIRE(ev.stats[3] == -1.0);                             // small: no ground truth there
  REQUIRE(ev.stats[4] == kCocoOne);                         // medium: 2500 px
  REQUIRE(ev.stats[5] == -1.0);
  REQUIRE(ev.stats[6] == 1.0);  // AR@1
  REQUIRE(ev.iou_thresholds.size() == 10);
  REQUIRE(ev.iou_thresholds[5] == 0.75);  // found by AP75's equality test
  REQUIRE(ev.recall_thresholds.back() == 1.0);
}

TEST_CASE("coco::evaluate: IoU 0.62 matches at 3 of the 10 thresholds", "[metrics][coco]") {
  const auto ev = coco::evaluate(1, {1}, {coco_test_gt(0, 0, 0, 100, 100)},
                                 {coco_test_dt(0, 0, 0, 100, 62, 0.5)});
  REQUIRE(ev.stats[0] == Approx(0.3).epsilon(1e-12));
  REQUIRE(ev.stats[1] == Approx(kCocoOne).epsilon(1e-15));
  REQUIRE(ev.stats[2] == 0.0);
  REQUIRE(ev.stats[8] == Approx(0.3).epsilon(1e-12));  // AR@100
}

TEST_CASE("coco::evaluate: a false positive ranked first halves the precision, and ties keep order",
          "[metrics][coco]") {
  const auto gt = std::vector<coco::GroundTruth>{coco_test_gt(0, 0, 0, 40, 40)};
  const auto fp = coco_test_dt(0, 200, 200, 40, 40, 0.8);
  const auto tp = coco_test_dt(0, 0, 0, 40, 40, 0.8);
  // Equal scores: the detection given first ranks first (COCOeval's stable mergesort).
  const auto fp_first = coco::evaluate(1, {1}, gt, {fp, tp});
  REQUIRE(fp_first.stats[0] == 0.5);
  REQUIRE(fp_first.stats[6] == 0.0);  // AR@1: only the false positive
  REQUIRE(fp_first.stats[7] == 1.0);  // AR@10
  const auto tp_first = coco::evaluate(1, {1}, gt, {tp, fp});
  REQUIRE(tp_first.stats[0] == kCocoOne);
  // A higher score ranks first whatever the order given.
  auto better_fp = fp;
  better_fp.score = 0.9;
  REQUIRE(coco::evaluate(1, {1}, gt, {tp, better_fp}).stats[0] == 0.5);
  // Across images: the image listed first ranks first among equal scores.
  auto fp_image1 = fp;
  fp_image1.image = 1;
  auto tp_image1 = tp;
  tp_image1.image = 1;
  auto gt_image1 = gt;
  gt_image1[0].image = 1;
  REQUIRE(coco::evaluate(2, {1}, gt_image1, {fp, tp_image1}).stats[0] == 0.5);
  REQUIRE(coco::evaluate(2, {1}, gt, {fp_image1, tp}).stats[0] == kCocoOne);
}

TEST_CASE("coco::evaluate: crowds are ignored and absorb detections, and nothing gives -1",
          "[metrics][coco]") {
  const auto crowd =
      coco::evaluate(1, {1}, {coco_test_gt(0, 0, 0, 100, 100, true)},
                     {coco_test_dt(0, 10, 10, 20, 20, 0.9), coco_test_dt(0, 50, 50, 20, 20, 0.8)});
  for (const double s : crowd.stats) REQUIRE(s == -1.0);  // no ground truth that counts
  // Beside a real box, detections in the crowd are neither true nor false positives.
  const auto mixed = coco::evaluate(
      1, {1}, {coco_test_gt(0, 0, 0, 100, 100, true), coco_test_gt(0, 300, 300, 40, 40)},
      {coco_test_dt(0, 10, 10, 20, 20, 0.9), coco_test_dt(0, 300, 300, 40, 40, 0.5)});
  REQUIRE(mixed.stats[0] == kCocoOne);
  const auto empty = coco::evaluate(0, {1, 2}, {}, {});
  for (const double s : empty.stats) REQUIRE(s == -1.0);
  // Categories not listed are left out; an image out of range is refused.
  REQUIRE(coco::evaluate(1, {2}, {coco_test_gt(0, 0, 0, 9, 9)}, {}).stats[0] == -1.0);
  REQUIRE_THROWS_AS(coco::evaluate(1, {1}, {coco_test_gt(1, 0, 0, 9, 9)}, {}),
                    std::invalid_argument);
}

TEST_CASE("coco::evaluate: an area of exactly 32x32 is both small and medium", "[metrics][coco]") {
  const auto ev =
      coco::evaluate(1, {1}, {coco_test_gt(0, 0, 0, 32, 32)}, {coco_test_dt(0, 0, 0, 32, 32, 0.7)});
  REQUIRE(ev.stats[3] == kCocoOne);
  REQUIRE(ev.stats[4] == kCocoOne);
  REQUIRE(ev.stats[5] == -1.0);
}

TEST_CASE("CocoMap reports COCOeval's twelve figures, mean_ap first, 1 for perfect boxes",
          "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  CocoTestBatch b(2, 2, 1000000, 50000);
  b.target(0, 0, 10, 10, 110, 60, 3);
  b.target(1, 1, 200, 100, 260, 200, 1);
  const auto preds =
      coco_test_preds({{0, 0, 10, 10, 110, 60, 3, 0.9f}, {1, 1, 200, 100, 260, 200, 1, 0.4f}});
  const Json v = coco_test_run(m, {{b.batch, preds}});
  REQUIRE(v.size() == 12);
  REQUIRE(v.begin().key() == neurobench::metrics::keys::kMeanAp);
  REQUIRE(v[neurobench::metrics::keys::kMeanAp].get<double>() == kCocoOne);
  REQUIRE(v[neurobench::metrics::keys::kMeanApSmall].get<double>() == -1.0);
  REQUIRE(v[neurobench::metrics::keys::kMeanAr].get<double>() == 1.0);
}

TEST_CASE("CocoMap skips the first 0.5 s of a recording, padding slots and nothing else",
          "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  // Frames at 400000 and 500000 us; a false positive (score 0.95) in either.
  for (const float fp_tbin : {0.0f, 1.0f}) {
    CocoTestBatch b(2, 1, 400000, 100000);
    b.target(1, 0, 0, 0, 40, 40, 1);
    const auto preds = coco_test_preds(
        {{1, 0, 0, 0, 40, 40, 1, 0.9f}, {fp_tbin, 0, 300, 300, 340, 340, 1, 0.95f}});
    const double ap = coco_test_run(m, {{b.batch, preds}})["mean_ap"].get<double>();
    REQUIRE(ap == (fp_tbin == 0 ? kCocoOne : 0.5));
  }
  // A padding slot's boxes are not looked at.
  CocoTestBatch b(1, 2, 1000000, 50000);
  b.batch.extras["padding"] = torch::tensor({false, true});
  b.target(0, 0, 0, 0, 40, 40, 1);
  b.target(0, 1, 0, 0, 40, 40, 2);
  const auto preds = coco_test_preds({{0, 0, 0, 0, 40, 40, 1, 0.9f}});
  REQUIRE(coco_test_run(m, {{b.batch, preds}})["mean_ap"].get<double>() == kCocoOne);
}

TEST_CASE("CocoMap: detections within 40 ms of a frame count in its image too",
          "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  // A true positive (0.9) at tbin 0 and a false positive (0.95) at tbin 1: 20 ms apart the
  // false positive is in both images (precision 1/3), 50 ms apart in one (1/2).
  for (const int64_t delta : {20000, 50000}) {
    CocoTestBatch b(2, 1, 1000000, delta);
    b.target(0, 0, 0, 0, 40, 40, 2);
    const auto preds =
        coco_test_preds({{0, 0, 0, 0, 40, 40, 2, 0.9f}, {1, 0, 300, 300, 340, 340, 2, 0.95f}});
    const double ap = coco_test_run(m, {{b.batch, preds}})["mean_ap"].get<double>();
    REQUIRE(ap == Approx(delta == 20000 ? 1.0 / 3 : 0.5).epsilon(1e-12));
  }
}

TEST_CASE("CocoMap keeps unlabeled frames as NeuroBench 2 does, or skips them when asked",
          "[metrics][coco_map]") {
  CocoTestBatch b(2, 1, 1000000, 50000);
  b.batch.extras["frame_is_labeled"] = torch::tensor({{true}, {false}});
  b.target(0, 0, 0, 0, 40, 40, 1);
  const auto preds =
      coco_test_preds({{0, 0, 0, 0, 40, 40, 1, 0.9f}, {1, 0, 300, 300, 340, 340, 1, 0.95f}});
  neurobench::metrics::CocoMap keep;
  REQUIRE(coco_test_run(keep, {{b.batch, preds}})["mean_ap"].get<double>() == 0.5);
  neurobench::metrics::CocoMap skip(Json{{"skip_unlabeled_frames", true}});
  REQUIRE(coco_test_run(skip, {{b.batch, preds}})["mean_ap"].get<double>() == kCocoOne);
}

TEST_CASE("CocoMap with no recording or only skipped frames is -1, as CocoEvaluator",
          "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  const Json nothing = coco_test_run(m, {});
  REQUIRE(nothing.size() == 12);
  for (const auto& [key, value] : nothing.items()) REQUIRE(value == -1.0);
  CocoTestBatch b(2, 1, 0, 50000);
  b.target(0, 0, 0, 0, 40, 40, 1);
  const auto preds = coco_test_preds({{0, 0, 0, 0, 40, 40, 1, 0.9f}});
  REQUIRE(coco_test_run(m, {{b.batch, preds}})["mean_ap"].get<double>() == -1.0);
}

TEST_CASE("CocoMap merged from shards equals one process's value", "[metrics][coco_map]") {
  std::vector<std::pair<neurobench::Batch, torch::Tensor>> batches;
  for (int k = 0; k < 3; ++k) {
    CocoTestBatch b(2, 2, 600000 + k * 100000, 50000);
    b.target(0, 0, 10.0f * k, 0, 10.0f * k + 50, 40, 1);
    b.target(1, 1, 100, 100, 180, 150, 3);
    batches.emplace_back(b.batch,
                         coco_test_preds({{0, 0, 10.0f * k + 3, 2, 10.0f * k + 50, 44, 1, 0.5f},
                                          {1, 1, 100, 100, 170, 150, 3, 0.5f},
                                          {1, 0, 0, 0, 30, 30, 1, 0.6f}}));
  }
  neurobench::metrics::CocoMap whole;
  const Json expected = coco_test_run(whole, batches);
  neurobench::metrics::CocoMap first;
  neurobench::metrics::CocoMap second;
  REQUIRE(first.mergeable());
  coco_test_run(first, {batches[0]});
  coco_test_run(second, {batches[1], batches[2]});
  first.merge_state(Json::from_cbor(Json::to_cbor(second.export_state())));
  REQUIRE(first.compute() == expected);
  REQUIRE(expected["mean_ap"].get<double>() > 0);
  REQUIRE(expected["mean_ap"].get<double>() < 1);
  // Merged out of order, the recordings would go back in time.
  neurobench::metrics::CocoMap late;
  coco_test_run(late, {batches[2]});
  REQUIRE_THROWS_WITH(late.merge_state(first.export_state()),
                      Catch::Contains("data order") && Catch::Contains("recording 10"));
  REQUIRE_THROWS_AS(late.merge_state(Json{{"recordings", 3}}), neurobench::MetricError);
}

TEST_CASE("CocoMap refuses detection and target tensors of the wrong layout, naming them",
          "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  CocoTestModel model;
  CocoTestBatch b(2, 2, 1000000, 50000);
  const auto check = [&](const torch::Tensor& preds, const std::string& text) {
    REQUIRE_THROWS_AS(m.update(WorkloadInput{model, preds, b.batch}), neurobench::InputError);
    REQUIRE_THROWS_WITH(m.update(WorkloadInput{model, preds, b.batch}), Catch::Contains(text));
  };
  check(torch::zeros({8}), "predictions of shape [8]");
  check(torch::zeros({3, 7}), "predictions of shape [3, 7]");
  check(torch::zeros({1, 8}, torch::kLong), "dtype Long");
  check(coco_test_preds({{0, 2, 0, 0, 9, 9, 1, 0.5f}}),
        "row 0 has slot 2, expected a whole "
        "number 0 to 1");
  check(coco_test_preds({{2, 0, 0, 0, 9, 9, 1, 0.5f}}), "has tbin 2");
  check(coco_test_preds({{0.5f, 0, 0, 0, 9, 9, 1, 0.5f}}), "has tbin 0.5");
  check(coco_test_preds({{0, 0, 0, 0, 9, 9, 4, 0.5f}}), "has class 4");
  check(coco_test_preds({{0, 0, 0, NAN, 9, 9, 1, 0.5f}}), "row 0 column 3 is nan");
  b.batch.targets = torch::zeros({2, 6});
  check(torch::zeros({0, 8}), "targets of shape [2, 6]");
  b.batch.targets = torch::zeros({0, 7});
  b.batch.extras.erase("delta_t_us");
  check(torch::zeros({0, 8}), "no 'delta_t_us' extra");
  b.batch.extras["delta_t_us"] = torch::zeros({3}, torch::kLong);
  check(torch::zeros({0, 8}), "extra 'delta_t_us' of shape [3]");
  b.batch.extras["delta_t_us"] = torch::zeros({2}, torch::kFloat);
  check(torch::zeros({0, 8}), "dtype Float");
}

TEST_CASE("CocoMap refuses a recording whose boxes go back in time", "[metrics][coco_map]") {
  neurobench::metrics::CocoMap m;
  CocoTestModel model;
  CocoTestBatch later(1, 1, 2000000, 50000);
  later.target(0, 0, 0, 0, 40, 40, 1);
  m.update(WorkloadInput{model, torch::zeros({0, 8}), later.batch});
  CocoTestBatch earlier(1, 1, 1000000, 50000);
  // A frame without boxes may come at any time, as CocoEvaluator only checks the boxes.
  m.update(WorkloadInput{model, torch::zeros({0, 8}), earlier.batch});
  earlier.target(0, 0, 0, 0, 40, 40, 1);
  REQUIRE_THROWS_WITH(
      m.update(WorkloadInput{model, torch::zeros({0, 8}), earlier.batch}),
      Catch::Contains("recording 10 goes back in time") && Catch::Contains("1000000 us"));
}

TEST_CASE("CocoMap is registered with its unit, direction, keys and option",
          "[metrics][coco_map]") {
  const auto& registry = neurobench::workload_metrics();
  REQUIRE(registry.create("coco_map") != nullptr);
  const auto* d = neurobench::find_metric("CocoMap");
  REQUIRE(d != nullptr);
  REQUIRE(d->value.unit == "fraction");
  REQUIRE(d->value.better == neurobench::Better::Higher);
  REQUIRE(d->keys.size() == 12);
  REQUIRE(d->keys.front().first == "mean_ap");
  REQUIRE(d->options.size() == 1);
  REQUIRE(d->options.front().name == "skip_unlabeled_frames");
}
