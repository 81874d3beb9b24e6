// SPDX-License-Identifier: Apache-2.0
#include "metrics/device_tally.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include <ATen/Functions.h>
#include <c10/core/Device.h>

namespace neurobench::detail {

namespace {

thread_local DeviceTally* current = nullptr;

bool is_floating(c10::ScalarType t) {
  return t == c10::kFloat || t == c10::kDouble || t == c10::kHalf || t == c10::kBFloat16;
}

// A tensor as the tally sees it: (rows, features), and what identifies it for the batch.
struct Piece {
  at::Tensor tensor;   // as added: kept alive while its identity is used
  at::Tensor view;     // (rows, features)
  at::Tensor weights;  // int64 on the CPU (features), or undefined
  int64_t rows = 0;
  int64_t features = 0;
};

}  // namespace

struct TallyBatch {
  std::vector<Piece> pieces;         // index: a handle's
  std::vector<TallyCounts> results;  // pieces [0, results.size()) are counted
  // Pieces not yet counted, by the tensor they view: the same tensor added twice (an
  // activation's output that is the next layer's input) is counted once.
  std::unordered_multimap<const void*, std::size_t> pending_by_impl;
  int64_t kept_bytes = 0;
  bool sealed = false;  // read: later tensors start a new batch
  // The comparisons that count each element: != 0, != 1, != -1 (by dtype and device).
  std::shared_ptr<std::map<std::tuple<int, int, int>, at::Tensor>> compared;

  void count_pending();
};

namespace {

// A group's pieces as one (rows, features) tensor, each element compared with 0, 1 and -1, and
// summed over the rows: (features, 3) int32 counts on the device. Four operators for the whole
// group (the join, the comparisons, the sum, and the read that follows).
at::Tensor group_counts(const std::vector<const Piece*>& group, const at::Tensor& compared) {
  std::vector<at::Tensor> views;
  views.reserve(group.size());
  for (const Piece* p : group) views.push_back(p->view);
  const at::Tensor joined = views.size() == 1 ? views.front() : at::cat(views, 1);
  return joined.unsqueeze(-1).ne(compared).sum(0, /*keepdim=*/false, at::kInt);
}

// The counts of `p` from its rows of a group's read-back counts.
TallyCounts piece_counts(const Piece& p, const int32_t* counts) {
  TallyCounts c;
  int64_t not_one = 0;
  int64_t not_minus_one = 0;
  const int64_t* w = p.weights.defined() ? p.weights.data_ptr<int64_t>() : nullptr;
  for (int64_t f = 0; f < p.features; ++f) {
    const int64_t nonzero = counts[3 * f];
    c.nonzeros += nonzero;
    not_one += counts[3 * f + 1];
    not_minus_one += counts[3 * f + 2];
    if (w != nullptr) c.weighted += nonzero * w[f];
  }
  // An element of -1, 0 or 1 differs from two of the three; any other (NaN too) from all three.
  c.not_spikes = c.nonzeros + not_one + not_minus_one - 2 * p.rows * p.features;
  return c;
}

}  // namespace

void TallyBatch::count_pending() {
  const std::size_t first = results.size();
  if (first == pieces.size()) return;
  // Groups of pieces that join: the same rows, dtype and device, in the order added.
  using GroupKey = std::tuple<int64_t, c10::ScalarType, c10::Device>;
  std::vector<std::pair<GroupKey, std::vector<const Piece*>>> groups;
  for (std::size_t i = first; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    const GroupKey key{p.rows, p.view.scalar_type(), p.view.device()};
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(&p);
  }
  std::vector<at::Tensor> per_group;
  for (const auto& [key, group] : groups) {
    const c10::Device device = std::get<2>(key);
    at::Tensor& cmp = (*compared)[{static_cast<int>(std::get<1>(key)),
                                   static_cast<int>(device.type()), device.index()}];
    if (!cmp.defined()) {
      cmp = at::tensor({0.0, 1.0, -1.0}, at::TensorOptions().dtype(at::kDouble))
                .to(std::get<2>(key), std::get<1>(key));
    }
    per_group.push_back(group_counts(group, cmp).reshape({-1}));
  }
  // The one wait for the device.
  const at::Tensor host =
      (per_group.size() == 1 ? per_group.front() : at::cat(per_group)).to(at::kCPU).contiguous();
  std::vector<TallyCounts> counted(pieces.size() - first);
  const int32_t* at_group = host.data_ptr<int32_t>();
  for (const auto& [key, group] : groups) {
    for (const Piece* p : group) {
      counted[static_cast<std::size_t>(p - pieces.data()) - first] = piece_counts(*p, at_group);
      at_group += 3 * p->features;
    }
  }
  results.insert(results.end(), counted.begin(), counted.end());
  // What was counted is let go.
  for (std::size_t i = first; i < pieces.size(); ++i) {
    pieces[i].tensor = at::Tensor();
    pieces[i].view = at::Tensor();
    pieces[i].weights = at::Tensor();
  }
  pending_by_impl.clear();
  kept_bytes = 0;
}

const TallyCounts& TallyHandle::counts() const {
  TallyBatch& b = *batch_;
  if (index_ >= b.results.size()) b.count_pending();
  b.sealed = true;
  return b.results[index_];
}

DeviceTally::DeviceTally(int64_t max_kept_bytes) : max_kept_bytes_(max_kept_bytes) {}
DeviceTally::~DeviceTally() = default;

std::optional<TallyHandle> DeviceTally::add(const at::Tensor& t, bool batched,
                                            const at::Tensor& weights) {
  if (!t.defined() || t.device().is_cpu() || !is_floating(t.scalar_type()) || t.numel() == 0 ||
      (batched && t.dim() == 0)) {
    return std::nullopt;
  }
  const int64_t rows = batched ? t.size(0) : 1;
  const int64_t features = t.numel() / rows;
  if (weights.defined() && (weights.numel() != features || !weights.device().is_cpu() ||
                            weights.scalar_type() != at::kLong)) {
    return std::nullopt;  // not what the caller meant to count: it counts itself
  }
  if (!batch_ || batch_->sealed) {
    auto next = std::make_shared<TallyBatch>();
    next->compared = batch_ ? batch_->compared
                            : std::make_shared<std::map<std::tuple<int, int, int>, at::Tensor>>();
    batch_ = std::move(next);
  }
  TallyBatch& b = *batch_;
  TallyHandle handle;
  handle.batch_ = batch_;
  const auto [from, to] = b.pending_by_impl.equal_range(t.unsafeGetTensorImpl());
  for (auto it = from; it != to; ++it) {
    Piece& p = b.pieces[it->second];
    if (p.rows != rows || !p.tensor.sizes().equals(t.sizes()) ||
        !p.tensor.strides().equals(t.strides()) ||
        p.tensor.storage_offset() != t.storage_offset()) {
      continue;
    }
    // The same tensor: counted once, with the weights of whichever asked for weights.
    if (weights.defined() && !p.weights.defined()) p.weights = weights.contiguous();
    if (!weights.defined() || p.weights.is_same(weights)) {
      handle.index_ = it->second;
      return handle;
    }
  }
  Piece p;
  p.tensor = t;
  p.view = t.reshape({rows, features});
  p.weights = weights.defined() ? weights.contiguous() : weights;
  p.rows = rows;
  p.features = features;
  handle.index_ = b.pieces.size();
  b.pieces.push_back(std::move(p));
  b.pending_by_impl.emplace(t.unsafeGetTensorImpl(), handle.index_);
  b.kept_bytes += t.numel() * static_cast<int64_t>(t.element_size());
  if (b.kept_bytes > max_kept_bytes_) b.count_pending();  // memory stays bounded
  return handle;
}

DeviceTally* current_tally() { return current; }

TallyScope::TallyScope(DeviceTally& tally) : previous_(current) { current = &tally; }

TallyScope::~TallyScope() { current = previous_; }

}  // namespace neurobench::detail
