// SPDX-License-Identifier: Apache-2.0
// tonic's Downsample(spatial_factor) in C++: scaling, NumPy's truncation, the sizes it gives,
// and what it refuses.
#include <neurobench/events/downsample.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

using neurobench::UsageError;
using neurobench::events::Events;

namespace {

Events make_downsample_events(std::vector<std::int32_t> x, std::vector<std::int32_t> y,
                              std::vector<std::uint8_t> p, std::vector<std::int64_t> t) {
  Events e;
  e.x = std::move(x);
  e.y = std::move(y);
  e.p = std::move(p);
  e.t = std::move(t);
  return e;
}

}  // namespace

TEST_CASE("downsample scales coordinates and truncates as NumPy's cast does", "[events]") {
  const Events in = make_downsample_events({0, 3, 4, 127, 5}, {127, 1, 7, 64, 9}, {0, 1, 0, 1, 1},
                                           {1, 2, 3, 4, 5});
  const Events out = neurobench::events::downsample(in, 0.25);
  REQUIRE(out.x == std::vector<std::int32_t>{0, 0, 1, 31, 1});
  REQUIRE(out.y == std::vector<std::int32_t>{31, 0, 1, 16, 2});
  REQUIRE(out.t == in.t);
  REQUIRE(out.p == in.p);
  const Events odd = neurobench::events::downsample(in, 0.3, 2.0);
  REQUIRE(odd.x == std::vector<std::int32_t>{0, 0, 1, 38, 1});  // 3*0.3 = 0.8999..., 127*0.3 = 38.1
  REQUIRE(odd.y == std::vector<std::int32_t>{254, 2, 14, 128, 18});
  REQUIRE(neurobench::events::downsampled_size(128, 0.25) == 32);
  REQUIRE(neurobench::events::downsampled_size(128, 0.3) == 39);
  REQUIRE(neurobench::events::downsampled_size(128, 1.0) == 128);
  REQUIRE_THROWS_AS(neurobench::events::downsample(in, 0), UsageError);
  REQUIRE_THROWS_AS(neurobench::events::downsampled_size(0, 0.5), UsageError);
}
