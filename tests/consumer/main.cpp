// SPDX-License-Identifier: Apache-2.0
// Runs a benchmark with a metric of its own, registered in one line.
#include <iostream>

#include <neurobench/neurobench.hpp>

namespace {
class NonZeroPredictions final : public neurobench::AccumulatedMetric {
 public:
  void reset() override { count_ = 0; }
  void update(const neurobench::WorkloadInput& input) override {
    count_ += input.preds.count_nonzero().item<int64_t>();
  }
  neurobench::Json compute() const override { return count_; }

 private:
  int64_t count_ = 0;
};
NEUROBENCH_REGISTER_METRIC(NonZeroPredictions, "predictions that are not zero");
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer MODEL.pt DATA.npz\n";
    return 2;
  }
  auto model = std::make_shared<neurobench::TorchScriptModel>(argv[1]);
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(argv[2]));
  neurobench::Benchmark bench(
      model, neurobench::DataLoader(data), {}, {},
      neurobench::MetricSet::from_names({"ParameterCount"},
                                        {"ClassificationAccuracy", "NonZeroPredictions"}));
  neurobench::RunOptions options;
  options.quiet = true;
  const auto results = bench.run(options);
  std::cout << results.values.dump() << "\n";
  return results.ok() ? 0 : 1;
}
