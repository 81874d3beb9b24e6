// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/npz.hpp>

#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include "support.hpp"

// data/npz.hpp forwards to io/npy.hpp and io/npz.hpp, whose tests are tests/io/npy_test.cpp and
// tests/io/npz_test.cpp. This checks that code written against the former header still works.

TEST_CASE("the former header data/npz.hpp still gives load_npy, save_npy, load_npz, save_npz",
          "[data][npz]") {
  const neurobench::test::TempDir dir;
  const std::vector<neurobench::NamedArray> arrays = {{"x", torch::arange(6).reshape({2, 3})}};
  neurobench::save_npz(dir / "a.npz", arrays);
  neurobench::save_npy(dir / "a.npy", arrays[0].second);
  const std::vector<neurobench::NamedArray> loaded = neurobench::load_npz(dir / "a.npz");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].first == "x");
  CHECK(torch::equal(loaded[0].second, neurobench::load_npy(dir / "a.npy")));
}
