// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/detection.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/processors/processors.hpp>

namespace {

using neurobench::processors::BoxNms;
using neurobench::processors::BoxNmsOptions;

// One anchor of a detector's output: its box and a score per class.
struct NmsAnchor {
  std::vector<float> box;     // x1, y1, x2, y2
  std::vector<float> scores;  // one per class
};

// preds (slots, tbins, anchors, 4 + classes) from images[slot][tbin] = its anchors.
torch::Tensor nms_preds(const std::vector<std::vector<std::vector<NmsAnchor>>>& images) {
  const auto slots = static_cast<int64_t>(images.size());
  const auto tbins = static_cast<int64_t>(images[0].size());
  const auto anchors = static_cast<int64_t>(images[0][0].size());
  const auto classes = static_cast<int64_t>(images[0][0][0].scores.size());
  std::vector<float> values;
  for (const auto& slot : images) {
    for (const auto& image : slot) {
      for (const NmsAnchor& a : image) {
        values.insert(values.end(), a.box.begin(), a.box.end());
        values.insert(values.end(), a.scores.begin(), a.scores.end());
      }
    }
  }
  return torch::tensor(values).reshape({slots, tbins, anchors, 4 + classes});
}

// The output's rows as vectors, to compare with hand-computed ones.
std::vector<std::vector<float>> nms_rows(const torch::Tensor& out) {
  REQUIRE(out.dim() == 2);
  REQUIRE(out.size(1) == 8);
  REQUIRE(out.scalar_type() == torch::kFloat);
  std::vector<std::vector<float>> rows;
  const torch::Tensor c = out.contiguous();
  for (int64_t r = 0; r < c.size(0); ++r) {
    const float* p = c.data_ptr<float>() + r * 8;
    rows.emplace_back(p, p + 8);
  }
  return rows;
}

using NmsRows = std::vector<std::vector<float>>;

}  // namespace

TEST_CASE("BoxNms suppresses an overlapping box of the same class, not of another class",
          "[processors][detection]") {
  BoxNms nms;
  // IoU(a0, a1) = 90 / 110 > 0.5; IoU(a0, a2) = 50 / 150.
  const torch::Tensor one_class =
      nms_preds({{{{{0, 0, 10, 10}, {0.9F}}, {{1, 0, 11, 10}, {0.8F}}, {{5, 0, 15, 10}, {0.7F}}}}});
  CHECK(nms_rows(nms(one_class)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, 0.9F},  //
                                            {0, 0, 5, 0, 15, 10, 1, 0.7F}});
  // a1 as class 2: its own group, kept; a2 is suppressed by nothing of class 2.
  const torch::Tensor two_classes = nms_preds({{{{{0, 0, 10, 10}, {0.9F, 0.0F}},
                                                 {{1, 0, 11, 10}, {0.0F, 0.8F}},
                                                 {{5, 0, 15, 10}, {0.7F, 0.0F}}}}});
  CHECK(nms_rows(nms(two_classes)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, 0.9F},
                                              {0, 0, 1, 0, 11, 10, 2, 0.8F},
                                              {0, 0, 5, 0, 15, 10, 1, 0.7F}});
  // One anchor, both classes above the threshold: two detections of the same box.
  const torch::Tensor both = nms_preds({{{{{0, 0, 10, 10}, {0.3F, 0.6F}}}}});
  CHECK(nms_rows(nms(both)) == NmsRows{{0, 0, 0, 0, 10, 10, 2, 0.6F},  //
                                       {0, 0, 0, 0, 10, 10, 1, 0.3F}});
}

TEST_CASE("BoxNms keeps a box whose IoU equals the threshold and suppresses above it",
          "[processors][detection]") {
  // IoU = 100 / (100 + 200 - 100) = 0.5 exactly.
  const torch::Tensor preds = nms_preds({{{{{0, 0, 10, 10}, {0.9F}}, {{0, 0, 10, 20}, {0.8F}}}}});
  CHECK(BoxNms()(preds).size(0) == 2);
  BoxNmsOptions options;
  options.nms_threshold = 0.49;
  CHECK(nms_rows(BoxNms(options)(preds)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, 0.9F}});
}

TEST_CASE("BoxNms keeps scores at the threshold, compared in float32 as PyTorch compares",
          "[processors][detection]") {
  const float at = 0.05F;
  const float below = std::nextafter(at, 0.0F);
  const torch::Tensor preds = nms_preds(
      {{{{{0, 0, 10, 10}, {at}}, {{20, 0, 30, 10}, {below}}, {{40, 0, 50, 10}, {0.04F}}}}});
  CHECK(nms_rows(BoxNms()(preds)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, at}});
  // 0.7 rounds down in float32: the score 0.7F is below the double 0.7 but kept.
  BoxNmsOptions options;
  options.score_threshold = 0.7;
  const torch::Tensor seven = nms_preds({{{{{0, 0, 10, 10}, {0.7F}}}}});
  REQUIRE(static_cast<double>(0.7F) < 0.7);
  CHECK(BoxNms(options)(seven).size(0) == 1);
  options.score_threshold = 0.71;
  CHECK(BoxNms(options)(seven).size(0) == 0);
}

TEST_CASE("BoxNms breaks ties in score by anchor, then class", "[processors][detection]") {
  // Equal scores: a1 comes before a3 and suppresses it (IoU 100 / 110); a0's class-2 box of the
  // same score is listed first, its anchor being first.
  const torch::Tensor preds = nms_preds({{{{{50, 50, 60, 60}, {0.0F, 0.6F}},
                                           {{0, 0, 10, 10}, {0.6F, 0.0F}},
                                           {{100, 0, 110, 10}, {0.2F, 0.0F}},
                                           {{0, 0, 10, 11}, {0.6F, 0.0F}}}}});
  CHECK(nms_rows(BoxNms()(preds)) == NmsRows{{0, 0, 50, 50, 60, 60, 2, 0.6F},
                                             {0, 0, 0, 0, 10, 10, 1, 0.6F},
                                             {0, 0, 100, 0, 110, 10, 1, 0.2F}});
  // At the max_boxes cut too: of two disjoint boxes of equal score, the first anchor's.
  BoxNmsOptions options;
  options.max_boxes = 1;
  const torch::Tensor cut =
      nms_preds({{{{{0, 0, 10, 10}, {0.4F, 0.4F}}, {{20, 0, 30, 10}, {0.4F, 0.4F}}}}});
  CHECK(nms_rows(BoxNms(options)(cut)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, 0.4F}});
}

TEST_CASE("BoxNms takes max_boxes per image before the suppression and orders by tbin, slot",
          "[processors][detection]") {
  // 2 slots × 2 tbins; in each image a0 and a1 overlap (IoU 90 / 110), a2 is apart.
  const auto image = [](float s0, float s1, float s2) {
    return std::vector<NmsAnchor>{
        {{0, 0, 10, 10}, {s0}}, {{1, 0, 11, 10}, {s1}}, {{40, 0, 50, 10}, {s2}}};
  };
  const torch::Tensor preds = nms_preds({{image(0.9F, 0.8F, 0.7F), image(0.3F, 0.2F, 0.6F)},
                                         {image(0.5F, 0.95F, 0.1F), image(0.0F, 0.0F, 0.0F)}});
  const NmsRows all{{0, 0, 0, 0, 10, 10, 1, 0.9F},  {0, 0, 40, 0, 50, 10, 1, 0.7F},
                    {0, 1, 1, 0, 11, 10, 1, 0.95F}, {0, 1, 40, 0, 50, 10, 1, 0.1F},
                    {1, 0, 40, 0, 50, 10, 1, 0.6F}, {1, 0, 0, 0, 10, 10, 1, 0.3F}};
  CHECK(nms_rows(BoxNms()(preds)) == all);
  // Two candidates per image: the two best, a0 and a1, of which NMS keeps one.
  BoxNmsOptions options;
  options.max_boxes = 2;
  CHECK(nms_rows(BoxNms(options)(preds)) == NmsRows{{0, 0, 0, 0, 10, 10, 1, 0.9F},
                                                    {0, 1, 1, 0, 11, 10, 1, 0.95F},
                                                    {1, 0, 40, 0, 50, 10, 1, 0.6F},
                                                    {1, 0, 0, 0, 10, 10, 1, 0.3F}});
}

TEST_CASE("BoxNms gives an empty (0, 8) tensor when nothing passes", "[processors][detection]") {
  const torch::Tensor low = nms_preds({{{{{0, 0, 10, 10}, {0.01F, 0.02F}}}}});
  const torch::Tensor out = BoxNms()(low);
  CHECK(out.sizes() == torch::IntArrayRef({0, 8}));
  CHECK(out.scalar_type() == torch::kFloat);
  CHECK(BoxNms()(torch::zeros({2, 3, 0, 7})).sizes() == torch::IntArrayRef({0, 8}));
  CHECK(BoxNms()(torch::zeros({0, 3, 5, 7})).sizes() == torch::IntArrayRef({0, 8}));
}

TEST_CASE("BoxNms shifts boxes per group as torchvision does, unless told not to",
          "[processors][detection]") {
  // Class 2's box, moved by 1 × (largest coordinate 100 + 1) on every coordinate, lands on
  // class 1's box (IoU 90 / 110): torchvision's batched_nms suppresses across the classes.
  const torch::Tensor preds =
      nms_preds({{{{{90, 0, 100, 10}, {0.8F, 0.0F}}, {{-10, -101, 0, -91}, {0.0F, 0.9F}}}}});
  CHECK(nms_rows(BoxNms()(preds)) == NmsRows{{0, 0, -10, -101, 0, -91, 2, 0.9F}});
  BoxNmsOptions options;
  options.torchvision_offsets = false;
  CHECK(BoxNms(options)(preds).size(0) == 2);
  // Above 1,000 candidates (here in one image) torchvision runs NMS per group, without the shift.
  torch::Tensor many = torch::zeros({1, 1, 1002, 6});
  many.index_put_({0, 0, 0}, torch::tensor({90.F, 0.F, 100.F, 10.F, 0.8F, 0.F}));
  many.index_put_({0, 0, 1}, torch::tensor({-10.F, -101.F, 0.F, -91.F, 0.F, 0.9F}));
  for (int64_t a = 2; a < 1002; ++a) {
    const auto x = static_cast<float>(a * 20);
    many.index_put_({0, 0, a}, torch::tensor({x, 0.F, x + 10, 10.F, 0.5F, 0.F}));
  }
  options.torchvision_offsets = true;
  options.max_boxes = 2000;
  CHECK(BoxNms(options)(many).size(0) == 1002);
}

TEST_CASE("BoxNms rounds the shifted boxes in float32 as torchvision does",
          "[processors][detection]") {
  // IoU just above 0.5 as they are; just under once shifted by group 299 (bin 24, slot 3,
  // class 3) × 604.68 in float32: torchvision 0.14's batched_nms keeps both (found by a search
  // with it; tests/processors/check_box_nms.py's shift_rounding).
  torch::Tensor preds = torch::zeros({4, 25, 2, 7});
  using torch::indexing::Ellipsis;
  using torch::indexing::Slice;
  preds.index_put_({Ellipsis, Slice(0, 4)},
                   torch::tensor({557.0856323242188F, 307.01507568359375F, 592.0350341796875F,
                                  326.16656494140625F, 568.7308959960938F, 307.01507568359375F,
                                  603.6802978515625F, 326.16656494140625F})
                       .reshape({2, 4}));
  preds.index_put_({3, 24, Slice(), 6}, torch::tensor({0.9F, 0.8F}));
  CHECK(BoxNms()(preds).size(0) == 2);
  BoxNmsOptions options;
  options.torchvision_offsets = false;
  CHECK(nms_rows(BoxNms(options)(preds)) ==
        NmsRows{{24, 3, 557.0856323242188F, 307.01507568359375F, 592.0350341796875F,
                 326.16656494140625F, 3, 0.9F}});
}

TEST_CASE("BoxNms hands the detections of a tensor on a device back on that device",
          "[processors][detection][device]") {
  const c10::Device lazy(c10::DeviceType::Lazy, 0);
  neurobench::check_device(lazy);
  torch::manual_seed(3);
  torch::Tensor preds = torch::rand({2, 3, 40, 7});
  using torch::indexing::Ellipsis;
  using torch::indexing::Slice;
  preds.index_put_({Ellipsis, Slice(2, 4)}, preds.index({Ellipsis, Slice(0, 2)}) + 0.2);
  preds = preds * torch::tensor({100.F, 100.F, 100.F, 100.F, 1.F, 1.F, 1.F});
  const torch::Tensor expected = BoxNms()(preds);
  REQUIRE(expected.size(0) > 10);
  const torch::Tensor got = BoxNms()(preds.to(lazy));
  CHECK(got.device() == lazy);
  CHECK(got.to(c10::kCPU).equal(expected));
}

TEST_CASE("BoxNms refuses a tensor of another layout, naming its shape",
          "[processors][detection]") {
  BoxNms nms;
  REQUIRE_THROWS_AS(nms(torch::zeros({2, 3, 7})), neurobench::InputError);
  REQUIRE_THROWS_WITH(nms(torch::zeros({2, 3, 7})),
                      Catch::Contains("BoxNms") && Catch::Contains("[2, 3, 7]"));
  REQUIRE_THROWS_WITH(nms(torch::zeros({2, 3, 5, 4})),
                      Catch::Contains("4 + classes") && Catch::Contains("[2, 3, 5, 4]"));
  REQUIRE_THROWS_WITH(nms(torch::zeros({2, 3, 5, 7}, torch::kDouble)),
                      Catch::Contains("float32") && Catch::Contains("Double"));
  REQUIRE_THROWS_AS(nms(torch::Tensor()), neurobench::InputError);
}

TEST_CASE("BoxNms refuses NaN and infinite boxes and scores, naming the first",
          "[processors][detection]") {
  BoxNms nms;
  torch::Tensor preds = torch::zeros({2, 3, 5, 7});
  preds.index_put_({1, 2, 4, 5}, std::numeric_limits<float>::quiet_NaN());
  REQUIRE_THROWS_AS(nms(preds), neurobench::InputError);
  REQUIRE_THROWS_WITH(nms(preds), Catch::Contains("1 NaN or infinite value;") &&
                                      Catch::Contains("[1, 2, 4, 5]") &&
                                      Catch::Contains("score of class 2"));
  preds.index_put_({0, 1, 0, 2}, std::numeric_limits<float>::infinity());
  REQUIRE_THROWS_WITH(nms(preds), Catch::Contains("2 NaN or infinite values") &&
                                      Catch::Contains("[0, 1, 0, 2]") &&
                                      Catch::Contains("box coordinate"));
}

TEST_CASE("BoxNms is a registered post-processor with checked options", "[processors][detection]") {
  auto made = neurobench::post_processors().create(
      "box_nms", neurobench::Json{{"score_threshold", 0.3}, {"max_boxes", 7}});
  const auto* nms = dynamic_cast<const BoxNms*>(made.get());
  REQUIRE(nms != nullptr);
  CHECK(nms->options().score_threshold == 0.3);
  CHECK(nms->options().nms_threshold == 0.5);
  CHECK(nms->options().max_boxes == 7);
  CHECK(nms->options().torchvision_offsets);
  const auto bad = [](const char* key, neurobench::Json value) {
    return BoxNms(neurobench::Json{{key, std::move(value)}});
  };
  REQUIRE_THROWS_WITH(bad("nms_threshold", 1.5), Catch::Contains("nms_threshold is 1.5"));
  REQUIRE_THROWS_AS(bad("nms_threshold", -0.1), neurobench::UsageError);
  REQUIRE_THROWS_WITH(bad("max_boxes", 0), Catch::Contains("max_boxes is 0"));
  REQUIRE_THROWS_AS(bad("max_boxes", 0.5), neurobench::UsageError);
  REQUIRE_THROWS_AS(bad("top_k", 3), neurobench::UsageError);
  BoxNmsOptions options;
  options.score_threshold = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(BoxNms(options), Catch::Contains("score_threshold is inf"));
}
