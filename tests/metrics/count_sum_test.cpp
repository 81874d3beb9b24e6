// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/count_sum.hpp>

#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>

#include "metrics/counting.hpp"

using neurobench::CountSum;

TEST_CASE("a CountSum adds numbers and 0-dim integer tensors", "[metrics][count_sum]") {
  CountSum sum;
  CHECK(sum.value() == 0);
  sum.add(3);
  sum.add(torch::scalar_tensor(4, torch::kLong));
  sum.add(torch::scalar_tensor(true, torch::kBool));
  sum.add(torch::scalar_tensor(2, torch::kInt));
  CHECK(sum.value() == 10);
  CHECK(sum.value() == 10);  // reading changes nothing
  sum.reset();
  CHECK(sum.value() == 0);
}

TEST_CASE("a CountSum keeps counts made on a device there until it is read",
          "[metrics][count_sum][device]") {
  const c10::Device lazy = neurobench::parse_device("lazy");
  neurobench::check_device(lazy);
  c10::InferenceMode guard;
  CountSum sum;
  sum.add(5);
  const torch::Tensor x = torch::tensor({0.0F, 1.0F, 0.5F, 0.0F, -2.0F}).to(lazy);
  for (int i = 0; i < 3; ++i) sum.add(x.ne(0).sum(torch::kLong));
  CHECK(sum.value() == 5 + 3 * 3);
  sum.add(x.ne(0).sum(torch::kLong));  // after a read, more on the device
  CHECK(sum.value() == 17);
}

TEST_CASE("a CountSum refuses a count that is not a 0-dim tensor of integers",
          "[metrics][count_sum]") {
  CountSum sum;
  REQUIRE_THROWS_WITH(sum.add(torch::ones({2}, torch::kLong)),
                      Catch::Contains("0-dim tensor of integers") && Catch::Contains("[2]"));
  REQUIRE_THROWS_WITH(sum.add(torch::scalar_tensor(1.5, torch::kDouble)),
                      Catch::Contains("Double") && Catch::Contains("0-dim tensor of integers"));
  REQUIRE_THROWS_AS(sum.add(torch::Tensor()), neurobench::UsageError);
  CHECK(sum.value() == 0);  // nothing was added
}

TEST_CASE(
    "ActivationCall counts the non-zero outputs once, as a number or a tensor where the "
    "output is",
    "[metrics][count_sum]") {
  const torch::Tensor output = torch::tensor({0.0F, 2.0F, 0.0F, -1.0F});
  neurobench::ActivationCall call{"relu", "ReLU", output, false, nullptr, nullptr, {}, {}};
  CHECK(call.nonzeros() == 2);
  CHECK(call.nonzero_count().item<int64_t>() == 2);
  CHECK(call.nonzero_count().device().is_cpu());

  const c10::Device lazy = neurobench::resolved_device(neurobench::parse_device("lazy"));
  neurobench::check_device(lazy);
  c10::InferenceMode guard;
  const torch::Tensor on_device = output.to(lazy);
  neurobench::ActivationCall device_call{"relu",  "ReLU",  on_device, false,
                                         nullptr, nullptr, {},        {}};
  CHECK(device_call.nonzero_count().device() == lazy);
  CHECK(&device_call.nonzero_count() == &device_call.nonzero_count());  // counted once
  CHECK(device_call.nonzeros() == 2);
}

TEST_CASE("a CountSum counts non-zeros and changes at once on the CPU, later on a device",
          "[metrics][count_sum]") {
  const torch::Tensor spikes = torch::tensor({0.0F, 1.0F, 0.0F, 1.0F, 1.0F});
  const torch::Tensor before = torch::tensor({0.0F, 1.0F, 2.0F, 3.0F});
  const torch::Tensor after = torch::tensor({0.0F, 1.5F, 2.0F, std::nanf("")});
  CountSum cpu;
  cpu.add_nonzeros(spikes);
  cpu.add_nonzeros(spikes, 4);
  cpu.add_changes(before, after);  // 1 -> 1.5, and NaN counts
  cpu.add_changes(before, after, 6);
  CHECK(cpu.value() == 3 + 12 + 2 + 12);
  REQUIRE_THROWS_AS(cpu.add_changes(before, torch::zeros({3})), neurobench::MetricError);
  REQUIRE_THROWS_WITH(cpu.add_changes(before, torch::zeros({3})),
                      Catch::Contains("changed shape from [4] to [3]"));

  const c10::Device lazy = neurobench::resolved_device(neurobench::parse_device("lazy"));
  neurobench::check_device(lazy);
  c10::InferenceMode guard;
  CountSum there;
  there.add(1);
  for (int step = 0; step < 5; ++step) {
    there.add_nonzeros(spikes.to(lazy));
    there.add_nonzeros(torch::ones({2, 3}).to(lazy), 2);  // other shapes, other factors
    there.add_changes(before.to(lazy), after.to(lazy), 4);
  }
  CHECK(there.value() == 1 + 5 * (3 + 12 + 8));
  REQUIRE_THROWS_WITH(there.add_changes(before.to(lazy), torch::zeros({3}).to(lazy)),
                      Catch::Contains("changed shape from [4] to [3]"));
  there.add_nonzeros(spikes.to(lazy));
  there.reset();  // what was kept is dropped too
  CHECK(there.value() == 0);
}

TEST_CASE("a CountSum counts what it keeps once it keeps more than its bound",
          "[metrics][count_sum]") {
  const c10::Device lazy = neurobench::resolved_device(neurobench::parse_device("lazy"));
  neurobench::check_device(lazy);
  c10::InferenceMode guard;
  // 17 MiB of ones, 16 times: the bound of 256 MiB is passed once, and every one is counted.
  const torch::Tensor ones = torch::ones({int64_t{17} << 18}).to(lazy);
  CountSum sum;
  for (int i = 0; i < 16; ++i) sum.add_nonzeros(ones);
  CHECK(sum.value() == 16 * (int64_t{17} << 18));
}

TEST_CASE("spikes are told from other inputs alike on the CPU and on a device",
          "[metrics][count_sum]") {
  const c10::Device lazy = neurobench::resolved_device(neurobench::parse_device("lazy"));
  neurobench::check_device(lazy);
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    torch::Tensor t;
    bool spikes;
  };
  const Case cases[] = {
      {torch::tensor({0.0F, 1.0F, -1.0F, 1.0F}), true},
      {torch::tensor({-0.0F, 0.0F}), true},
      {torch::zeros({3, 2}), true},
      {torch::tensor({0.0F, 0.5F}), false},
      {torch::tensor({0.0F, -0.5F}), false},
      {torch::tensor({1.0F, 2.0F}), false},
      {torch::tensor({0.99999994F}), false},
      {torch::tensor({1.0F, nan}), false},
      {torch::tensor({inf}), false},
      {torch::tensor({-inf, 0.0F}), false},
      {torch::tensor({0.0, 1.0, -1.0}, torch::kDouble), true},
      {torch::tensor({1.5}, torch::kDouble), false},
      {torch::tensor({0, 1, -1}, torch::kLong), true},
      {torch::tensor({0, 2}, torch::kLong), false},
      {torch::ones({2, 3}).t(), true},  // not contiguous
  };
  c10::InferenceMode guard;
  for (const auto& c : cases) {
    INFO(c.t);
    CHECK(neurobench::detail::is_spiking(c.t) == c.spikes);
    const neurobench::detail::Flag on_cpu = neurobench::detail::spiking(c.t);
    CHECK_FALSE(on_cpu.device.defined());
    CHECK(on_cpu.host == c.spikes);
    const neurobench::detail::Flag there = neurobench::detail::spiking(c.t.to(lazy));
    REQUIRE(there.device.defined());
    CHECK(there.device.item<bool>() == c.spikes);
    // Many calls' inputs at once: each told apart on its own.
    const torch::Tensor calls = torch::stack({c.t, torch::zeros_like(c.t), c.t});
    const torch::Tensor flags = neurobench::detail::spike_flags(calls.to(lazy)).to(torch::kCPU);
    CHECK(flags.equal(torch::tensor({c.spikes, true, c.spikes})));
  }
}

TEST_CASE("the CPU's counting loops agree with LibTorch at every length and position",
          "[metrics][count_sum]") {
  // Lengths around the vector widths and the spike test's blocks of 256; the one value that is
  // not a spike anywhere, the last element included.
  for (const int64_t n : {1, 7, 8, 15, 16, 17, 255, 256, 257, 1001}) {
    for (const auto dtype : {torch::kFloat, torch::kDouble}) {
      const torch::Tensor spikes = (torch::rand({n}) < 0.3).to(dtype) * 2 - 1;  // -1 and 1
      const torch::Tensor sparse = spikes * (torch::rand({n}) < 0.5).to(dtype);
      INFO("n " << n << ", " << dtype);
      CHECK(neurobench::detail::count_nonzero(sparse) == sparse.count_nonzero().item<int64_t>());
      const torch::Tensor other = sparse.clone();
      other[n - 1] = 0.5;
      CHECK(neurobench::detail::count_changed(sparse, other) == 1);
      CHECK(neurobench::detail::count_changed(sparse, sparse) == 0);
      CHECK(neurobench::detail::is_spiking(sparse));
      for (const int64_t at : {int64_t{0}, n / 2, n - 1}) {
        torch::Tensor t = sparse.clone();
        t[at] = 0.25;
        CHECK_FALSE(neurobench::detail::is_spiking(t));
        t[at] = std::nan("");
        CHECK_FALSE(neurobench::detail::is_spiking(t));
        CHECK(neurobench::detail::count_nonzero(t) == t.count_nonzero().item<int64_t>());
      }
    }
  }
}
