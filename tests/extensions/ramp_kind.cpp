// SPDX-License-Identifier: Apache-2.0
// A data set kind as docs/design.md says to add one: one .cpp file, one registration line.
// `test-ramp:ANY` is `samples` rows of 4 features, row i all i, targets 0; the path is not read.
#include <neurobench/neurobench.hpp>

namespace extension_test {

class TestRampKind final : public neurobench::DatasetOpener {
 public:
  explicit TestRampKind(const neurobench::Json& options)
      : samples_(options.at("samples").get<int64_t>()) {
    if (samples_ < 1) {
      throw neurobench::UsageError("option 'samples' must be at least 1, got " +
                                   std::to_string(samples_));
    }
  }

  static neurobench::DatasetKind describe() {
    return neurobench::DatasetKind("test-ramp", "rows of 4 features, row i all i (a test kind)")
        .with_path("anything: the path is not read")
        .with_option("samples", "integer", 6, "how many rows");
  }

  std::shared_ptr<neurobench::Dataset> open(
      const std::filesystem::path& /*path*/,
      const neurobench::DatasetOpenOptions& /*open*/) const override {
    const auto rows = torch::arange(samples_, torch::kFloat).unsqueeze(1).expand({samples_, 4});
    return std::make_shared<neurobench::TensorDataset>(rows.contiguous(),
                                                       torch::zeros({samples_}, torch::kLong));
  }

 private:
  int64_t samples_;
};

}  // namespace extension_test

NEUROBENCH_REGISTER_DATASET_KIND(extension_test::TestRampKind);
