// SPDX-License-Identifier: Apache-2.0
#include <neurobench/model/hooks.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "model/model_fixtures.hpp"
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

// Fixtures: tests/fixtures/models/, written by make_models.py. Expected values of every module
// call (inputs, output, `mem` before and after) were recorded there with eager PyTorch hooks.

namespace {

namespace fs = std::filesystem;
using neurobench::HookHandle;
using neurobench::ModuleCall;
using neurobench::ModuleSelector;
using neurobench::OperatorCall;
using neurobench::OperatorSelector;
using neurobench::TorchScriptModel;
using neurobench::test::close;
using neurobench::test::expected;
using neurobench::test::tensor_of;
using neurobench::TorchScriptOptions;
using neurobench::UsageError;





// The first tensor of a module output: the tensor itself or element 0 of `(spk, mem)`.
torch::Tensor first_tensor(const c10::IValue& v) {
  if (v.isTuple()) return v.toTupleRef().elements().at(0).toTensor();
  return v.toTensor();
}

// One module call as a hook saw it, copied out of the call.
struct SeenCall {
  std::string path;
  std::string type_name;
  std::vector<torch::Tensor> inputs;  // tensor inputs only; undefined for None
  torch::Tensor output;               // first tensor of the output; undefined in pre-hooks
  torch::Tensor mem;                  // the module's `mem` attribute, when it has one
};

SeenCall seen(const ModuleCall& call) {
  SeenCall s{call.module.path, call.module.type_name, {}, {}, {}};
  for (const auto& input : call.inputs) {
    s.inputs.push_back(input.isTensor() ? input.toTensor().clone() : torch::Tensor());
  }
  if (call.output != nullptr) s.output = first_tensor(*call.output).clone();
  if (call.object.hasattr("mem")) s.mem = call.object.attr("mem").toTensor().clone();
  return s;
}

std::vector<std::string> paths_of(const std::vector<SeenCall>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c.path);
  return out;
}

// One operator call as a hook saw it.
struct SeenOp {
  std::string module;
  std::string op;
  std::string site;
  std::vector<c10::IValue> args;
  torch::Tensor output;
};

SeenOp seen(const OperatorCall& call) {
  SeenOp s{call.module.path, std::string(call.op), std::string(call.site), {}, {}};
  s.args.assign(call.args.begin(), call.args.end());
  if (call.output != nullptr) s.output = call.output->toTensor().clone();
  return s;
}

std::vector<std::string> sites_of(const std::vector<SeenOp>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c.site);
  return out;
}

std::vector<std::string> ops_of(const std::vector<SeenOp>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c.op);
  return out;
}

// The forward output of module `path` in the recorded call `k`.
torch::Tensor recorded_output(const nlohmann::json& calls, const std::string& path,
                              std::size_t k = 0) {
  const auto& out = calls.at(path).at(k).at("output");
  return tensor_of(out.is_array() ? out.at(0) : out);
}

torch::Tensor recorded_input(const nlohmann::json& calls, const std::string& path,
                             std::size_t k = 0) {
  return tensor_of(calls.at(path).at(k).at("inputs").at(0));
}

// Each module call's first input and its output are those eager PyTorch recorded for its path.
void check_recorded(const std::vector<SeenCall>& got, const nlohmann::json& calls) {
  for (const auto& call : got) {
    INFO(call.path);
    CHECK(close(call.inputs.at(0), recorded_input(calls, call.path)));
    CHECK(close(call.output, recorded_output(calls, call.path)));
  }
}

torch::Tensor weight_of(const TorchScriptModel& model, const std::string& path,
                        const std::string& name) {
  torch::jit::Module m = model.module();
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto dot = path.find('.', start);
    const std::string atom = path.substr(start, dot == std::string::npos ? dot : dot - start);
    m = m.attr(atom).toModule();
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return m.attr(name).toTensor();
}

std::size_t count_observers(torch::jit::Block* block) {
  std::size_t n = 0;
  for (torch::jit::Node* node : block->nodes()) {
    if (std::string(node->kind().toQualString()) == "neurobench::observe") ++n;
    for (torch::jit::Block* sub : node->blocks()) n += count_observers(sub);
  }
  return n;
}

// Observer nodes in every method graph of every module of `module`.
std::size_t count_observers(const torch::jit::Module& module) {
  std::size_t n = 0;
  for (const auto& item : module.named_modules()) {
    for (const auto& method : item.value.get_methods()) {
      n += count_observers(torch::jit::toGraphFunction(method.function()).graph()->block());
    }
  }
  return n;
}

const std::vector<std::string> kMlpLinears = {"fc1", "block1.seq.0", "block2.seq.0", "head"};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Selectors

TEST_CASE("a module selector matches by exact path or by class name", "[hooks][selector]") {
  const neurobench::ModuleInfo fc{"block1.fc", "Linear", "torch.nn.modules.linear.Linear", {}, {}};
  CHECK(ModuleSelector::by_path({"block1.fc"}).matches(fc));
  CHECK_FALSE(ModuleSelector::by_path({"block1"}).matches(fc));
  CHECK_FALSE(ModuleSelector::by_path({"fc"}).matches(fc));
  CHECK(ModuleSelector::by_type({"ReLU", "Linear"}).matches(fc));
  CHECK_FALSE(ModuleSelector::by_type({"linear"}).matches(fc));
  CHECK(ModuleSelector{{"x"}, {"Linear"}}.matches(fc));
  CHECK(ModuleSelector{}.empty());
  CHECK_FALSE(ModuleSelector::by_path({"x"}).empty());
  CHECK_FALSE(ModuleSelector{}.matches(fc));
}

// ---------------------------------------------------------------------------------------------
// Module hooks

TEST_CASE("a forward hook selected by class name sees every Linear's input and output in order",
          "[hooks]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenCall> got;
  model.register_forward_hook(ModuleSelector::by_type({"Linear"}),
                              [&](const ModuleCall& call) { got.push_back(seen(call)); });
  const torch::Tensor out = model.forward(tensor_of(json.at("input")));
  CHECK(close(out, tensor_of(json.at("output"))));  // hooks do not change results
  REQUIRE(paths_of(got) == kMlpLinears);
  for (const auto& call : got) {
    INFO(call.path);
    CHECK(call.type_name == "Linear");
    REQUIRE(call.inputs.size() == 1);
    CHECK(close(call.inputs[0], recorded_input(calls, call.path)));
    CHECK(close(call.output, recorded_output(calls, call.path)));
  }
}

TEST_CASE("a forward pre-hook selected by dotted path sees only that module's inputs", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenCall> got;
  bool had_output = false;
  model.register_forward_pre_hook(ModuleSelector::by_path({"block2.seq.1"}),
                                  [&](const ModuleCall& call) {
                                    had_output = call.output != nullptr;
                                    got.push_back(seen(call));
                                  });
  (void)model.forward(tensor_of(json.at("input")));
  REQUIRE(paths_of(got) == std::vector<std::string>{"block2.seq.1"});
  CHECK_FALSE(had_output);
  CHECK(got[0].type_name == "ReLU");
  CHECK(close(got[0].inputs.at(0), recorded_input(json.at("calls"), "block2.seq.1")));
}

TEST_CASE("pre-hooks run before and forward hooks after the module, in call order", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<std::string> events;
  const auto where = ModuleSelector::by_path({"block1", "block1.seq", "block1.seq.0"});
  model.register_forward_pre_hook(
      where, [&](const ModuleCall& call) { events.push_back("pre " + call.module.path); });
  model.register_forward_hook(
      where, [&](const ModuleCall& call) { events.push_back("post " + call.module.path); });
  (void)model.forward(tensor_of(json.at("input")));
  CHECK(events == std::vector<std::string>{"pre block1", "pre block1.seq", "pre block1.seq.0",
                                           "post block1.seq.0", "post block1.seq", "post block1"});
}

TEST_CASE("the root module is hooked by its empty path or its class name", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenCall> got;
  model.register_forward_hook(ModuleSelector::by_path({""}),
                              [&](const ModuleCall& call) { got.push_back(seen(call)); });
  model.register_forward_hook(ModuleSelector::by_type({"Mlp"}),
                              [&](const ModuleCall& call) { got.push_back(seen(call)); });
  const torch::Tensor out = model.forward(tensor_of(json.at("input")));
  REQUIRE(paths_of(got) == std::vector<std::string>{"", ""});
  CHECK(got[0].type_name == "Mlp");
  CHECK(close(got[0].inputs.at(0), tensor_of(json.at("input"))));
  CHECK(got[0].output.equal(out));
  CHECK(got[1].output.equal(out));
}

TEST_CASE("hooks reach modules nested in a Sequential inside a custom module", "[hooks]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenCall> got;
  model.register_forward_hook(ModuleSelector::by_type({"Sequential", "ReLU"}),
                              [&](const ModuleCall& call) { got.push_back(seen(call)); });
  (void)model.forward(tensor_of(json.at("input")));
  REQUIRE(paths_of(got) == std::vector<std::string>{"relu", "block1.seq.1", "block1.seq",
                                                    "block2.seq.1", "block2.seq"});
  check_recorded(got, calls);
}

TEST_CASE("two instances of one scripted class are told apart by path with their own values",
          "[hooks]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  // Scripting gives identical submodules one class type, hence one graph for both.
  const auto& root = model.module();
  REQUIRE(root.attr("block1").toModule().type() == root.attr("block2").toModule().type());
  REQUIRE(root.attr("block1").toModule().attr("seq").toModule().type() ==
          root.attr("block2").toModule().attr("seq").toModule().type());

  SECTION("selected by class, both are reported") {
    std::vector<SeenCall> got;
    model.register_forward_hook(ModuleSelector::by_type({"Block"}),
                                [&](const ModuleCall& call) { got.push_back(seen(call)); });
    (void)model.forward(tensor_of(json.at("input")));
    REQUIRE(paths_of(got) == std::vector<std::string>{"block1", "block2"});
    check_recorded(got, calls);
    CHECK_FALSE(close(got[0].output, got[1].output));
  }
  SECTION("selected by path, only that instance is reported although the graph is shared") {
    std::vector<SeenCall> got;
    model.register_forward_hook(ModuleSelector::by_path({"block2.seq.0"}),
                                [&](const ModuleCall& call) { got.push_back(seen(call)); });
    (void)model.forward(tensor_of(json.at("input")));
    REQUIRE(paths_of(got) == std::vector<std::string>{"block2.seq.0"});
    CHECK(close(got[0].output, recorded_output(calls, "block2.seq.0")));
  }
}

TEST_CASE("hooks on a traced model, whose instances each have a mangled type, see every module",
          "[hooks][traced]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_traced.pt"));
  std::vector<SeenCall> got;
  model.register_forward_hook(ModuleSelector::by_type({"Linear", "Block"}),
                              [&](const ModuleCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(paths_of(got) == std::vector<std::string>{"fc1", "block1.seq.0", "block1", "block2.seq.0",
                                                    "block2", "head"});
  check_recorded(got, calls);
}

TEST_CASE("a module a traced model calls twice (methods forward and forward1) fires on both calls",
          "[hooks][traced]") {
  const auto json = expected("twice.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("twice_traced.pt"));
  REQUIRE(model.module().attr("fc").toModule().find_method("forward1").has_value());
  std::vector<SeenCall> pre;
  std::vector<SeenCall> post;
  model.register_forward_pre_hook(ModuleSelector::by_path({"fc"}),
                                  [&](const ModuleCall& call) { pre.push_back(seen(call)); });
  model.register_forward_hook(ModuleSelector::by_path({"fc"}),
                              [&](const ModuleCall& call) { post.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(pre.size() == 2);
  REQUIRE(post.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    INFO("call " << k);
    CHECK(close(pre[k].inputs.at(0), recorded_input(calls, "fc", k)));
    CHECK(close(post[k].output, recorded_output(calls, "fc", k)));
  }
}

TEST_CASE(
    "a submodule called once per timestep inside forward fires on every call and its mem "
    "is read before and after each call",
    "[hooks][spiking]") {
  const auto json = expected("snn_loop.json");
  const auto& calls = json.at("calls").at("lif");
  TorchScriptModel model(neurobench::test::model_fixture("snn_loop.pt"));
  std::vector<SeenCall> before;
  std::vector<SeenCall> after;
  model.register_forward_pre_hook(ModuleSelector::by_type({"Leaky"}),
                                  [&](const ModuleCall& call) { before.push_back(seen(call)); });
  model.register_forward_hook(ModuleSelector::by_type({"Leaky"}),
                              [&](const ModuleCall& call) { after.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(before.size() == calls.size());
  REQUIRE(after.size() == calls.size());
  REQUIRE(calls.size() == 5);
  for (std::size_t t = 0; t < calls.size(); ++t) {
    INFO("timestep " << t);
    CHECK(before[t].path == "lif");
    REQUIRE(before[t].inputs.size() == 2);  // (input_, mem)
    CHECK(close(before[t].inputs[0], tensor_of(calls[t].at("inputs").at(0))));
    CHECK(close(before[t].inputs[1], tensor_of(calls[t].at("inputs").at(1))));
    CHECK(close(before[t].mem, tensor_of(calls[t].at("mem_before"))));
    CHECK(close(after[t].mem, tensor_of(calls[t].at("mem_after"))));
    CHECK(close(after[t].output, tensor_of(calls[t].at("output").at(0))));
  }
  CHECK(before[0].mem.numel() == 0);  // the saved, empty state
}

TEST_CASE("hooks on a step-wise model see each timestep's call with the neuron state",
          "[hooks][spiking]") {
  const auto json = expected("snn.json");
  TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"), TorchScriptOptions{true});
  std::vector<SeenCall> before;
  std::vector<SeenCall> after;
  model.register_forward_pre_hook(ModuleSelector::by_type({"Leaky"}),
                                  [&](const ModuleCall& call) { before.push_back(seen(call)); });
  model.register_forward_hook(ModuleSelector::by_type({"Leaky"}),
                              [&](const ModuleCall& call) { after.push_back(seen(call)); });
  const torch::Tensor data = tensor_of(json.at("data"));
  for (int round = 0; round < 2; ++round) {  // the state is reset before each batch
    INFO("batch " << round);
    before.clear();
    after.clear();
    CHECK(model.forward(data.slice(1, 0, 2)).equal(tensor_of(json.at("spikes")).slice(1, 0, 2)));
    REQUIRE(paths_of(after) == std::vector<std::string>{"lif1", "lif2", "lif1", "lif2"});
    for (std::size_t k = 0; k < after.size(); ++k) {
      const auto& calls = json.at(k < 2 ? "calls_t0" : "calls_t1").at(after[k].path).at(0);
      INFO(after[k].path << " call " << k);
      CHECK(close(before[k].mem, tensor_of(calls.at("mem_before"))));
      CHECK(close(after[k].mem, tensor_of(calls.at("mem_after"))));
      CHECK(close(after[k].output, tensor_of(calls.at("output").at(0))));
      CHECK(close(after[k].inputs.at(0), tensor_of(calls.at("inputs").at(0))));
      CHECK_FALSE(after[k].inputs.at(1).defined());  // mem=None
    }
  }
}

TEST_CASE("removing a hook stops it firing and without hooks the loaded module runs again",
          "[hooks]") {
  const auto json = expected("snn_loop.json");
  const torch::Tensor input = tensor_of(json.at("input"));
  TorchScriptModel model(neurobench::test::model_fixture("snn_loop.pt"));
  const auto lif_mem = [&] { return model.module().attr("lif").toModule().attr("mem").toTensor(); };
  int fired = 0;
  const HookHandle handle = model.register_forward_hook(ModuleSelector::by_path({"lif"}),
                                                        [&](const ModuleCall&) { ++fired; });
  CHECK(handle.id != 0);
  CHECK(model.hook_count() == 1);
  CHECK(close(model.forward(input), tensor_of(json.at("output"))));
  CHECK(fired == 5);
  // An instrumented copy ran: the loaded module's state is untouched.
  CHECK(lif_mem().numel() == 0);

  model.remove_hook(handle);
  CHECK(model.hook_count() == 0);
  CHECK(close(model.forward(input), tensor_of(json.at("output"))));
  CHECK(fired == 5);
  // The loaded module itself ran: its neuron kept the last state.
  CHECK(lif_mem().sizes().vec() == std::vector<int64_t>{2, 4});

  model.remove_hook(handle);  // unknown handles are ignored
  model.remove_hook(HookHandle{});
  CHECK(model.hook_count() == 0);
}

TEST_CASE("removing one of two hooks keeps the other firing", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  int linears = 0;
  int relus = 0;
  const HookHandle a = model.register_forward_hook(ModuleSelector::by_type({"Linear"}),
                                                   [&](const ModuleCall&) { ++linears; });
  const HookHandle b = model.register_forward_hook(ModuleSelector::by_type({"ReLU"}),
                                                   [&](const ModuleCall&) { ++relus; });
  CHECK(a.id != b.id);
  (void)model.forward(tensor_of(json.at("input")));
  CHECK(linears == 4);
  CHECK(relus == 3);
  model.remove_hook(a);
  CHECK(model.hook_count() == 1);
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  CHECK(linears == 4);
  CHECK(relus == 6);
}

TEST_CASE("a hook registered after a forward already ran fires on the next forward", "[hooks]") {
  const auto json = expected("mlp.json");
  const torch::Tensor input = tensor_of(json.at("input"));
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  (void)model.forward(input);  // no hooks yet
  std::vector<std::string> first;
  model.register_forward_hook(ModuleSelector::by_path({"head"}),
                              [&](const ModuleCall& call) { first.push_back(call.module.path); });
  (void)model.forward(input);
  CHECK(first == std::vector<std::string>{"head"});
  std::vector<std::string> second;
  model.register_forward_pre_hook(ModuleSelector::by_path({"fc1"}), [&](const ModuleCall& call) {
    second.push_back(call.module.path);
  });
  CHECK(close(model.forward(input), tensor_of(json.at("output"))));
  CHECK(first == std::vector<std::string>{"head", "head"});
  CHECK(second == std::vector<std::string>{"fc1"});
}

TEST_CASE("hooks fire on every forward, also once the graph executor has optimized the graphs",
          "[hooks]") {
  // The profiling executor runs a graph as written first and optimizes it on later runs.
  for (const char* name : {"mlp_scripted.pt", "mlp_frozen.pt"}) {
    INFO(name);
    const auto json = expected("mlp.json");
    TorchScriptModel model(neurobench::test::model_fixture(name));
    std::vector<SeenOp> got;
    model.register_operator_hook({{"aten::linear", "aten::relu"}, {}, true},
                                 [&](const OperatorCall& call) { got.push_back(seen(call)); });
    for (int run = 0; run < 4; ++run) {
      INFO("run " << run);
      got.clear();
      CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
      REQUIRE(got.size() == 7);
      CHECK(close(got.back().output, tensor_of(json.at("output"))));
    }
  }
}

TEST_CASE("hooks still fire after the model is moved", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel first(neurobench::test::model_fixture("mlp_scripted.pt"));
  int fired = 0;
  first.register_forward_hook(ModuleSelector::by_path({"head"}),
                              [&](const ModuleCall&) { ++fired; });
  (void)first.forward(tensor_of(json.at("input")));
  TorchScriptModel model(std::move(first));
  (void)model.forward(tensor_of(json.at("input")));
  CHECK(fired == 2);
  CHECK(model.hook_count() == 1);
}

TEST_CASE("the loaded module's graphs are never instrumented", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  model.register_forward_hook(ModuleSelector::by_type({"Linear", "ReLU", "Block"}),
                              [](const ModuleCall&) {});
  model.register_operator_hook({{"aten::linear"}, {}, false}, [](const OperatorCall&) {});
  (void)model.forward(tensor_of(json.at("input")));
  CHECK(count_observers(model.module()) == 0);
}

TEST_CASE("a hook selecting nothing never fires and leaves results unchanged", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  int fired = 0;
  model.register_forward_hook(ModuleSelector::by_type({"Conv2d"}),
                              [&](const ModuleCall&) { ++fired; });
  model.register_forward_pre_hook(ModuleSelector::by_path({"no.such.path"}),
                                  [&](const ModuleCall&) { ++fired; });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  CHECK(fired == 0);
}

TEST_CASE("an exception thrown by a hook leaves forward with its type and message", "[hooks]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  model.register_forward_hook(ModuleSelector::by_path({"head"}), [](const ModuleCall&) {
    throw neurobench::MetricError("Probe: head output rejected");
  });
  REQUIRE_THROWS_AS(model.forward(tensor_of(json.at("input"))), neurobench::MetricError);
  REQUIRE_THROWS_WITH(model.forward(tensor_of(json.at("input"))),
                      Catch::Contains("Probe: head output rejected"));
}

// ---------------------------------------------------------------------------------------------
// Operator hooks

TEST_CASE(
    "an aten::linear hook within Linear modules sees input, weight and bias in schema "
    "order",
    "[hooks][operators]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  CHECK_FALSE(model.is_inlined());
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::linear"}, ModuleSelector::by_type({"Linear"}), false},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(sites_of(got) == kMlpLinears);
  for (const auto& call : got) {
    INFO(call.site);
    CHECK(call.module == call.site);
    CHECK(call.op == "aten::linear");
    CHECK_FALSE(call.output.defined());
    REQUIRE(call.args.size() == 3);
    CHECK(close(call.args[0].toTensor(), recorded_input(calls, call.module)));
    CHECK(call.args[1].toTensor().equal(weight_of(model, call.module, "weight")));
    CHECK(call.args[2].toTensor().equal(weight_of(model, call.module, "bias")));
  }
}

TEST_CASE("the within selector limits an operator hook to the chosen modules",
          "[hooks][operators]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenOp> got;
  // block1.seq.0 and block2.seq.0 share one class type and graph; only one is chosen.
  model.register_operator_hook(
      {{"aten::linear"}, ModuleSelector::by_path({"block2.seq.0", "head"}), false},
      [&](const OperatorCall& call) { got.push_back(seen(call)); });
  (void)model.forward(tensor_of(json.at("input")));
  CHECK(sites_of(got) == std::vector<std::string>{"block2.seq.0", "head"});
  REQUIRE(!got.empty());
  CHECK(close(got[0].args.at(0).toTensor(), recorded_input(json.at("calls"), "block2.seq.0")));
}

TEST_CASE("an operator hook with no within selector sees the operator in every module",
          "[hooks][operators]") {
  const auto json = expected("mlp.json");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::linear", "aten::mul"}, {}, false},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  (void)model.forward(tensor_of(json.at("input")));
  // `seq(x) * scale` in Block.forward is an aten::mul in the code of block1 and block2.
  CHECK(sites_of(got) == std::vector<std::string>{"fc1", "block1.seq.0", "block1", "block2.seq.0",
                                                  "block2", "head"});
  CHECK(ops_of(got) == std::vector<std::string>{"aten::linear", "aten::linear", "aten::mul",
                                                "aten::linear", "aten::mul", "aten::linear"});
}

TEST_CASE("an operator hook run after the operator sees its output", "[hooks][operators]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::linear"}, ModuleSelector::by_type({"Linear"}), true},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  (void)model.forward(tensor_of(json.at("input")));
  REQUIRE(sites_of(got) == kMlpLinears);
  for (const auto& call : got) {
    INFO(call.site);
    CHECK(call.args.empty());
    CHECK(close(call.output, recorded_output(calls, call.module)));
  }
}

TEST_CASE("an operator hook with args_after runs after the operator and sees its arguments",
          "[hooks][operators]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<std::pair<std::string, SeenOp>> got;  // (which hook, the call)
  const auto within = ModuleSelector::by_type({"Linear"});
  const auto keep = [&](const char* which) {
    return [&got, which](const OperatorCall& call) { got.emplace_back(which, seen(call)); };
  };
  OperatorSelector args_after{{"aten::linear"}, within, false};
  args_after.args_after = true;
  model.register_operator_hook(args_after, keep("args after"));
  model.register_operator_hook({{"aten::linear"}, within, false}, keep("before"));
  model.register_operator_hook({{"aten::linear"}, within, true}, keep("after"));
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(got.size() == 3 * kMlpLinears.size());
  for (std::size_t i = 0; i < kMlpLinears.size(); ++i) {
    INFO(kMlpLinears[i]);
    // Each Linear's before-hook, then the two after it, before the next Linear's.
    const auto& before = got[3 * i];
    CHECK(before.first == "before");
    std::map<std::string, const SeenOp*> later;
    for (std::size_t k = 1; k < 3; ++k) later[got[3 * i + k].first] = &got[3 * i + k].second;
    REQUIRE(later.count("args after") == 1);
    REQUIRE(later.count("after") == 1);
    const SeenOp& a = *later["args after"];
    CHECK(a.site == kMlpLinears[i]);
    CHECK_FALSE(a.output.defined());
    REQUIRE(a.args.size() == before.second.args.size());
    CHECK(close(a.args.at(0).toTensor(), recorded_input(calls, kMlpLinears[i])));
    CHECK(close(a.args.at(1).toTensor(), before.second.args.at(1).toTensor()));
  }
}

TEST_CASE("an aten::relu hook sees the operator a scripted ReLU module calls",
          "[hooks][operators]") {
  // Scripted nn.ReLU calls the TorchScript function torch.nn.functional.relu, which calls
  // aten::relu: the operator is one call away from the module's own graph.
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::relu"}, ModuleSelector::by_type({"ReLU"}), true},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(sites_of(got) == std::vector<std::string>{"relu", "block1.seq.1", "block2.seq.1"});
  for (const auto& call : got) {
    INFO(call.site);
    CHECK(close(call.output, recorded_output(calls, call.module)));
  }
}

TEST_CASE("an aten::conv2d hook in a scripted Conv2d sees its arguments in schema order",
          "[hooks][operators]") {
  const auto json = expected("conv.json");
  const auto& conv = json.at("conv");
  TorchScriptModel model(neurobench::test::model_fixture("conv_scripted.pt"));
  std::vector<SeenOp> got;
  model.register_operator_hook(
      {{"aten::conv2d", "aten::linear"}, ModuleSelector::by_type({"Conv2d"}), false},
      [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(sites_of(got) == std::vector<std::string>{"conv"});  // `fc` is not within
  const auto& args = got[0].args;
  CHECK(got[0].op == "aten::conv2d");
  // conv2d(input, weight, bias, stride, padding, dilation, groups)
  REQUIRE(args.size() == 7);
  CHECK(close(args[0].toTensor(), tensor_of(json.at("input"))));
  CHECK(close(args[1].toTensor(), tensor_of(conv.at("weight"))));
  CHECK(close(args[2].toTensor(), tensor_of(conv.at("bias"))));
  CHECK(args[3].toIntVector() == conv.at("stride").get<std::vector<int64_t>>());
  CHECK(args[4].toIntVector() == conv.at("padding").get<std::vector<int64_t>>());
  CHECK(args[5].toIntVector() == conv.at("dilation").get<std::vector<int64_t>>());
  CHECK(args[6].toInt() == conv.at("groups").get<int64_t>());
}

TEST_CASE("a traced Conv2d calls aten::_convolution, whose hook sees all 13 arguments",
          "[hooks][operators][traced]") {
  const auto json = expected("conv.json");
  REQUIRE(json.at("traced_conv_ops") == nlohmann::json::array({"aten::_convolution"}));
  const auto& conv = json.at("conv");
  TorchScriptModel model(neurobench::test::model_fixture("conv_traced.pt"));
  std::vector<SeenOp> got;
  model.register_operator_hook(
      {{"aten::conv2d", "aten::_convolution"}, ModuleSelector::by_type({"Conv2d"}), false},
      [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(ops_of(got) == std::vector<std::string>{"aten::_convolution"});
  CHECK(got[0].site == "conv");
  // _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
  //              groups, benchmark, deterministic, cudnn_enabled, allow_tf32)
  const auto& args = got[0].args;
  REQUIRE(args.size() == 13);
  CHECK(close(args[0].toTensor(), tensor_of(json.at("input"))));
  CHECK(close(args[1].toTensor(), tensor_of(conv.at("weight"))));
  CHECK(close(args[2].toTensor(), tensor_of(conv.at("bias"))));
  CHECK(args[3].toIntVector() == conv.at("stride").get<std::vector<int64_t>>());
  CHECK(args[4].toIntVector() == conv.at("padding").get<std::vector<int64_t>>());
  CHECK(args[5].toIntVector() == conv.at("dilation").get<std::vector<int64_t>>());
  CHECK(args[6].toBool() == false);
  CHECK(args[7].toIntVector() == std::vector<int64_t>{0, 0});
  CHECK(args[8].toInt() == conv.at("groups").get<int64_t>());
}

// ---------------------------------------------------------------------------------------------
// Frozen (inlined) models

TEST_CASE(
    "a frozen model has no submodules: module hooks find nothing, operator hooks see "
    "linear, relu and mul anywhere",
    "[hooks][operators][frozen]") {
  const auto json = expected("mlp.json");
  const auto& calls = json.at("calls");
  // torch.jit.freeze in 1.13 keeps aten::linear and aten::relu in this graph (checked here so
  // that a change of PyTorch shows up as a failing fixture, not as silently missed layers).
  REQUIRE(json.at("frozen_ops") ==
          nlohmann::json::array({"aten::linear", "aten::relu", "aten::linear", "aten::relu",
                                 "aten::mul", "aten::linear", "aten::relu", "aten::mul",
                                 "aten::linear"}));
  TorchScriptModel model(neurobench::test::model_fixture("mlp_frozen.pt"));
  CHECK(model.is_inlined());
  REQUIRE(model.modules().size() == 1);
  CHECK(model.parameters().empty());

  int module_calls = 0;
  model.register_forward_hook(ModuleSelector::by_type({"Linear", "ReLU"}),
                              [&](const ModuleCall&) { ++module_calls; });
  std::vector<SeenOp> before;
  std::vector<SeenOp> after;
  model.register_operator_hook({{"aten::linear", "aten::relu"}, {}, false},
                               [&](const OperatorCall& call) { before.push_back(seen(call)); });
  model.register_operator_hook({{"aten::relu"}, {}, true},
                               [&](const OperatorCall& call) { after.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  CHECK(module_calls == 0);

  // Sites are named by operator and position in an inlined model.
  CHECK(sites_of(before) ==
        std::vector<std::string>{"aten::linear#0", "aten::relu#0", "aten::linear#1", "aten::relu#1",
                                 "aten::linear#2", "aten::relu#2", "aten::linear#3"});
  for (const auto& call : before) CHECK(call.module.empty());

  // The linear calls are those of fc1, block1.seq.0, block2.seq.0 and head, with the weights
  // frozen into the graph as constants.
  const TorchScriptModel scripted(neurobench::test::model_fixture("mlp_scripted.pt"));
  std::size_t k = 0;
  for (const auto& call : before) {
    if (call.op != "aten::linear") continue;
    const std::string& path = kMlpLinears.at(k++);
    INFO(call.site << " = " << path);
    REQUIRE(call.args.size() == 3);
    CHECK(close(call.args[0].toTensor(), recorded_input(calls, path)));
    CHECK(call.args[1].toTensor().equal(weight_of(scripted, path, "weight")));
    CHECK(call.args[2].toTensor().equal(weight_of(scripted, path, "bias")));
  }
  CHECK(k == 4);
  REQUIRE(sites_of(after) ==
          std::vector<std::string>{"aten::relu#0", "aten::relu#1", "aten::relu#2"});
  CHECK(close(after[0].output, recorded_output(calls, "relu")));
  CHECK(close(after[1].output, recorded_output(calls, "block1.seq.1")));
  CHECK(close(after[2].output, recorded_output(calls, "block2.seq.1")));
}

TEST_CASE(
    "freezing folds batch norm into the conv and drops dropout: hooks see one conv2d with "
    "the folded weight and bias",
    "[hooks][operators][frozen]") {
  const auto json = expected("convbn_frozen.json");
  const auto& calls = json.at("calls");
  // What torch.jit.freeze in 1.13 leaves of conv -> bn -> relu -> flatten -> dropout -> fa, fb.
  REQUIRE(json.at("frozen_ops") ==
          nlohmann::json::array({"aten::conv2d", "aten::relu", "aten::flatten", "aten::linear",
                                 "aten::linear", "aten::add"}));
  TorchScriptModel model(neurobench::test::model_fixture("convbn_frozen.pt"));
  CHECK(model.is_inlined());
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::conv2d", "aten::_convolution", "aten::batch_norm",
                                 "aten::dropout", "aten::linear", "aten::matmul"},
                                {},
                                false},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(ops_of(got) == std::vector<std::string>{"aten::conv2d", "aten::linear", "aten::linear"});
  CHECK(sites_of(got) ==
        std::vector<std::string>{"aten::conv2d#0", "aten::linear#0", "aten::linear#1"});
  const auto& conv = got[0].args;
  REQUIRE(conv.size() == 7);
  CHECK(close(conv[0].toTensor(), recorded_input(calls, "conv")));
  // The conv's own weight is gone: the call sees weight and bias with batch norm folded in.
  CHECK_FALSE(close(conv[1].toTensor(), tensor_of(json.at("conv").at("weight"))));
  CHECK(close(conv[1].toTensor(), tensor_of(json.at("folded_weight"))));
  CHECK(close(conv[2].toTensor(), tensor_of(json.at("folded_bias"))));
  CHECK(conv[3].toIntVector() == std::vector<int64_t>{2, 2});
  // Both Linear layers read the same (dropout-free) input.
  CHECK(close(got[1].args.at(0).toTensor(), recorded_input(calls, "fa")));
  CHECK(close(got[2].args.at(0).toTensor(), recorded_input(calls, "fb")));
}

TEST_CASE("a frozen traced model keeps aten::_convolution with batch norm folded in",
          "[hooks][operators][frozen][traced]") {
  const auto json = expected("convbn_frozen.json");
  REQUIRE(json.at("traced_frozen_ops") ==
          nlohmann::json::array({"aten::_convolution", "aten::relu", "aten::flatten",
                                 "aten::linear", "aten::linear", "aten::add"}));
  const auto& calls = json.at("calls");
  TorchScriptModel model(neurobench::test::model_fixture("convbn_traced_frozen.pt"));
  CHECK(model.is_inlined());
  std::vector<SeenOp> got;
  model.register_operator_hook({{"aten::_convolution", "aten::batch_norm"}, {}, true},
                               [&](const OperatorCall& call) { got.push_back(seen(call)); });
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
  REQUIRE(sites_of(got) == std::vector<std::string>{"aten::_convolution#0"});
  // After folding, the conv's output is what batch norm gave in the unfrozen model.
  CHECK(close(got[0].output, recorded_output(calls, "bn")));
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST_CASE("registering an empty hook is a UsageError", "[hooks][errors]") {
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  const auto where = ModuleSelector::by_type({"Linear"});
  REQUIRE_THROWS_AS(model.register_forward_hook(where, {}), UsageError);
  REQUIRE_THROWS_WITH(model.register_forward_hook(where, {}), "register_forward_hook: empty hook");
  REQUIRE_THROWS_AS(model.register_forward_pre_hook(where, {}), UsageError);
  REQUIRE_THROWS_WITH(model.register_forward_pre_hook(where, {}),
                      "register_forward_pre_hook: empty hook");
  REQUIRE_THROWS_AS(model.register_operator_hook({{"aten::linear"}, {}, false}, {}), UsageError);
  REQUIRE_THROWS_WITH(model.register_operator_hook({{"aten::linear"}, {}, false}, {}),
                      "register_operator_hook: empty hook");
  CHECK(model.hook_count() == 0);
}

TEST_CASE("an operator name without '::' is a UsageError naming it", "[hooks][errors]") {
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  const auto noop = [](const OperatorCall&) {};
  const OperatorSelector where{{"aten::relu", "linear"}, {}, false};
  REQUIRE_THROWS_AS(model.register_operator_hook(where, noop), UsageError);
  REQUIRE_THROWS_WITH(model.register_operator_hook(where, noop),
                      Catch::Contains("'linear'") &&
                          Catch::Contains("is not a qualified operator name like 'aten::linear'"));
  CHECK(model.hook_count() == 0);
}

TEST_CASE("an operator hook naming no operators is a UsageError", "[hooks][errors]") {
  TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  REQUIRE_THROWS_AS(model.register_operator_hook({}, [](const OperatorCall&) {}), UsageError);
  REQUIRE_THROWS_WITH(model.register_operator_hook({}, [](const OperatorCall&) {}),
                      Catch::Contains("no operators named"));
}
