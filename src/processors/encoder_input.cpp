// SPDX-License-Identifier: Apache-2.0
#include "processors/encoder_input.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::detail {

namespace {

std::string value_text(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

}  // namespace

void check_values(const torch::Tensor& x, std::string_view who, std::string_view what,
                  Infinities infinities) {
  if (x.numel() == 0) return;
  c10::InferenceMode guard;
  // One pass in the common case: a sum is finite (or, with infinities allowed, not NaN) only
  // when every term is; a closer look only when it is not (it may also have overflowed).
  const double sum = x.sum().item<double>();
  if (infinities == Infinities::Allowed ? !std::isnan(sum) : std::isfinite(sum)) return;
  const torch::Tensor bad =
      (infinities == Infinities::Allowed ? torch::isnan(x) : torch::isfinite(x).logical_not())
          .flatten();
  const int64_t count = bad.sum().item<int64_t>();
  if (count == 0) return;
  // argmax gives the first of equal maxima: the first bad value in row-major order.
  const int64_t first_flat = bad.to(torch::kUInt8).argmax().item<int64_t>();
  std::vector<int64_t> index(static_cast<std::size_t>(x.dim()), 0);
  int64_t rest = first_flat;
  for (int64_t d = x.dim() - 1; d >= 0; --d) {
    index[static_cast<std::size_t>(d)] = rest % x.size(d);
    rest /= x.size(d);
  }
  const double first = x.flatten()[first_flat].item<double>();
  const char* kind = infinities == Infinities::Allowed ? "NaN" : "non-finite (NaN or infinite)";
  throw InputError(fmt::format("{}: {} holds {} {} value{} of {}, shape {}; the first is {}{} = {}",
                               who, what, count, kind, count == 1 ? "" : "s", x.numel(),
                               shape_string(x), what, shape_string(index), value_text(first)));
}

torch::Tensor encoder_input(const torch::Tensor& data, std::string_view who, int64_t min_dim,
                            std::string_view layout, Infinities infinities) {
  if (!data.defined()) throw InputError(fmt::format("{}: data is an undefined tensor", who));
  if (data.dim() < min_dim) {
    throw InputError(fmt::format("{}: data must be {} ({} or more dimensions), got shape {}", who,
                                 layout, min_dim, shape_string(data)));
  }
  if (data.is_complex()) {
    throw InputError(fmt::format("{}: data must be real numbers, got {} of shape {}", who,
                                 c10::toString(data.scalar_type()), shape_string(data)));
  }
  const auto type = data.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
  torch::Tensor x = data.to(type).contiguous();
  check_values(x, who, "data", infinities);
  return x;
}

int64_t integer_option(const Json& options, std::string_view name, std::string_view who) {
  const Json& value = options.at(std::string(name));
  if (value.is_number_unsigned()) {
    const auto v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw UsageError(fmt::format("{}: option '{}' is out of range: {}", who, name, v));
    }
    return static_cast<int64_t>(v);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  const double v = value.get<double>();  // a whole number written as a float (type checked)
  if (!(v >= -9.2e18 && v <= 9.2e18)) {
    throw UsageError(fmt::format("{}: option '{}' is out of range: {}", who, name, v));
  }
  return static_cast<int64_t>(v);
}

uint64_t seed_option(const Json& options, std::string_view name, std::string_view who) {
  const Json& value = options.at(std::string(name));
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) return static_cast<uint64_t>(value.get<int64_t>());
  const double v = value.get<double>();
  // Whole floats: -2^63 to 2^64 exclusive (1.8446744073709552e19 is 2^64).
  if (!(v >= -9.223372036854775808e18 && v < 1.8446744073709552e19)) {
    throw UsageError(fmt::format(
        "{}: option '{}' is out of range: {}; expected an integer from -2^63 to 2^64 - 1", who,
        name, v));
  }
  return v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
}

void check_num_steps(int64_t num_steps, std::string_view who) {
  if (num_steps < 1 || num_steps > kMaxEncoderSteps) {
    throw UsageError(fmt::format("{}: num_steps is {}; expected an integer from 1 to {}", who,
                                 num_steps, kMaxEncoderSteps));
  }
}

void check_first_spike_time(int64_t first_spike_time, int64_t num_steps, std::string_view who) {
  if (first_spike_time < 0 || first_spike_time > num_steps - 1) {
    throw UsageError(
        fmt::format("{}: first_spike_time is {}; expected an integer from 0 to num_steps - 1 = {}",
                    who, first_spike_time, num_steps - 1));
  }
}

torch::Tensor batch_first(const torch::Tensor& time_first) {
  std::vector<int64_t> order(static_cast<std::size_t>(time_first.dim()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::swap(order[0], order[1]);
  return time_first.permute(order).to(torch::kFloat).contiguous();
}

}  // namespace neurobench::detail
