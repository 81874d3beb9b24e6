// SPDX-License-Identifier: Apache-2.0
#include <neurobench/model/model.hpp>

#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include "file_digest.hpp"
#include "model/model_fixtures.hpp"
#include "model/module_tensors.hpp"
#include "support.hpp"
#include "util/sha256.hpp"

#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>

// Fixtures: tests/fixtures/models/, written by make_models.py (see there for each model).

namespace {

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::TorchScriptModel;
using neurobench::test::close;
using neurobench::test::expected;
using neurobench::test::tensor_of;
using neurobench::TorchScriptOptions;
using neurobench::UsageError;





std::vector<std::string> names_of(const std::vector<neurobench::NamedTensor>& list) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.name);
  return out;
}

std::vector<int64_t> shape(const torch::Tensor& t) { return t.sizes().vec(); }

torch::Tensor snn_slice(const torch::Tensor& data, int64_t steps) {
  return data.slice(1, 0, steps);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Names

TEST_CASE("demangled names drop the __torch__ prefix and a mangle before the class name",
          "[model][names]") {
  const std::string name = "__torch__.torch.nn.modules.linear.___torch_mangle_3.Linear";
  CHECK(neurobench::demangled_type_name(name) == "Linear");
  CHECK(neurobench::demangled_qualified_name(name) == "torch.nn.modules.linear.Linear");
}

TEST_CASE("demangled names drop a mangle that stands right after __torch__ or last",
          "[model][names]") {
  CHECK(neurobench::demangled_type_name("__torch__.___torch_mangle_12.Net") == "Net");
  CHECK(neurobench::demangled_qualified_name("__torch__.___torch_mangle_12.Net") == "Net");
  CHECK(neurobench::demangled_type_name("__torch__.a.Foo.___torch_mangle_7") == "Foo");
  CHECK(neurobench::demangled_qualified_name("__torch__.a.Foo.___torch_mangle_7") == "a.Foo");
}

TEST_CASE("demangled names drop every mangle, also two in a row", "[model][names]") {
  const std::string name = "__torch__.a.___torch_mangle_1.___torch_mangle_2.B";
  CHECK(neurobench::demangled_qualified_name(name) == "a.B");
  CHECK(neurobench::demangled_type_name(name) == "B");
  CHECK(neurobench::demangled_qualified_name("__torch__.___torch_mangle_1.b.___torch_mangle_2.C") ==
        "b.C");
}

TEST_CASE("demangled names keep names without mangling and look-alike atoms", "[model][names]") {
  CHECK(neurobench::demangled_type_name("Linear") == "Linear");
  CHECK(neurobench::demangled_qualified_name("__torch__.SnnMlp") == "SnnMlp");
  CHECK(neurobench::demangled_qualified_name("torch.nn.modules.linear.Linear") ==
        "torch.nn.modules.linear.Linear");
  // Only a whole atom `___torch_mangle_<digits>` is a mangle.
  CHECK(neurobench::demangled_qualified_name("__torch__.x___torch_mangle_3.Foo") ==
        "x___torch_mangle_3.Foo");
  CHECK(neurobench::demangled_qualified_name("__torch__.___torch_mangle_3x.Foo") ==
        "___torch_mangle_3x.Foo");
  CHECK(neurobench::demangled_qualified_name("a.__torch__.B") == "a.__torch__.B");
}

// ---------------------------------------------------------------------------------------------
// Loading

TEST_CASE("a scripted model lists its modules root first with dotted paths and class names",
          "[model][load]") {
  const auto json = expected("mlp.json");
  const TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  const auto modules = model.modules();
  const auto& wanted = json.at("modules");
  REQUIRE(modules.size() == wanted.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    INFO("module " << i << " '" << modules[i].path << "'");
    CHECK(modules[i].path == wanted[i].at("path").get<std::string>());
    CHECK(modules[i].type_name == wanted[i].at("type").get<std::string>());
    CHECK(modules[i].qualified_type == wanted[i].at("qualified").get<std::string>());
    CHECK(names_of(modules[i].parameters) ==
          wanted[i].at("parameters").get<std::vector<std::string>>());
    CHECK(names_of(modules[i].buffers) == wanted[i].at("buffers").get<std::vector<std::string>>());
  }
  CHECK(modules.front().path.empty());
  CHECK(modules.front().type_name == "Mlp");
}

TEST_CASE("a traced model lists the same modules with every instance's mangling removed",
          "[model][load]") {
  const auto json = expected("mlp.json");
  const TorchScriptModel model(neurobench::test::model_fixture("mlp_traced.pt"));
  // Tracing gives every instance its own class type; those traced after the scripted model
  // carry a mangle in their TorchScript name.
  const auto fc1 = model.module().attr("fc1").toModule();
  REQUIRE_THAT(fc1.type()->name()->qualifiedName(), Catch::Contains("___torch_mangle_"));
  const auto modules = model.modules();
  const auto& wanted = json.at("modules");
  REQUIRE(modules.size() == wanted.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    INFO("module " << i << " '" << modules[i].path << "'");
    CHECK(modules[i].path == wanted[i].at("path").get<std::string>());
    CHECK(modules[i].type_name == wanted[i].at("type").get<std::string>());
    CHECK(modules[i].qualified_type == wanted[i].at("qualified").get<std::string>());
  }
}

TEST_CASE("parameters() and buffers() list every tensor with its dotted name in module order",
          "[model][load]") {
  const TorchScriptModel model(neurobench::test::model_fixture("mlp_scripted.pt"));
  const auto params = model.parameters();
  CHECK(names_of(params) == std::vector<std::string>{"fc1.weight", "fc1.bias",
                                                     "block1.seq.0.weight", "block1.seq.0.bias",
                                                     "block2.seq.0.weight", "block2.seq.0.bias",
                                                     "head.weight", "head.bias"});
  const auto fc1 = model.module().attr("fc1").toModule();
  CHECK(params[0].value.equal(fc1.attr("weight").toTensor()));
  CHECK(shape(params[7].value) == std::vector<int64_t>{3});

  const auto buffers = model.buffers();
  REQUIRE(names_of(buffers) == std::vector<std::string>{"block1.scale", "block2.scale"});
  CHECK(buffers[0].value.item<float>() == 2.0f);
  CHECK(buffers[1].value.item<float>() == -0.5f);
}

TEST_CASE("a spiking model's buffers include each neuron's beta, threshold and mem",
          "[model][load]") {
  const TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"));
  CHECK(names_of(model.buffers()) ==
        std::vector<std::string>{"resets", "lif1.beta", "lif1.threshold", "lif1.mem", "lif2.beta",
                                 "lif2.threshold", "lif2.mem"});
  const auto json = expected("snn.json");
  const auto modules = model.modules();
  REQUIRE(modules.size() == json.at("modules").size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    CHECK(modules[i].path == json.at("modules")[i].at("path").get<std::string>());
    CHECK(modules[i].type_name == json.at("modules")[i].at("type").get<std::string>());
  }
}

TEST_CASE("loading a missing file throws an InputError naming the path", "[model][load]") {
  const fs::path path = neurobench::test::model_fixture("no_such_model.pt");
  REQUIRE_THROWS_AS(TorchScriptModel(path), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(path),
                      Catch::Contains(path.string()) && Catch::Contains("no such model file"));
}

TEST_CASE("loading a directory throws an InputError naming the path", "[model][load]") {
  const fs::path path = neurobench::test::model_fixture("");
  REQUIRE_THROWS_AS(TorchScriptModel(path), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(path), Catch::Contains(path.string()));
}

TEST_CASE("loading random bytes throws an InputError naming the path", "[model][load]") {
  const fs::path path = neurobench::test::model_fixture("corrupt_random.pt");
  REQUIRE_THROWS_AS(TorchScriptModel(path), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(path),
                      Catch::Contains(path.string()) && Catch::Contains("not a TorchScript model"));
}

TEST_CASE("loading a zip archive that holds no TorchScript throws an InputError naming the path",
          "[model][load]") {
  for (const char* name : {"not_torchscript.zip", "state_dict.pt"}) {
    const fs::path path = neurobench::test::model_fixture(name);
    INFO(path);
    REQUIRE_THROWS_AS(TorchScriptModel(path), InputError);
    REQUIRE_THROWS_WITH(TorchScriptModel(path), Catch::Contains(path.string()) &&
                                                    Catch::Contains("not a TorchScript model"));
  }
}

TEST_CASE("a model describes itself by its path or by the description it was given",
          "[model][load]") {
  const fs::path path = neurobench::test::model_fixture("mlp_scripted.pt");
  CHECK(TorchScriptModel(path).describe() == path.string());
  TorchScriptModel wrapped(torch::jit::load(path.string()), {}, "my mlp");
  CHECK(wrapped.describe() == "my mlp");
  CHECK_FALSE(wrapped.options().stepwise);
  CHECK(TorchScriptModel(path, TorchScriptOptions{true}).options().stepwise);
}

// ---------------------------------------------------------------------------------------------
// forward()

TEST_CASE("forward of a scripted, a traced and a frozen model equals the Python output",
          "[model][forward]") {
  const auto json = expected("mlp.json");
  const torch::Tensor input = tensor_of(json.at("input"));
  const torch::Tensor output = tensor_of(json.at("output"));
  for (const char* name : {"mlp_scripted.pt", "mlp_traced.pt", "mlp_frozen.pt"}) {
    INFO(name);
    TorchScriptModel model(neurobench::test::model_fixture(name));
    CHECK(close(model.forward(input), output));
  }
}

TEST_CASE("forward leaves its input unchanged and works after a move", "[model][forward]") {
  const auto json = expected("mlp.json");
  const torch::Tensor input = tensor_of(json.at("input"));
  const torch::Tensor copy = input.clone();
  TorchScriptModel first(neurobench::test::model_fixture("mlp_scripted.pt"));
  TorchScriptModel model(std::move(first));
  CHECK(close(model.forward(input), tensor_of(json.at("output"))));
  CHECK(input.equal(copy));
}

TEST_CASE("a model returning a tuple gives its first element", "[model][forward]") {
  const auto json = expected("tuple_out.json");
  TorchScriptModel model(neurobench::test::model_fixture("tuple_out.pt"));
  CHECK(close(model.forward(tensor_of(json.at("input"))), tensor_of(json.at("output"))));
}

TEST_CASE(
    "a forward that fails on a wrong-shaped input throws an InputError naming the model "
    "and the shape",
    "[model][forward]") {
  const fs::path path = neurobench::test::model_fixture("mlp_scripted.pt");
  TorchScriptModel model(path);
  const torch::Tensor bad = torch::zeros({2, 5});
  REQUIRE_THROWS_AS(model.forward(bad), InputError);
  REQUIRE_THROWS_WITH(model.forward(bad), Catch::Contains(path.string()) &&
                                              Catch::Contains("[2, 5]") &&
                                              Catch::Contains("forward failed"));
}

TEST_CASE("a model returning neither a tensor nor a tuple throws an InputError naming the type",
          "[model][forward]") {
  TorchScriptModel model(neurobench::test::model_fixture("bad_return.pt"));
  REQUIRE_THROWS_AS(model.forward(torch::zeros({2, 3})), InputError);
  REQUIRE_THROWS_WITH(model.forward(torch::zeros({2, 3})),
                      Catch::Contains("bad_return.pt") && Catch::Contains("Tensor[]"));
}

// ---------------------------------------------------------------------------------------------
// Step-wise

TEST_CASE("a step-wise model with reset() gives Python's spikes as (batch, timesteps, outputs)",
          "[model][stepwise]") {
  const auto json = expected("snn.json");
  TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"), TorchScriptOptions{true});
  const torch::Tensor spikes = model.forward(tensor_of(json.at("data")));
  CHECK(shape(spikes) == std::vector<int64_t>{3, 6, 2});
  CHECK(spikes.equal(tensor_of(json.at("spikes"))));
}

TEST_CASE("a step-wise model without reset() gives the same spikes", "[model][stepwise]") {
  const auto json = expected("snn.json");
  TorchScriptModel model(neurobench::test::model_fixture("snn_noreset.pt"), TorchScriptOptions{true});
  CHECK(model.forward(tensor_of(json.at("data"))).equal(tensor_of(json.at("spikes"))));
}

TEST_CASE("step-wise state is reset between batches", "[model][stepwise]") {
  const auto json = expected("snn.json");
  const torch::Tensor data = tensor_of(json.at("data"));
  const torch::Tensor spikes = tensor_of(json.at("spikes"));
  const torch::Tensor data2 = tensor_of(json.at("data2"));
  const torch::Tensor spikes2 = tensor_of(json.at("spikes2"));
  for (const char* name : {"snn_reset.pt", "snn_noreset.pt"}) {
    INFO(name);
    TorchScriptModel model(neurobench::test::model_fixture(name), TorchScriptOptions{true});
    CHECK(model.forward(data).equal(spikes));
    CHECK(model.forward(data).equal(spikes));
    CHECK(model.forward(data2).equal(spikes2));  // another batch size
    CHECK(model.forward(data).equal(spikes));
    // A shorter batch of the same size starts from zero too: its spikes are a prefix.
    CHECK(model.forward(snn_slice(data, 2)).equal(snn_slice(spikes, 2)));
  }
}

namespace {

// Fixtures of tests/fixtures/stepwise/, written by make_stepwise.py.
nlohmann::json stepwise_expected() {
  std::ifstream in(neurobench::test::fixture("stepwise/expected.json"));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

fs::path stepwise_fixture(const std::string& name) {
  return neurobench::test::fixture("stepwise/" + name);
}

}  // namespace

TEST_CASE("the step-wise reset clears syn and spk as well as mem, so no state leaks into the "
          "next batch",
          "[model][stepwise]") {
  const auto all = stepwise_expected();
  // Synaptic keeps `syn` and `mem`, RLeaky `spk` and `mem`; neither network has reset().
  for (const std::string name : {"synaptic", "rleaky"}) {
    INFO(name);
    const auto& json = all.at(name);
    const torch::Tensor data1 = tensor_of(json.at("data1"));
    const torch::Tensor data2 = tensor_of(json.at("data2"));
    const torch::Tensor spikes2 = tensor_of(json.at("spikes2"));
    // The fixture is sensitive: resetting only `mem` changes the second batch's spikes.
    REQUIRE_FALSE(tensor_of(json.at("spikes2_mem_only_reset")).equal(spikes2));
    TorchScriptModel model(stepwise_fixture(name + ".pt"), TorchScriptOptions{true});
    REQUIRE_FALSE(model.module().find_method("reset"));
    CHECK(model.forward(data1).equal(tensor_of(json.at("spikes1"))));
    const torch::Tensor second = model.forward(data2);
    CHECK(second.equal(spikes2));
    TorchScriptModel fresh(stepwise_fixture(name + ".pt"), TorchScriptOptions{true});
    CHECK(second.equal(fresh.forward(data2)));
    // The same with a hook: the instrumented copy of the network is reset the same way.
    const auto noop = [](const neurobench::ModuleCall&) {};
    const auto handle = model.register_forward_hook(
        neurobench::ModuleSelector::by_type({"Synaptic", "RLeaky"}), noop);
    (void)model.forward(data1);
    CHECK(model.forward(data2).equal(spikes2));
    model.remove_hook(handle);
  }
}

TEST_CASE("the step-wise reset also clears a 'mem' that was None before the first batch",
          "[model][stepwise]") {
  // Not one of snnTorch's classes: a neuron because it has an Optional[Tensor] attribute `mem`.
  torch::jit::Module neuron("Integrator");
  neuron.register_attribute("mem", c10::OptionalType::create(c10::TensorType::get()),
                            c10::IValue());
  neuron.define(R"JIT(
def forward(self, x):
    mem = self.mem
    if mem is None:
        mem = torch.zeros_like(x)
    mem = 0.5 * mem + x
    self.mem = mem
    return mem
)JIT");
  TorchScriptModel model(neuron, TorchScriptOptions{true});
  const torch::Tensor batch1 = torch::ones({2, 3, 4});
  const torch::Tensor batch2 = torch::full({2, 3, 4}, 2.0);
  (void)model.forward(batch1);
  // From zero: 2, 3, 3.5 (with batch 1's state left over it would start from 1.75).
  const torch::Tensor expected =
      torch::tensor({2.0f, 3.0f, 3.5f}).reshape({1, 3, 1}).expand({2, 3, 4});
  CHECK(model.forward(batch2).equal(expected));
}

TEST_CASE("a step-wise model's reset() is called once per batch", "[model][stepwise]") {
  const auto json = expected("snn.json");
  TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"), TorchScriptOptions{true});
  const auto resets = [&] { return model.module().attr("resets").toTensor().item<float>(); };
  CHECK(resets() == 0.0f);
  (void)model.forward(tensor_of(json.at("data")));
  CHECK(resets() == 1.0f);
  (void)model.forward(tensor_of(json.at("data2")));
  CHECK(resets() == 2.0f);
}

TEST_CASE("step-wise data with fewer than 2 dimensions throws an InputError", "[model][stepwise]") {
  TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"), TorchScriptOptions{true});
  REQUIRE_THROWS_AS(model.forward(torch::zeros({3})), InputError);
  REQUIRE_THROWS_WITH(model.forward(torch::zeros({3})),
                      Catch::Contains("snn_reset.pt") &&
                          Catch::Contains("(batch, timesteps, features...)") &&
                          Catch::Contains("[3]"));
}

TEST_CASE("step-wise data without timesteps throws an InputError", "[model][stepwise]") {
  TorchScriptModel model(neurobench::test::model_fixture("snn_reset.pt"), TorchScriptOptions{true});
  REQUIRE_THROWS_AS(model.forward(torch::zeros({3, 0, 3})), InputError);
  REQUIRE_THROWS_WITH(model.forward(torch::zeros({3, 0, 3})),
                      Catch::Contains("no timesteps") && Catch::Contains("[3, 0, 3]"));
}

TEST_CASE(
    "a step-wise model returning neither spikes nor a tuple throws an InputError naming "
    "the timestep",
    "[model][stepwise]") {
  TorchScriptModel model(neurobench::test::model_fixture("bad_return.pt"), TorchScriptOptions{true});
  const torch::Tensor data = torch::zeros({2, 4, 3});
  REQUIRE_THROWS_AS(model.forward(data), InputError);
  REQUIRE_THROWS_WITH(model.forward(data), Catch::Contains("bad_return.pt") &&
                                               Catch::Contains("timestep 0") &&
                                               Catch::Contains("Tensor[]"));
}

TEST_CASE("a step-wise forward that fails names the timestep data and its shape",
          "[model][stepwise]") {
  TorchScriptModel model(neurobench::test::model_fixture("snn_noreset.pt"), TorchScriptOptions{true});
  const torch::Tensor data = torch::zeros({2, 4, 7});  // the network expects 3 features
  REQUIRE_THROWS_AS(model.forward(data), InputError);
  REQUIRE_THROWS_WITH(model.forward(data), Catch::Contains("snn_noreset.pt") &&
                                               Catch::Contains("timestep 0 (data[:, 0])") &&
                                               Catch::Contains("[2, 7]"));
}

// ---------------------------------------------------------------------------------------------
// Step-wise state warnings

namespace {

std::vector<std::string> state_warnings(const TorchScriptModel& model) {
  std::vector<std::string> out;
  for (const auto& w : model.warnings()) {
    if (w.find("state is lost") != std::string::npos) out.push_back(w);
  }
  return out;
}

// The telling parts of the two warnings (Catch's combined matchers must not outlive their
// parts, so these are functions).
void check_graph_warning(const std::string& w) {
  CHECK_THAT(w, Catch::Contains("no forward method stores the membrane 'mem'") &&
                    Catch::Contains("constant of the graph"));
}
void check_state_warning(const std::string& w) {
  CHECK_THAT(w, Catch::Contains("no spiking neuron kept its state from one timestep"));
}

// A scripted module of class `type_name` with a buffer `mem` (empty) and `source` as methods.
torch::jit::Module neuron_module(const std::string& type_name, const std::string& source) {
  torch::jit::Module m(type_name);
  m.register_buffer("mem", torch::zeros({0}));
  m.define(source);
  return m;
}

}  // namespace

TEST_CASE("a traced snnTorch network run step-wise gives stateless spikes and two warnings "
          "naming its neurons",
          "[model][stepwise][state]") {
  const auto json = stepwise_expected().at("traced_snntorch");
  const auto data = neurobench::TensorDataset::from_npz(stepwise_fixture("traced_snntorch.npz"));
  TorchScriptModel model(stepwise_fixture("traced_snntorch.pt"), TorchScriptOptions{true});
  // Every timestep starts again from a zero membrane: not what snnTorch computes.
  const torch::Tensor spikes = model.forward(data.data());
  CHECK(spikes.equal(tensor_of(json.at("stateless_spikes"))));
  CHECK_FALSE(spikes.equal(tensor_of(json.at("spikes"))));
  const auto warnings = model.warnings();
  REQUIRE(warnings.size() == 2);
  const std::string path = stepwise_fixture("traced_snntorch.pt").string();
  for (const auto& w : warnings) {
    CHECK_THAT(w, Catch::StartsWith(path + ": ") && Catch::Contains("lif1 (Leaky)") &&
                      Catch::Contains("lif2 (Leaky)") &&
                      Catch::Contains("The neuron state is lost between timesteps, so accuracy, "
                                      "activation sparsity, synaptic operations and membrane "
                                      "updates are wrong") &&
                      Catch::Contains("python/neurobench_export.py") &&
                      Catch::Contains("docs/snntorch.md"));
  }
  check_graph_warning(warnings[0]);
  CHECK_THAT(warnings[0], Catch::Contains("of these spiking neurons: lif1 (Leaky), lif2 (Leaky). "
                                          "Their 'mem' is a constant") &&
                              Catch::Contains("torch.jit.trace"));
  check_state_warning(warnings[1]);
  CHECK_THAT(warnings[1], Catch::Contains("zero membrane") &&
                              Catch::Contains("(mem, syn, syn_exc, syn_inh, spk)"));
  // Once per model: more batches give the same two warnings.
  (void)model.forward(data.data());
  CHECK(model.warnings() == warnings);
}

TEST_CASE("the graph check warns before any batch, the state check after a batch of 2 or more "
          "timesteps",
          "[model][stepwise][state]") {
  const auto data = neurobench::TensorDataset::from_npz(stepwise_fixture("traced_snntorch.npz"));
  TorchScriptModel model(stepwise_fixture("traced_snntorch.pt"), TorchScriptOptions{true});
  REQUIRE(model.warnings().size() == 1);
  check_graph_warning(model.warnings()[0]);
  (void)model.forward(data.data().slice(1, 0, 1));  // one timestep: nothing to compare
  REQUIRE(model.warnings().size() == 1);
  (void)model.forward(data.data().slice(1, 0, 2));
  REQUIRE(model.warnings().size() == 2);
  check_state_warning(model.warnings()[1]);
}

TEST_CASE("a model not run step-wise has no state warnings", "[model][stepwise][state]") {
  TorchScriptModel model(stepwise_fixture("traced_snntorch.pt"));
  (void)model.forward(torch::rand({2, 4}));
  CHECK(model.warnings().empty());
}

TEST_CASE("step-wise networks that keep their neuron state get no warning",
          "[model][stepwise][state]") {
  const auto snn = expected("snn.json");
  const auto stepwise = stepwise_expected();
  const auto npz = [](const fs::path& p) { return neurobench::TensorDataset::from_npz(p).data(); };
  const std::vector<std::pair<fs::path, torch::Tensor>> cases = {
      {neurobench::test::model_fixture("snn_reset.pt"), tensor_of(snn.at("data"))},
      {neurobench::test::model_fixture("snn_noreset.pt"), tensor_of(snn.at("data"))},
      {stepwise_fixture("synaptic.pt"), tensor_of(stepwise.at("synaptic").at("data1"))},
      {stepwise_fixture("rleaky.pt"), tensor_of(stepwise.at("rleaky").at("data1"))},
      {stepwise_fixture("stateful_leaky.pt"), npz(stepwise_fixture("traced_snntorch.npz"))},
      {neurobench::test::fixture("core/rleaky_snn.pt"),
       npz(neurobench::test::fixture("core/rleaky_snn.npz"))},
      {fs::path(NEUROBENCH_TEST_FIXTURES) / "../../examples/fashion_mnist/models/snn.pt",
       (torch::rand({3, 5, 784}) < 0.3).to(torch::kFloat)},
  };
  for (const auto& [path, data] : cases) {
    INFO(path.string());
    TorchScriptModel model(path, TorchScriptOptions{true});
    (void)model.forward(data);
    (void)model.forward(data);
    CHECK(model.warnings().empty());
  }
}

TEST_CASE("a neuron that updates its membrane in place keeps state: no warning",
          "[model][stepwise][state]") {
  TorchScriptModel model(neuron_module("Leaky", R"JIT(
def forward(self, x):
    if self.mem.shape != x.shape:
        self.mem = torch.zeros_like(x)
    self.mem.mul_(0.5).add_(x)
    return self.mem
)JIT"),
                         TorchScriptOptions{true});
  (void)model.forward(torch::ones({2, 3, 4}));
  CHECK(model.warnings().empty());
}

TEST_CASE("a neuron that stores its membrane through a method it calls on self is not flagged",
          "[model][stepwise][state]") {
  TorchScriptModel model(neuron_module("Synaptic", R"JIT(
def update(self, x):
    self.mem = 0.5 * self.mem + x

def forward(self, x):
    if self.mem.shape != x.shape:
        self.mem = torch.zeros_like(x)
    self.update(x)
    return self.mem
)JIT"),
                         TorchScriptOptions{true});
  CHECK(model.warnings().empty());
  (void)model.forward(torch::ones({2, 3, 4}));
  CHECK(model.warnings().empty());
}

TEST_CASE("a neuron that assigns its membrane only outside forward is flagged, the root named "
          "as such",
          "[model][stepwise][state]") {
  // `reset_mem` stores `mem`, but forward never calls it: every call starts from the buffer.
  TorchScriptModel model(neuron_module("Leaky", R"JIT(
def reset_mem(self):
    self.mem = torch.zeros_like(self.mem)

def forward(self, x):
    mem = torch.zeros_like(x) + self.mem.sum()
    mem = 0.5 * mem + x
    return (mem > 1.0).float(), mem
)JIT"),
                         TorchScriptOptions{true});
  (void)model.forward(torch::ones({2, 3, 4}));
  const auto warnings = state_warnings(model);
  REQUIRE(warnings.size() == 2);
  check_graph_warning(warnings[0]);
  CHECK_THAT(warnings[0], Catch::Contains("of this spiking neuron: the root module (Leaky). "
                                          "Its 'mem' is a constant"));
  check_state_warning(warnings[1]);
  CHECK_THAT(warnings[1], Catch::Contains("the root module (Leaky)"));
}

TEST_CASE("a neuron that assigns its membrane only to initialise it is caught by the state check",
          "[model][stepwise][state]") {
  // The graph has a prim::SetAttr "mem", but after the first batch's reset it is never reached.
  TorchScriptModel model(neuron_module("Lapicque", R"JIT(
def forward(self, x):
    if self.mem.shape != x.shape:
        self.mem = torch.zeros_like(x)
    mem = 0.5 * self.mem + x
    return (mem > 1.0).float(), mem
)JIT"),
                         TorchScriptOptions{true});
  // Timestep 0 initialises `mem`; the state is compared from after it to the last timestep.
  (void)model.forward(torch::ones({2, 3, 4}));
  const auto warnings = state_warnings(model);
  REQUIRE(warnings.size() == 1);
  check_state_warning(warnings[0]);
  CHECK_THAT(warnings[0], Catch::Contains("the root module (Lapicque)"));
}

// ---------------------------------------------------------------------------------------------
// NeuroBenchModel defaults

namespace {

// A model without hook support: only what a NeuroBenchModel must provide.
class PlainModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& batch) override { return batch * 2; }
  std::vector<neurobench::ModuleInfo> modules() const override {
    neurobench::ModuleInfo root{"", "Plain", "Plain", {{"w", torch::ones({2})}}, {}};
    neurobench::ModuleInfo child{
        "c", "Child", "x.Child", {{"c.w", torch::ones({3})}}, {{"c.b", torch::zeros({1})}}};
    return {root, child};
  }
  std::string describe() const override { return "plain model"; }
};

}  // namespace

TEST_CASE("a NeuroBenchModel collects parameters and buffers from its modules",
          "[model][interface]") {
  const PlainModel model;
  CHECK(names_of(model.parameters()) == std::vector<std::string>{"w", "c.w"});
  CHECK(names_of(model.buffers()) == std::vector<std::string>{"c.b"});
  CHECK_FALSE(model.is_inlined());
  CHECK(model.warnings().empty());
}

TEST_CASE("a NeuroBenchModel without hook support throws a UsageError naming the model",
          "[model][interface]") {
  PlainModel model;
  const auto where = neurobench::ModuleSelector::by_type({"Linear"});
  const auto noop = [](const neurobench::ModuleCall&) {};
  REQUIRE_THROWS_AS(model.register_forward_hook(where, noop), UsageError);
  REQUIRE_THROWS_WITH(model.register_forward_hook(where, noop),
                      Catch::Contains("plain model") && Catch::Contains("does not support hooks"));
  REQUIRE_THROWS_AS(model.register_forward_pre_hook(where, noop), UsageError);
  REQUIRE_THROWS_AS(model.register_operator_hook({{"aten::linear"}, {}, false},
                                                 [](const neurobench::OperatorCall&) {}),
                    UsageError);
  CHECK_NOTHROW(model.remove_hook(neurobench::HookHandle{1}));
}

// ---------------------------------------------------------------------------------------------
// A corrupt model file is refused at load; the loaded file's SHA-256 is known.

namespace {

/// The bytes of entry `name` of the zip archive at `path`.
std::string zip_entry(const fs::path& path, const std::string& name) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  REQUIRE(archive != nullptr);
  zip_stat_t stat;
  REQUIRE(zip_stat(archive, name.c_str(), 0, &stat) == 0);
  std::string bytes(static_cast<std::size_t>(stat.size), '\0');
  zip_file_t* file = zip_fopen(archive, name.c_str(), 0);
  REQUIRE(file != nullptr);
  REQUIRE(zip_fread(file, bytes.data(), bytes.size()) == static_cast<zip_int64_t>(bytes.size()));
  zip_fclose(file);
  zip_discard(archive);
  return bytes;
}

/// A copy of the zip archive `from` at `to`, with entry `name` holding `bytes` instead, written
/// by libzip with `method` and a CRC-32 that matches.
void replace_entry(const fs::path& from, const fs::path& to, const std::string& name,
                   const std::string& bytes, zip_int32_t method = ZIP_CM_STORE) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  int error = 0;
  zip_t* archive = zip_open(to.c_str(), 0, &error);
  REQUIRE(archive != nullptr);
  const zip_int64_t index = zip_name_locate(archive, name.c_str(), 0);
  REQUIRE(index >= 0);
  zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
  REQUIRE(source != nullptr);
  REQUIRE(zip_file_replace(archive, static_cast<zip_uint64_t>(index), source, 0) == 0);
  REQUIRE(zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), method, 0) == 0);
  REQUIRE(zip_close(archive) == 0);
}

/// Where the data of the zip entry whose local header is at `header` start.
std::size_t entry_data_offset(const std::string& zip, std::size_t header) {
  const auto u16 = [&](std::size_t at) {
    return static_cast<std::size_t>(static_cast<unsigned char>(zip.at(at))) |
           static_cast<std::size_t>(static_cast<unsigned char>(zip.at(at + 1))) << 8;
  };
  return header + 30 + u16(header + 26) + u16(header + 28);
}

const fs::path& mlp() {
  static const fs::path path = neurobench::test::model_fixture("mlp_traced.pt");
  return path;
}

}  // namespace

TEST_CASE("the unaltered fixture loads and its tensors pass the storage checks",
          "[model][load][integrity]") {
  // The checks below must fail for the damage they are given, not for the fixture itself.
  TorchScriptModel model(mlp());
  CHECK(model.parameters().size() == 8);
  CHECK(zip_entry(mlp(), "mlp_traced/data/0").size() == 96);  // fc1.weight: 6 x 4 float32
}

TEST_CASE("a weight record cut to 4 bytes with a matching CRC-32 is refused, naming the tensor",
          "[model][load][integrity]") {
  // LibTorch 1.13 sizes a storage by the pickle's element count, not by the record: this model
  // would read 92 bytes past the record's 4 (results that differ from run to run).
  const neurobench::test::TempDir dir;
  const fs::path cut = dir / "cut.pt";
  replace_entry(mlp(), cut, "mlp_traced/data/0",
                zip_entry(mlp(), "mlp_traced/data/0").substr(0, 4));
  REQUIRE_THROWS_AS(TorchScriptModel(cut), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(cut),
                      Catch::StartsWith(cut.string() + ": corrupt model file") &&
                          Catch::Contains("tensor 'fc1.weight' has a storage of 96 bytes") &&
                          Catch::Contains("holds 4 bytes"));
}

TEST_CASE("a tensor reaching past its storage is refused, naming the tensor and both sizes",
          "[model][load][integrity]") {
  // The pickle's element count of storage 0 (fc1.weight's, 24 floats) made 2: the record is
  // whole, but the tensor's 6 x 4 reach past the 8 bytes its storage is given.
  const neurobench::test::TempDir dir;
  std::string pickle = zip_entry(mlp(), "mlp_traced/data.pkl");
  const std::string count_of_storage_0 =
      std::string("X\x01\0\0\0", 5) + "0q\tX" + std::string("\x03\0\0\0", 4) + "cpuq\nK\x18";
  const std::size_t at = pickle.find(count_of_storage_0);
  REQUIRE(at != std::string::npos);
  pickle[at + count_of_storage_0.size() - 1] = '\x02';
  const fs::path bad = dir / "bad.pt";
  replace_entry(mlp(), bad, "mlp_traced/data.pkl", pickle);
  REQUIRE_THROWS_AS(TorchScriptModel(bad), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(bad),
                      Catch::StartsWith(bad.string() + ": corrupt model file") &&
                          Catch::Contains("tensor 'fc1.weight' (shape [6, 4]") &&
                          Catch::Contains("needs 96 bytes of storage, but its storage holds 8 "
                                          "bytes"));
}

TEST_CASE("a flipped byte inside a weight record is refused by its CRC-32, naming the entry",
          "[model][load][integrity]") {
  const neurobench::test::TempDir dir;
  std::string bytes = neurobench::test::read_file(mlp());
  REQUIRE(bytes.compare(30, 17, "mlp_traced/data/0") == 0);  // the first entry
  bytes.at(entry_data_offset(bytes, 0) + 5) ^= 0x40;
  const fs::path flipped = dir / "flipped.pt";
  std::ofstream(flipped, std::ios::binary) << bytes;
  REQUIRE_THROWS_AS(TorchScriptModel(flipped), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(flipped),
                      Catch::StartsWith(flipped.string() + ": corrupt model file") &&
                          Catch::Contains("entry 'mlp_traced/data/0' fails its CRC-32 check"));
}

TEST_CASE("a compressed tensor record is refused: its size could not be checked",
          "[model][load][integrity]") {
  const neurobench::test::TempDir dir;
  const fs::path deflated = dir / "deflated.pt";
  replace_entry(mlp(), deflated, "mlp_traced/data/0", zip_entry(mlp(), "mlp_traced/data/0"),
                ZIP_CM_DEFLATE);
  REQUIRE_THROWS_AS(TorchScriptModel(deflated), InputError);
  REQUIRE_THROWS_WITH(TorchScriptModel(deflated),
                      Catch::Contains("entry 'mlp_traced/data/0' is a tensor record stored "
                                      "compressed"));
}

TEST_CASE("a model knows the SHA-256 of the file it was loaded from", "[model][load][integrity]") {
  for (const char* name : {"mlp_traced.pt", "convbn_frozen.pt", "snn_loop.pt"}) {
    const fs::path path = neurobench::test::model_fixture(name);
    INFO(path);
    const TorchScriptModel model(path);
    REQUIRE(model.source_sha256().has_value());
    CHECK(*model.source_sha256() == neurobench::test::sha256sum(path));
  }
  const TorchScriptModel wrapped(torch::jit::load(mlp().string()));
  CHECK_FALSE(wrapped.source_sha256().has_value());
  // A known vector (FIPS 180-2, "abc"), through the same code.
  CHECK(neurobench::detail::sha256_hex("abc", 3) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("every tensor of a module is reached: attributes, containers and graph constants",
          "[model][load][integrity]") {
  const auto names = [](const torch::jit::Module& m) {
    std::vector<std::string> out;
    for (const auto& t : neurobench::detail::reachable_tensors(m)) out.push_back(t.name);
    return out;
  };
  const std::vector<std::string> mlp_names = names(torch::jit::load(mlp().string()));
  for (const char* expected_name : {"fc1.weight", "block1.scale", "head.bias"}) {
    CHECK(std::find(mlp_names.begin(), mlp_names.end(), expected_name) != mlp_names.end());
  }
  // A frozen model's weights are constants of its forward graph.
  const std::vector<std::string> frozen =
      names(torch::jit::load(neurobench::test::model_fixture("convbn_frozen.pt").string()));
  REQUIRE_FALSE(frozen.empty());
  CHECK_THAT(frozen.front(), Catch::StartsWith("constant 0 of "));
}
