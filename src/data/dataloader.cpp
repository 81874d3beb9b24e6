// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/dataloader.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>

namespace neurobench {

void LoaderOptions::validate() const {
  if (batch_size <= 0 || batch_size > kMaxBatchSize) {
    throw UsageError(fmt::format("batch_size: {} is out of range; expected an integer from 1 to {}",
                                 batch_size, kMaxBatchSize));
  }
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_) throw UsageError("DataLoader: no dataset");
  options_.validate();
  if (dataset_->size() == 0) {
    throw InputError(fmt::format("{}: the dataset is empty", dataset_->describe()));
  }
  if (dataset_->given_batches() && options_.shuffle_seed) {
    throw UsageError(fmt::format(
        "shuffle_seed: {} hands out its own batches in order; it cannot be shuffled",
        dataset_->describe()));
  }
  if (const std::optional<int64_t> fixed = dataset_->fixed_batch_size()) {
    // A sequential data set streams recordings through the slots of its batches: their size
    // and order are the data set's.
    if (options_.shuffle_seed) {
      throw UsageError(fmt::format(
          "shuffle_seed: {} hands out its batches in order (recordings stream through the "
          "slots of its batches); it cannot be shuffled",
          dataset_->describe()));
    }
    options_.batch_size = *fixed;
  }
  if (options_.shuffle_seed) {
    order_.resize(static_cast<std::size_t>(dataset_->size()));
    std::iota(order_.begin(), order_.end(), 0);
    std::mt19937_64 rng(*options_.shuffle_seed);
    std::shuffle(order_.begin(), order_.end(), rng);
  }
}

std::size_t DataLoader::num_batches() const {
  if (const std::optional<std::size_t> given = dataset_->given_batches()) return *given;
  const int64_t n = dataset_->size();
  return static_cast<std::size_t>((n + options_.batch_size - 1) / options_.batch_size);
}

Batch DataLoader::batch(std::size_t index) const {
  if (index >= num_batches()) {
    throw UsageError(fmt::format("{}: batch {} out of range (there are {})", dataset_->describe(),
                                 index, num_batches()));
  }
  if (dataset_->given_batches()) return dataset_->given_batch(index);
  const int64_t begin = static_cast<int64_t>(index) * options_.batch_size;
  const int64_t end = std::min(begin + options_.batch_size, dataset_->size());
  if (order_.empty()) return dataset_->slice(begin, end);
  return dataset_->get(std::vector<int64_t>(order_.begin() + begin, order_.begin() + end));
}

}  // namespace neurobench
