// SPDX-License-Identifier: Apache-2.0
// A pre-processor as docs/design.md says to add one: one .cpp file, one registration line.
#include <neurobench/neurobench.hpp>

namespace extension_test {

class TestDouble final : public neurobench::PreProcessor {
 public:
  neurobench::Batch operator()(const neurobench::Batch& batch) override {
    neurobench::Batch out = batch;
    out.data = batch.data * 2;
    return out;
  }
};

}  // namespace extension_test

NEUROBENCH_REGISTER_PROCESSOR(extension_test::TestDouble, "doubles the data (a test processor)");
