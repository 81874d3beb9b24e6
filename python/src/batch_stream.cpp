// SPDX-License-Identifier: Apache-2.0
// A Python iterable of batches as neurobench_cpp._core's runs read it (batch_stream.hpp).
#include "batch_stream.hpp"

#include <utility>

#include <fmt/format.h>

namespace neurobench_cpp {

PyBatchStream::PyBatchStream(py::object iterator, std::size_t batches, int64_t samples,
                             std::string name, bool keep, std::shared_ptr<PyErrorSlot> errors)
    : iterator_(std::move(iterator)),
      batches_(batches),
      samples_(samples),
      name_(std::move(name)),
      keep_(keep),
      errors_(std::move(errors)) {}

nb::Batch PyBatchStream::get(const std::vector<int64_t>& /*indices*/) const {
  throw no_random_access();
}

nb::Batch PyBatchStream::slice(int64_t /*begin*/, int64_t /*end*/) const {
  throw no_random_access();
}

nb::Batch PyBatchStream::given_batch(std::size_t index) const {
  if (index < kept_.size()) return kept_[index];
  if (index != next_) throw no_random_access();
  py::gil_scoped_acquire gil;
  const std::string what = fmt::format("{}: batch {}", name_, index);
  py::object item;
  try {
    // Ctrl-C while C++ runs: Python's handler only set a flag; it is raised here, between
    // batches, and comes back as KeyboardInterrupt once the run has unwound.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    item = py::reinterpret_steal<py::object>(PyIter_Next(iterator_.ptr()));
    if (!item && PyErr_Occurred()) throw py::error_already_set();
  } catch (py::error_already_set& e) {
    throw nb::InputError(errors_->keep(e, "reading " + what));
  }
  if (!item) {
    throw nb::InputError(fmt::format("{}: the iterable ended after {} batches; its len() is {}",
                                     name_, index, batches_));
  }
  nb::Batch batch = batch_of(item, what);
  current_ = item;
  kwargs_ = py::none();
  if (py::len(item) == 3) kwargs_ = py::reinterpret_borrow<py::sequence>(item)[2];
  ++next_;
  if (keep_) kept_.push_back(batch);
  return batch;
}

nb::UsageError PyBatchStream::no_random_access() const {
  return nb::UsageError(fmt::format(
      "{}: a Python iterable is read once, batch by batch, in order (its batches are kept "
      "for the timing metrics to read again); the per-layer profile reads a data set in "
      "batches of its own: give it a data set kind (neurobench_cpp.DatasetKind)",
      name_));
}

}  // namespace neurobench_cpp
