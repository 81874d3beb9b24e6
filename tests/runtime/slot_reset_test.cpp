// SPDX-License-Identifier: Apache-2.0
// NeuroBenchModel::reset_slots: the workload and timing passes hand a model the batch's
// `starts_recording` extra (a sequential data set's) before each forward, all slots at a pass's
// first batch and at each cycle of the timing pass.
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

namespace {

// A module counting, per slot, the batches since its last reset (its predictions), and logging
// every mask reset_slots() gets as a row of `log`; a ReLU child gives ActivationSparsity a layer
// to hook (so that the pass runs an instrumented clone).
torch::jit::Module slot_reset_counter() {
  torch::jit::Module relu("ReLU");
  relu.define(R"JIT(
def forward(self, x):
    return torch.relu(x)
)JIT");
  torch::jit::Module m("SlotCounter");
  m.register_buffer("count", torch::zeros({2}));
  m.register_buffer("log", torch::zeros({0, 2}));
  m.register_module("act", relu);
  m.define(R"JIT(
def forward(self, x):
    self.count = self.count + 1
    return self.act.forward(self.count.unsqueeze(1) + 0 * x.sum(1, keepdim=True))

def reset_slots(self, mask):
    self.log = torch.cat([self.log, mask.float().unsqueeze(0)], 0)
    self.count = torch.where(mask, torch.zeros_like(self.count), self.count)
)JIT");
  return m;
}

// Records the predictions of each batch of the workload pass.
class SlotResetPreds final : public neurobench::WorkloadMetric {
 public:
  explicit SlotResetPreds(std::vector<torch::Tensor>* seen) : seen_(seen) {}
  neurobench::Json operator()(const neurobench::WorkloadInput& in) override {
    seen_->push_back(in.preds.clone());
    return 0.0;
  }

 private:
  std::vector<torch::Tensor>* seen_;
};

neurobench::DataLoader slot_reset_loader(torch::Tensor starts) {
  auto ds = std::make_shared<neurobench::TensorDataset>(
      torch::ones({6, 3}), torch::zeros({6}),
      std::map<std::string, torch::Tensor>{{"starts_recording", std::move(starts)}});
  neurobench::LoaderOptions o;
  o.batch_size = 2;
  return neurobench::DataLoader(std::move(ds), o);
}

neurobench::Results slot_reset_run(const std::shared_ptr<neurobench::TorchScriptModel>& model,
                                   torch::Tensor starts, std::vector<torch::Tensor>* seen,
                                   bool hooks) {
  neurobench::MetricSet metrics = neurobench::MetricSet::from_names(
      {}, hooks ? std::vector<std::string>{"ActivationSparsity", "Latency"}
                : std::vector<std::string>{"Latency"});
  metrics.workload_metrics.push_back(std::make_unique<SlotResetPreds>(seen));
  neurobench::RunOptions o;
  o.quiet = true;
  o.timing.warmup = 0;
  o.timing.runs = 4;  // batches 0, 1, 2, then 0 again
  neurobench::Benchmark bench(model, slot_reset_loader(std::move(starts)), {}, {},
                              std::move(metrics));
  return bench.run(o);
}

torch::Tensor slot_reset_rows(std::vector<std::vector<float>> rows) {
  std::vector<torch::Tensor> out;
  for (auto& r : rows) out.push_back(torch::tensor(r));
  return torch::stack(out);
}

}  // namespace

TEST_CASE("the passes reset a model's slots where a recording starts, all at a pass's start",
          "[benchmark][reset_slots]") {
  const bool hooks = GENERATE(false, true);
  CAPTURE(hooks);
  auto model = std::make_shared<neurobench::TorchScriptModel>(slot_reset_counter());
  // Slot 0 starts a recording at batch 0 and slot 1 at batch 1.
  const torch::Tensor starts = torch::tensor({true, false, false, true, false, false});
  std::vector<torch::Tensor> seen;
  const neurobench::Results r = slot_reset_run(model, starts, &seen, hooks);
  REQUIRE(r.ok());
  // Workload pass: batch 0 resets both slots (the pass's first), batch 1 slot 1, batch 2 none;
  // the predictions count batches since the slot's reset, so the reset reached the module the
  // forward ran (the instrumented clone when ActivationSparsity hooks it).
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].flatten().equal(torch::tensor({1.0F, 1.0F})));
  CHECK(seen[1].flatten().equal(torch::tensor({2.0F, 1.0F})));
  CHECK(seen[2].flatten().equal(torch::tensor({3.0F, 2.0F})));
  // The timing pass runs the loaded module itself: its log holds the timing pass's masks
  // (4 runs: batches 0, 1, 2, 0; each new cycle resets all), after the workload pass's when
  // that ran there too (no hooks).
  const torch::Tensor log = model->module().attr("log").toTensor();
  const torch::Tensor timing = slot_reset_rows({{1, 1}, {0, 1}, {0, 0}, {1, 1}});
  if (hooks) {
    CHECK(log.equal(timing));
  } else {
    CHECK(log.equal(torch::cat({slot_reset_rows({{1, 1}, {0, 1}, {0, 0}}), timing})));
  }
}

TEST_CASE("a starts_recording extra that is not bool (batch) is an error naming it",
          "[benchmark][reset_slots]") {
  auto model = std::make_shared<neurobench::TorchScriptModel>(slot_reset_counter());
  std::vector<torch::Tensor> seen;
  REQUIRE_THROWS_MATCHES(
      slot_reset_run(model, torch::tensor({1, 0, 0, 1, 0, 0}), &seen, false),
      neurobench::InputError,
      Catch::Matchers::Message(
          "batch 0: extras['starts_recording'] must be a bool tensor of shape [2] (one per "
          "slot), got Long [2]"));
}

TEST_CASE("a reset_slots method that fails is an error naming the model and the mask",
          "[benchmark][reset_slots]") {
  torch::jit::Module m("NeedsThreeSlots");
  m.define(R"JIT(
def forward(self, x):
    return x

def reset_slots(self, mask):
    assert mask.numel() == 3, "three slots expected"
)JIT");
  auto model = std::make_shared<neurobench::TorchScriptModel>(m, neurobench::TorchScriptOptions{},
                                                              "three_slots.pt");
  std::vector<torch::Tensor> seen;
  REQUIRE_THROWS_WITH(
      slot_reset_run(model, torch::tensor({true, false, false, true, false, false}), &seen, false),
      Catch::Contains("three_slots.pt: reset_slots(mask) failed on a mask of shape [2]") &&
          Catch::Contains("three slots expected"));
}
