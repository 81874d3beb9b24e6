// SPDX-License-Identifier: Apache-2.0
#include <neurobench/components.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

TEST_CASE("components lists hdf5, sndfile, distributed, cuda and ffmpeg, each saying what it needs",
          "[components]") {
  const auto& all = neurobench::components();
  REQUIRE(all.size() == 5);
  CHECK(all[0].name == "hdf5");
  CHECK(all[1].name == "sndfile");
  CHECK(all[2].name == "distributed");
  CHECK(all[3].name == "cuda");
  CHECK(all[4].name == "ffmpeg");
  for (const auto& c : all) {
    INFO(c.name);
    CHECK_FALSE(c.needs.empty());
    CHECK_FALSE(c.gives.empty());
    CHECK(neurobench::has_component(c.name) == c.built);
  }
}

TEST_CASE("the tests are built with the hdf5, sndfile, distributed and ffmpeg components",
          "[components]") {
  // tests/CMakeLists.txt refuses to build the tests without them.
  CHECK(neurobench::has_component("hdf5"));
  CHECK(neurobench::has_component("sndfile"));
  CHECK(neurobench::has_component("distributed"));
  CHECK(neurobench::has_component("ffmpeg"));
  const std::vector<std::string> built = neurobench::built_components();
  REQUIRE(built.size() >= 4);
  CHECK(built[0] == "hdf5");
  CHECK(built[1] == "sndfile");
  CHECK(built[2] == "distributed");
  CHECK(built.back() == "ffmpeg");
}

TEST_CASE("an unknown component is a UsageError listing the known ones", "[components]") {
  REQUIRE_THROWS_AS(neurobench::has_component("hdf"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(
      neurobench::has_component("hdf"),
      Catch::Contains("'hdf'") && Catch::Contains("hdf5, sndfile, distributed, cuda, ffmpeg"));
}

TEST_CASE("require_component passes for a built component and names what a missing one needs",
          "[components]") {
  REQUIRE_NOTHROW(neurobench::require_component("hdf5", "reading a MATLAB file"));
  if (neurobench::has_component("cuda")) return;  // a CUDA build: nothing is missing here
  REQUIRE_THROWS_AS(neurobench::require_component("cuda", "the GPU's memory"),
                    neurobench::UsageError);
  REQUIRE_THROWS_WITH(neurobench::require_component("cuda", "the GPU's memory"),
                      Catch::Contains("without its 'cuda' component") &&
                          Catch::Contains("which the GPU's memory needs") &&
                          Catch::Contains("a LibTorch built with CUDA") &&
                          Catch::Contains("NEUROBENCH_WITH_CUDA"));
}
