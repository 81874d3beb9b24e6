// SPDX-License-Identifier: Apache-2.0
// The joint count of a batch's tensors on a device (src/metrics/device_tally.hpp), on LibTorch's
// lazy device, against the same counts made on the CPU.
#include "metrics/device_tally.hpp"

#include <cmath>
#include <limits>

#include <torch/csrc/lazy/core/metrics.h>
#include <catch2/catch.hpp>

#include <neurobench/device.hpp>
#include <neurobench/metrics/count_sum.hpp>

using neurobench::detail::DeviceTally;
using neurobench::detail::TallyCounts;
using neurobench::detail::TallyHandle;

namespace {

c10::Device lazy_device() {
  const c10::Device lazy = neurobench::parse_device("lazy");
  neurobench::check_device(lazy);
  return lazy;
}

// The counts, made on the CPU one element at a time.
TallyCounts expected(const torch::Tensor& t, bool batched, const torch::Tensor& weights = {}) {
  const torch::Tensor x = t.to(torch::kCPU, torch::kDouble).contiguous();
  const int64_t rows = batched ? t.size(0) : 1;
  const int64_t features = t.numel() / rows;
  TallyCounts c;
  const double* v = x.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const bool nonzero = v[i] != 0;  // NaN too
    c.nonzeros += nonzero ? 1 : 0;
    c.not_spikes += (v[i] == 0 || v[i] == 1 || v[i] == -1) ? 0 : 1;
    if (weights.defined() && nonzero) c.weighted += weights[i % features].item<int64_t>();
  }
  return c;
}

void check_counts(const TallyHandle& h, const TallyCounts& want) {
  const TallyCounts& got = h.counts();
  CHECK(got.nonzeros == want.nonzeros);
  CHECK(got.not_spikes == want.not_spikes);
  CHECK(got.weighted == want.weighted);
}

int64_t lazy_operator_count() {
  int64_t n = 0;
  for (const std::string& name : torch::lazy::GetCounterNames()) {
    if (name.rfind("lazy::", 0) != 0 && name.rfind("aten::", 0) != 0) continue;
    const bool view = name.find("_copy") != std::string::npos && name != "lazy::_to_copy" &&
                      name.rfind("lazy::_copy_from", 0) != 0;
    if (view) continue;
    if (const torch::lazy::CounterData* c = torch::lazy::GetCounter(name)) n += c->Value();
  }
  return n;
}

}  // namespace

TEST_CASE("a device tally counts non-zeros, non-spikes and weighted non-zeros of each tensor",
          "[metrics][device_tally][device]") {
  const c10::Device lazy = lazy_device();
  c10::InferenceMode guard;
  torch::manual_seed(3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Real values with zeros, NaN and -0.0; spikes; signed spikes; doubles of other rows.
  torch::Tensor real = torch::randn({4, 3, 5});
  real.masked_fill_(torch::rand({4, 3, 5}) < 0.3, 0.0);
  real[1][2][3] = nan;
  real[2][0][0] = -0.0F;
  const torch::Tensor spikes = (torch::rand({4, 7}) < 0.4).to(torch::kFloat);
  const torch::Tensor signed_spikes = torch::randint(-1, 2, {4, 2, 3}).to(torch::kFloat);
  const torch::Tensor other = torch::randn({6, 2}, torch::kDouble).relu();
  const torch::Tensor weights = torch::randint(0, 9, {15}, torch::kLong);

  DeviceTally tally;
  const auto h_real = tally.add(real.to(lazy), true, weights);
  const auto h_spikes = tally.add(spikes.to(lazy), true);
  const auto h_signed = tally.add(signed_spikes.to(lazy), false);  // one sample of 24
  const auto h_other = tally.add(other.to(lazy), true);
  REQUIRE(h_real);
  REQUIRE(h_spikes);
  REQUIRE(h_signed);
  REQUIRE(h_other);
  check_counts(*h_real, expected(real, true, weights));
  check_counts(*h_spikes, expected(spikes, true));
  check_counts(*h_signed, expected(signed_spikes, false));
  check_counts(*h_other, expected(other, true));
  CHECK(h_spikes->counts().not_spikes == 0);
  CHECK(h_signed->counts().not_spikes == 0);
  CHECK(h_real->counts().not_spikes > 0);
}

TEST_CASE("a device tally counts a tensor added twice once, and a batch ends when read",
          "[metrics][device_tally][device]") {
  const c10::Device lazy = lazy_device();
  c10::InferenceMode guard;
  torch::manual_seed(4);
  const torch::Tensor x = torch::randn({3, 4}).relu().to(lazy);
  const torch::Tensor weights = torch::tensor({1, 2, 3, 4}, torch::kLong);
  DeviceTally tally;
  const auto plain = tally.add(x, true);
  const auto weighted = tally.add(x, true, weights);  // the next layer's input: same tensor
  REQUIRE(plain);
  REQUIRE(weighted);
  check_counts(*plain, expected(x, true, weights));  // one count, the weights added to it
  check_counts(*weighted, expected(x, true, weights));
  // Read: what is added now belongs to the next batch; the first batch's counts stay.
  const torch::Tensor y = torch::ones({3, 4}).to(lazy);
  const auto next = tally.add(y, true, weights);
  REQUIRE(next);
  check_counts(*next, expected(y, true, weights));
  check_counts(*plain, expected(x, true, weights));
}

TEST_CASE("a device tally counts what it keeps when it keeps too much, with the same counts",
          "[metrics][device_tally][device]") {
  const c10::Device lazy = lazy_device();
  c10::InferenceMode guard;
  torch::manual_seed(5);
  DeviceTally tally(/*max_kept_bytes=*/100);  // counted every two or three tensors
  std::vector<torch::Tensor> xs;
  std::vector<TallyHandle> handles;
  for (int i = 0; i < 7; ++i) {
    xs.push_back(torch::randn({2, 5 + i}).relu());
    auto h = tally.add(xs.back().to(lazy), true);
    REQUIRE(h);
    handles.push_back(*h);
  }
  for (std::size_t i = 0; i < xs.size(); ++i) check_counts(handles[i], expected(xs[i], true));
}

TEST_CASE("a device tally leaves the CPU's, integers, empty tensors and odd weights to callers",
          "[metrics][device_tally][device]") {
  const c10::Device lazy = lazy_device();
  c10::InferenceMode guard;
  DeviceTally tally;
  CHECK_FALSE(tally.add(torch::ones({2, 3}), true));                         // on the CPU
  CHECK_FALSE(tally.add(torch::ones({2, 3}, torch::kLong).to(lazy), true));  // integers
  CHECK_FALSE(tally.add(torch::ones({0, 3}).to(lazy), true));                // no elements
  CHECK_FALSE(tally.add(torch::ones({2, 3}).to(lazy), true, torch::ones({4}, torch::kLong)));
  CHECK_FALSE(tally.add(torch::ones({2, 3}).to(lazy), true, torch::ones({3})));  // not int64
}

TEST_CASE("a CountSum inside a tally's scope counts a batch's tensors in a few operators",
          "[metrics][device_tally][device]") {
  const c10::Device lazy = lazy_device();
  c10::InferenceMode guard;
  torch::manual_seed(6);
  std::vector<torch::Tensor> xs;
  for (int i = 0; i < 12; ++i) xs.push_back(torch::randn({8, 10 + i}).relu().to(lazy));
  const auto count = [&](bool tallied) {
    DeviceTally tally;
    std::optional<neurobench::detail::TallyScope> scope;
    if (tallied) scope.emplace(tally);
    std::vector<CountSum> sums(3);  // three metrics, each adding every tensor
    for (const torch::Tensor& x : xs) {
      for (CountSum& s : sums) s.add_nonzeros(x);
    }
    const int64_t before = lazy_operator_count();
    int64_t total = 0;
    for (const CountSum& s : sums) total += s.value();
    return std::make_pair(total, lazy_operator_count() - before);
  };
  const auto [alone, alone_ops] = count(false);
  const auto [together, together_ops] = count(true);
  CHECK(together == alone);
  int64_t want = 0;
  for (const torch::Tensor& x : xs) want += 3 * expected(x, true).nonzeros;
  CHECK(together == want);
  INFO("operators: " << alone_ops << " counted by each sum, " << together_ops << " together");
  // The join, the comparisons, the sum, the read; and, once per tally, the values compared with.
  CHECK(together_ops <= 5);
  CHECK(together_ops < alone_ops);
}
