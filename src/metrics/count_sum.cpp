// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/count_sum.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "metrics/counting.hpp"
#include "metrics/device_tally.hpp"
#include "util/text.hpp"

namespace neurobench {

namespace {

int64_t bytes_of(const torch::Tensor& t) {
  return t.numel() * static_cast<int64_t>(t.element_size());
}

// Every tensor as one flat tensor (one copy for many), or the one tensor as it is.
torch::Tensor joined(const std::vector<torch::Tensor>& tensors) {
  if (tensors.size() == 1) return tensors.front().reshape({-1});
  std::vector<torch::Tensor> flat;
  flat.reserve(tensors.size());
  for (const auto& t : tensors) flat.push_back(t.reshape({-1}));
  return torch::cat(flat);
}

}  // namespace

void CountSum::add(const torch::Tensor& n) {
  if (!n.defined() || n.dim() != 0 ||
      !(at::isIntegralType(n.scalar_type(), /*includeBool=*/true))) {
    throw UsageError(fmt::format(
        "CountSum::add: a count must be a 0-dim tensor of integers, got {}",
        n.defined()
            ? fmt::format("{} of shape {}", c10::toString(n.scalar_type()), detail::shape_string(n))
            : std::string("an undefined tensor")));
  }
  if (n.device().is_cpu()) {
    host_ += n.item<int64_t>();
    return;
  }
  const torch::Tensor count = n.to(torch::kLong);
  pending_ = pending_.defined() ? pending_ + count : count;
}

void CountSum::add_nonzeros(const torch::Tensor& t, int64_t times) {
  if (t.device().is_cpu()) {
    host_ += detail::count_nonzero(t) * times;
    return;
  }
  if (detail::DeviceTally* tally = detail::current_tally()) {
    if (auto handle = tally->add(t, /*batched=*/t.dim() > 0)) {
      tallied_.emplace_back(std::make_shared<const detail::TallyHandle>(std::move(*handle)), times);
      return;
    }
  }
  kept_[times].nonzeros.push_back(t);
  kept_bytes_ += bytes_of(t);
  if (kept_bytes_ > kMaxKeptBytes) count_kept();
}

void CountSum::add_changes(const torch::Tensor& before, const torch::Tensor& after, int64_t times) {
  if (before.device().is_cpu() && after.device().is_cpu()) {
    host_ += detail::count_changed(before, after) * times;
    return;
  }
  if (!before.sizes().equals(after.sizes())) {
    (void)detail::count_changed(before, after);  // throws, naming the shapes
  }
  Kept& kept = kept_[times];
  kept.before.push_back(before);
  kept.after.push_back(after);
  kept_bytes_ += bytes_of(before) + bytes_of(after);
  if (kept_bytes_ > kMaxKeptBytes) count_kept();
}

// Per factor: one join and one count of the tensors, one of the pairs, on their device.
void CountSum::count_kept() const {
  for (const auto& [times, kept] : kept_) {
    torch::Tensor count;
    if (!kept.nonzeros.empty()) count = joined(kept.nonzeros).ne(0).sum(torch::kLong);
    if (!kept.after.empty()) {
      const torch::Tensor changed =
          (joined(kept.after) - joined(kept.before)).ne(0).sum(torch::kLong);
      count = count.defined() ? count + changed : changed;
    }
    if (!count.defined()) continue;
    if (times != 1) count = count * times;
    pending_ = pending_.defined() ? pending_ + count : count;
  }
  kept_.clear();
  kept_bytes_ = 0;
}

int64_t CountSum::value() const {
  for (const auto& [handle, times] : tallied_) host_ += handle->counts().nonzeros * times;
  tallied_.clear();
  if (!kept_.empty()) count_kept();
  if (pending_.defined()) {
    host_ += pending_.item<int64_t>();  // the one wait for the device
    pending_ = torch::Tensor();
  }
  return host_;
}

void CountSum::reset() {
  host_ = 0;
  pending_ = torch::Tensor();
  kept_.clear();
  kept_bytes_ = 0;
  tallied_.clear();
}

}  // namespace neurobench
