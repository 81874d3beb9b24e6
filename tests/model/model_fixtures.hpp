// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the model and hook tests: fixtures from tests/fixtures/models/, written by
// make_models.py, with expected values stored as JSON.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <torch/script.h>

namespace neurobench::test {

/// A file of tests/fixtures/models.
inline std::filesystem::path model_fixture(const std::string& name) {
  return std::filesystem::path(NEUROBENCH_TEST_FIXTURES) / "models" / name;
}

/// A JSON file of expected values in tests/fixtures/models.
inline nlohmann::json expected(const std::string& name) {
  std::ifstream in(model_fixture(name));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

/// A tensor written by make_models.py as {"shape": [...], "data": [...]}, as float32.
inline torch::Tensor tensor_of(const nlohmann::json& j) {
  const auto data = j.at("data").get<std::vector<double>>();
  const auto shape = j.at("shape").get<std::vector<int64_t>>();
  return torch::tensor(data, torch::kDouble).to(torch::kFloat).reshape(shape);
}

/// Same op sequence as in Python on the same LibTorch; the tolerance only absorbs kernel choices.
inline bool close(const torch::Tensor& actual, const torch::Tensor& wanted) {
  return actual.sizes().vec() == wanted.sizes().vec() &&
         torch::allclose(actual, wanted, /*rtol=*/1e-5, /*atol=*/1e-6);
}

}  // namespace neurobench::test
