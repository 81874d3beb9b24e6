// SPDX-License-Identifier: Apache-2.0
// A metric as docs/design.md says to add one: one .cpp file, one registration line.
#include <neurobench/neurobench.hpp>

namespace extension_test {

class TestDataSum final : public neurobench::AccumulatedMetric {
 public:
  static neurobench::MetricDescription describe() {
    return neurobench::MetricDescription("sum of the pre-processed data (a test metric)")
        .with_unit("data units")
        .higher_is_better();
  }
  void reset() override { sum_ = 0; }
  void update(const neurobench::WorkloadInput& input) override {
    sum_ += input.batch.data.sum().item<double>();
  }
  neurobench::Json compute() const override { return sum_; }

 private:
  double sum_ = 0;
};

}  // namespace extension_test

NEUROBENCH_REGISTER_METRIC(extension_test::TestDataSum);
