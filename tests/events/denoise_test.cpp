// SPDX-License-Identifier: Apache-2.0
// tonic's Denoise in C++ on events small enough to work out by hand: who it keeps, its
// initial memory and its edge, and what it refuses. The whole pipeline against tonic's semantics
// is in tests/datasets/dvs_gesture_test.cpp and check_dvs_gesture.py.
#include <neurobench/events/denoise.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

using neurobench::UsageError;
using neurobench::events::Events;

namespace {

Events make_denoise_events(std::vector<std::int32_t> x, std::vector<std::int32_t> y,
                           std::vector<std::uint8_t> p, std::vector<std::int64_t> t) {
  Events e;
  e.x = std::move(x);
  e.y = std::move(y);
  e.p = std::move(p);
  e.t = std::move(t);
  return e;
}

}  // namespace

TEST_CASE("denoise keeps an event whose neighbour fired within filter_time", "[events]") {
  // (5,5) at 100000 has no recent neighbour: dropped. (6,5) at 100500: (5,5) fired 500 earlier,
  // kept. (20,20) at 200000: alone, dropped. (6,6) at 215000: (6,5) fired 114500 earlier, no.
  const Events in = make_denoise_events({5, 6, 20, 6}, {5, 5, 20, 6}, {1, 0, 1, 1},
                                        {100000, 100500, 200000, 215000});
  const Events out = neurobench::events::denoise(in, 10000);
  REQUIRE(out.t == std::vector<std::int64_t>{100500});
  REQUIRE(out.x == std::vector<std::int32_t>{6});
  REQUIRE(out.p == std::vector<std::uint8_t>{0});
}

TEST_CASE("denoise treats pixels that never fired as fired at 0, inside the events' box",
          "[events]") {
  // tonic's memory starts at filter_time: early events pass with a neighbour in the box
  // [0, max x] x [0, max y]; (3,0) is alone at t = 9999 < 10000 but has neighbours in the box.
  const Events early = make_denoise_events({3, 9}, {0, 9}, {0, 0}, {9999, 50000});
  REQUIRE(neurobench::events::denoise(early, 10000).t == std::vector<std::int64_t>{9999});
  // A single event at the origin: its box is one pixel, no neighbour inside it.
  const Events alone = make_denoise_events({0}, {0}, {1}, {5});
  REQUIRE(neurobench::events::denoise(alone, 10000).empty());
  // The filter's edge: a neighbour exactly filter_time earlier is not recent enough.
  const Events edge =
      make_denoise_events({10, 11, 12}, {10, 10, 10}, {0, 0, 0}, {50000, 60000, 69999});
  REQUIRE(neurobench::events::denoise(edge, 10000).t == std::vector<std::int64_t>{69999});
}

TEST_CASE("denoise refuses a bad filter and negative coordinates", "[events]") {
  const Events e = make_denoise_events({1}, {1}, {0}, {0});
  REQUIRE_THROWS_AS(neurobench::events::denoise(e, 0), UsageError);
  REQUIRE_THROWS_WITH(neurobench::events::denoise(e, -1), Catch::Contains("filter_time"));
  REQUIRE_THROWS_WITH(neurobench::events::denoise(make_denoise_events({-1}, {1}, {0}, {0}), 10),
                      Catch::Contains("negative coordinate"));
  Events ragged = e;
  ragged.p.clear();
  REQUIRE_THROWS_WITH(neurobench::events::denoise(ragged, 10), Catch::Contains("differ"));
  REQUIRE(neurobench::events::denoise(Events{}, 10).empty());
}
