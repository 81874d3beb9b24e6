// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/idx.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "io/idx_files.hpp"
#include "support.hpp"

// datasets/idx.hpp forwards to io/idx.hpp and datasets/fashion_mnist.hpp, whose tests are
// tests/io/idx_test.cpp and tests/datasets/fashion_mnist_test.cpp. This checks that code written
// against the former header still works, neurobench::datasets::load_idx included.

TEST_CASE("the former header datasets/idx.hpp still gives datasets::load_idx and fashion_mnist",
          "[datasets][idx]") {
  namespace ds = neurobench::datasets;
  const neurobench::test::TempDir tmp;
  const auto path = neurobench::test::write(tmp / "f", neurobench::test::idx(0x08, {3}, {7, 8, 9}));
  CHECK(torch::equal(ds::load_idx(path), torch::tensor({7, 8, 9}, torch::kUInt8)));
  CHECK(&ds::load_idx == &neurobench::load_idx);
  CHECK_THROWS_AS(ds::fashion_mnist(tmp.path(), ds::FashionMnistSplit::Test),
                  neurobench::InputError);
}
