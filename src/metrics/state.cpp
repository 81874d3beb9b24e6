// SPDX-License-Identifier: Apache-2.0
// Tensors and numbers in the states metrics export for sharded runs.
#include <neurobench/metrics/state.hpp>

#include <cstring>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

namespace neurobench {

namespace {

constexpr c10::ScalarType kTypes[] = {c10::ScalarType::Float, c10::ScalarType::Double,
                                      c10::ScalarType::Half,  c10::ScalarType::BFloat16,
                                      c10::ScalarType::Long,  c10::ScalarType::Int,
                                      c10::ScalarType::Short, c10::ScalarType::Char,
                                      c10::ScalarType::Byte,  c10::ScalarType::Bool};

[[noreturn]] void malformed(std::string_view what, const std::string& why) {
  throw MetricError(fmt::format("{}: a shard's state is malformed: {}", what, why));
}

}  // namespace

Json tensor_state(const torch::Tensor& tensor) {
  const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
  const auto* begin = static_cast<const std::uint8_t*>(t.data_ptr());
  const auto bytes = static_cast<std::size_t>(t.numel()) * t.element_size();
  return Json{{"dtype", c10::toString(t.scalar_type())},
              {"shape", t.sizes().vec()},
              {"bytes", Json::binary(std::vector<std::uint8_t>(begin, begin + bytes))}};
}

torch::Tensor tensor_from_state(const Json& state, std::string_view what) {
  if (!state.is_object() || !state.contains("dtype") || !state.contains("shape") ||
      !state.contains("bytes") || !state["bytes"].is_binary() || !state["shape"].is_array()) {
    malformed(what, "a tensor needs 'dtype', 'shape' and binary 'bytes'");
  }
  const std::string dtype = state["dtype"].is_string() ? state["dtype"].get<std::string>() : "";
  c10::optional<c10::ScalarType> type;
  for (const auto t : kTypes) {
    if (dtype == c10::toString(t)) type = t;
  }
  if (!type) malformed(what, fmt::format("unknown tensor dtype '{}'", dtype));
  std::vector<int64_t> shape;
  int64_t numel = 1;
  for (const Json& d : state["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) malformed(what, "a bad tensor shape");
    shape.push_back(d.get<int64_t>());
    numel *= shape.back();
  }
  const auto& bytes = state["bytes"].get_binary();
  torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(*type));
  if (bytes.size() != static_cast<std::size_t>(numel) * t.element_size()) {
    malformed(what,
              fmt::format("a {} tensor of {} elements in {} bytes", dtype, numel, bytes.size()));
  }
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

int64_t state_integer(const Json& state, std::string_view key, std::string_view what) {
  if (!state.is_object() || !state.contains(key) || !state[std::string(key)].is_number_integer()) {
    malformed(what, fmt::format("no integer '{}'", key));
  }
  return state[std::string(key)].get<int64_t>();
}

double state_number(const Json& state, std::string_view key, std::string_view what) {
  if (!state.is_object() || !state.contains(key) || !state[std::string(key)].is_number()) {
    malformed(what, fmt::format("no number '{}'", key));
  }
  return state[std::string(key)].get<double>();
}

}  // namespace neurobench
