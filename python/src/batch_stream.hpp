// SPDX-License-Identifier: Apache-2.0
#pragma once

// A Python iterable of batches as neurobench_cpp._core's runs read it. Private to python/src.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>

#include "values.hpp"

namespace neurobench_cpp {

/// Batches handed out in order, each fetched from the Python iterator when the run asks for it
/// (given_batch() takes the GIL only for that; the tensors cross without a copy). Holds Python
/// objects: made, and destroyed, with the GIL held.
class PyBatchStream final : public nb::Dataset {
 public:
  /// `batches`: how many the iterable gives (its len()); `samples`: the data set's length each
  /// batch is weighed against (NeuroBench's len(dataloader.dataset)). `keep`: hold on to every
  /// batch (their tensors, not copies) for the timing pass, which reads them again.
  PyBatchStream(py::object iterator, std::size_t batches, int64_t samples, std::string name,
                bool keep, std::shared_ptr<PyErrorSlot> errors);

  [[nodiscard]] int64_t size() const override { return samples_; }
  [[nodiscard]] nb::Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] nb::Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override { return name_; }
  [[nodiscard]] std::optional<std::size_t> given_batches() const override { return batches_; }
  /// The next batch from the iterator (or a kept one); InputError naming the batch when the
  /// iterable raises (the exception is kept in the error slot) or ends early.
  [[nodiscard]] nb::Batch given_batch(std::size_t index) const override;

  /// The current batch as the iterable gave it, and its kwargs (None without): GIL held.
  [[nodiscard]] const py::object& current() const { return current_; }
  [[nodiscard]] const py::object& kwargs() const { return kwargs_; }

 private:
  [[nodiscard]] nb::UsageError no_random_access() const;

  py::object iterator_;
  std::size_t batches_;
  int64_t samples_;
  std::string name_;
  bool keep_ = false;
  std::shared_ptr<PyErrorSlot> errors_;
  mutable std::size_t next_ = 0;
  mutable std::vector<nb::Batch> kept_;
  mutable py::object current_ = py::none();
  mutable py::object kwargs_ = py::none();
};

}  // namespace neurobench_cpp
