// SPDX-License-Identifier: Apache-2.0
// tonic's ToFrame in C++ on events small enough to work out by hand: which frame an event on a
// bin edge lands in, the dropped last event, windows, counts, overlaps, one polarity, and every
// option and input refused. The whole pipeline against tonic's semantics is in
// tests/datasets/dvs_gesture_test.cpp and check_dvs_gesture.py.
#include <neurobench/events/to_frame.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::events::Events;
using neurobench::events::FrameOptions;

namespace {

Events make_frame_events(std::vector<std::int32_t> x, std::vector<std::int32_t> y,
                         std::vector<std::uint8_t> p, std::vector<std::int64_t> t) {
  Events e;
  e.x = std::move(x);
  e.y = std::move(y);
  e.p = std::move(p);
  e.t = std::move(t);
  return e;
}

// The number of events in each frame (summed over polarities and pixels).
std::vector<int64_t> per_frame(const torch::Tensor& frames) {
  const torch::Tensor sums = frames.sum({1, 2, 3}).to(torch::kLong);
  return std::vector<int64_t>(sums.data_ptr<int64_t>(), sums.data_ptr<int64_t>() + sums.numel());
}

FrameOptions bins(int64_t n, double overlap = 0) {
  FrameOptions o;
  o.n_time_bins = n;
  o.overlap = overlap;
  return o;
}

}  // namespace

TEST_CASE(
    "to_frame with n_time_bins puts an event on a bin edge in the later bin and drops the "
    "last event",
    "[events]") {
  // t0 = 100, t1 = 110, 5 bins of floor(10 / 5) = 2: [100,102) [102,104) ... [108,110).
  const Events e = make_frame_events({0, 1, 1, 2, 3, 0, 1}, {0, 0, 1, 1, 2, 3, 3},
                                     {0, 1, 1, 0, 1, 0, 1}, {100, 101, 102, 104, 107, 108, 110});
  const torch::Tensor f = neurobench::events::to_frame(e, {4, 4, 2}, bins(5));
  REQUIRE(f.sizes() == torch::IntArrayRef({5, 2, 4, 4}));
  REQUIRE(f.scalar_type() == torch::kFloat32);
  REQUIRE(per_frame(f) == std::vector<int64_t>{2, 1, 1, 1, 1});  // t = 110 is in no frame
  REQUIRE(f[0][0][0][0].item<float>() == 1);                     // (x 0, y 0, off) at 100
  REQUIRE(f[0][1][0][1].item<float>() == 1);                     // (x 1, y 0, on) at 101
  REQUIRE(f[1][1][1][1].item<float>() == 1);                     // (x 1, y 1, on) at 102, the edge
  REQUIRE(f[4][0][3][0].item<float>() == 1);                     // (x 0, y 3, off) at 108
}

TEST_CASE("to_frame counts repeated events and uneven spans as tonic", "[events]") {
  // span 11, 3 bins of floor(11 / 3) = 3: [0,3) [3,6) [6,9); t = 9, 11 in no frame.
  const Events e =
      make_frame_events({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 5, 9, 11});
  const torch::Tensor f = neurobench::events::to_frame(e, {2, 2, 2}, bins(3));
  REQUIRE(f[0][1][1][1].item<float>() == 2);
  REQUIRE(per_frame(f) == std::vector<int64_t>{2, 1, 0});
  // A span shorter than the bin count: bins of width 0, all empty.
  const Events short_span = make_frame_events({0, 0}, {0, 0}, {0, 0}, {10, 12});
  REQUIRE(per_frame(neurobench::events::to_frame(short_span, {1, 1, 2}, bins(3))) ==
          std::vector<int64_t>{0, 0, 0});
  // Overlap 0.5: width floor(11 / 3) * 1.5 = 4.5, stride 2.25: [0,4.5) [2.25,6.75) [4.5,9).
  REQUIRE(per_frame(neurobench::events::to_frame(e, {2, 2, 2}, bins(3, 0.5))) ==
          std::vector<int64_t>{2, 1, 1});
}

TEST_CASE("to_frame slices by time window and by event count as tonic's slicers", "[events]") {
  const Events e = make_frame_events({0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 1},
                                     {0, 10, 20, 25, 30, 47});
  FrameOptions window;
  window.time_window = 20;  // floor((47 - 20) / 20) + 1 = 2 windows: [0,20) [20,40)
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, window)) ==
          std::vector<int64_t>{2, 3});
  window.include_incomplete = true;  // ceil: 3 windows, the last [40,60)
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, window)) ==
          std::vector<int64_t>{2, 3, 1});
  window.overlap = 10;  // stride 10: ceil(27 / 10) + 1 = 4 windows, the last [30,50)
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, window)) ==
          std::vector<int64_t>{2, 3, 3, 2});
  FrameOptions count;
  count.event_count = 4;  // floor((6 - 4) / 4) + 1 = 1 frame
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, count)) == std::vector<int64_t>{4});
  count.include_incomplete = true;  // ceil: 2, the second holds events 4 and 5
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, count)) ==
          std::vector<int64_t>{4, 2});
  count.overlap = 1;  // stride 3: frames [0,4) [3,6)
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, count)) ==
          std::vector<int64_t>{4, 3});
  FrameOptions event_bins;
  event_bins.n_event_bins = 4;  // floor(6 / 4) = 1 event per bin
  REQUIRE(per_frame(neurobench::events::to_frame(e, {1, 1, 2}, event_bins)) ==
          std::vector<int64_t>{1, 1, 1, 1});
}

TEST_CASE("to_frame gives empty frames for no events, as tonic's ToFrame", "[events]") {
  REQUIRE(neurobench::events::to_frame(Events{}, {32, 32, 2}, bins(150)).sizes() ==
          torch::IntArrayRef({150, 2, 32, 32}));
  FrameOptions window;
  window.time_window = 1000;
  const torch::Tensor one = neurobench::events::to_frame(Events{}, {3, 2, 2}, window);
  REQUIRE(one.sizes() == torch::IntArrayRef({1, 2, 2, 3}));
  REQUIRE(one.sum().item<float>() == 0);
}

TEST_CASE("to_frame with one polarity counts every event as polarity 0", "[events]") {
  const Events on = make_frame_events({0, 1}, {0, 0}, {1, 1}, {0, 10});
  const torch::Tensor f = neurobench::events::to_frame(on, {2, 1, 1}, bins(1));
  REQUIRE(f.sizes() == torch::IntArrayRef({1, 1, 1, 2}));
  REQUIRE(f[0][0][0][0].item<float>() == 1);
  const Events both = make_frame_events({0, 1}, {0, 0}, {0, 1}, {0, 10});
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(both, {2, 1, 1}, bins(1)),
                      Catch::Contains("both polarities"));
}

TEST_CASE("to_frame refuses bad options, events off the sensor and unsorted times", "[events]") {
  const Events e = make_frame_events({0, 1}, {0, 1}, {0, 1}, {0, 10});
  FrameOptions none;
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(e, {2, 2, 2}, none),
                      Catch::Contains("exactly one"));
  FrameOptions two = bins(3);
  two.time_window = 5;
  REQUIRE_THROWS_AS(neurobench::events::to_frame(e, {2, 2, 2}, two), UsageError);
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(e, {2, 2, 2}, bins(0)),
                      Catch::Contains("n_time_bins must be positive"));
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(e, {2, 2, 2}, bins(3, 1.0)),
                      Catch::Contains("below 1"));
  FrameOptions window;
  window.time_window = 5;
  window.overlap = 5;
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(e, {2, 2, 2}, window),
                      Catch::Contains("no positive stride"));
  FrameOptions incomplete = bins(3);
  incomplete.include_incomplete = true;
  REQUIRE_THROWS_AS(neurobench::events::to_frame(e, {2, 2, 2}, incomplete), UsageError);
  REQUIRE_THROWS_AS(neurobench::events::to_frame(e, {2, 2, 3}, bins(1)), UsageError);
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(e, {1, 2, 2}, bins(1)),
                      Catch::Contains("event 1 (x 1, y 1, p 1) lies outside the sensor"));
  const Events backwards = make_frame_events({0, 0}, {0, 0}, {0, 0}, {10, 9});
  REQUIRE_THROWS_WITH(neurobench::events::to_frame(backwards, {1, 1, 2}, bins(1)),
                      Catch::Contains("must not decrease"));
  REQUIRE_THROWS_AS(neurobench::events::to_frame(backwards, {1, 1, 2}, bins(1)), InputError);
}
