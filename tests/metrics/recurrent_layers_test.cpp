// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/builtin.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

#include "support.hpp"

// Recurrent LAYERS (nn.LSTM, nn.GRU, nn.RNN) in SynapticOperations: docs/recurrent-layers.md.
// The fixtures and their expected numbers come from tests/fixtures/recurrent/make_recurrent.py,
// which unrolls each layer into nn.*Cell steps in Python and counts them with the reference's
// per-cell algorithm. Counts are integers divided by the sample count, so the comparison is exact.

using neurobench::Json;
using neurobench::WorkloadInput;
using neurobench::metrics::SynapticOperations;

namespace {

const Json& expected_all() {
  static const Json all = [] {
    std::ifstream in(neurobench::test::fixture("recurrent/expected.json"));
    return Json::parse(in);
  }();
  return all;
}

neurobench::Results run_fixture(const std::string& name) {
  const Json& expected = expected_all().at(name);
  auto model = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("recurrent/" + name + ".pt"));
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("recurrent/" + name + ".npz")));
  neurobench::LoaderOptions options;
  options.batch_size = expected.at("batch_size").get<int64_t>();
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, options), {}, {},
                              neurobench::MetricSet::from_names({}, {"SynapticOperations"}));
  neurobench::RunOptions run;
  run.quiet = true;
  return bench.run(run);
}

// Runs a fixture and requires the oracle's three numbers exactly.
void require_oracle_numbers(const std::string& name) {
  INFO("fixture " << name << ": " << expected_all().at(name).at("description").get<std::string>());
  const Json& expected = expected_all().at(name);
  const neurobench::Results r = run_fixture(name);
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  REQUIRE(r.samples == expected.at("samples").get<int64_t>());
  const Json& got = r.values.at("SynapticOperations");
  const double n = static_cast<double>(expected.at("samples").get<int64_t>());
  // The oracle's integer totals over the sample count: the same double the metric computes.
  REQUIRE(got.at("Effective_MACs").get<double>() ==
          static_cast<double>(expected.at("total_macs").get<int64_t>()) / n);
  REQUIRE(got.at("Effective_ACs").get<double>() ==
          static_cast<double>(expected.at("total_acs").get<int64_t>()) / n);
  REQUIRE(got.at("Dense").get<double>() ==
          static_cast<double>(expected.at("total_dense").get<int64_t>()) / n);
  REQUIRE(got.at("Effective_MACs").get<double>() == expected.at("Effective_MACs").get<double>());
  REQUIRE(got.at("Effective_ACs").get<double>() == expected.at("Effective_ACs").get<double>());
  REQUIRE(got.at("Dense").get<double>() == expected.at("Dense").get<double>());
}

// A model that only answers `describe()`: direct calls of `on_connection` need no real model.
class RecurrentStubModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& b) override { return b; }
  std::vector<neurobench::ModuleInfo> modules() const override { return {}; }
  std::string describe() const override { return "stub"; }
};

Json finish(SynapticOperations& synops, int64_t samples) {
  RecurrentStubModel model;
  neurobench::Batch batch{torch::zeros({samples, 1}), torch::zeros({samples}), {}};
  const torch::Tensor preds = torch::zeros({samples});
  synops.update(WorkloadInput{model, preds, batch});
  return synops.compute();
}

c10::IValue recurrent_tensor_list(const std::vector<torch::Tensor>& tensors) {
  c10::List<torch::Tensor> list;
  for (const auto& t : tensors) list.push_back(t);
  return c10::IValue(list);
}

torch::Tensor sparse_randn(std::vector<int64_t> shape, double zeros) {
  return torch::randn(shape) * (torch::rand(shape) >= zeros).to(torch::kFloat);
}

// The weights of one layer and direction: w_ih, w_hh, b_ih, b_hh.
std::vector<torch::Tensor> cell_weights(int64_t gates, int64_t in, int64_t hidden) {
  return {sparse_randn({gates * hidden, in}, 0.3), sparse_randn({gates * hidden, hidden}, 0.3),
          sparse_randn({gates * hidden}, 0.2), sparse_randn({gates * hidden}, 0.2)};
}

struct Kind {
  std::string layer_op;
  std::string cell_op;
  int64_t gates;
};

// One direction of one layer, replayed with the real layer operator one step at a time (a
// 1-layer, 1-direction call per step, state carried over), each step also given to `cells` as
// the cell call it stands for. Returns the outputs, time-major (T, B, H).
torch::Tensor replay_direction(const Kind& kind, const torch::Tensor& x, torch::Tensor h,
                               torch::Tensor c, const std::vector<torch::Tensor>& w, bool reverse,
                               SynapticOperations& cells) {
  const bool lstm = kind.layer_op == "aten::lstm";
  const int64_t steps = x.size(0);
  std::vector<torch::Tensor> out(static_cast<std::size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    const torch::Tensor xt = x[t];
    const c10::IValue state = lstm ? recurrent_tensor_list({h, c}) : c10::IValue(h);
    const std::vector<c10::IValue> args = {xt, state, w[0], w[1], w[2], w[3]};
    cells.on_connection(neurobench::ConnectionCall{"cell", "Cell", kind.cell_op, args});
    const torch::Tensor step_in = xt.unsqueeze(0);
    if (lstm) {
      auto [o, hn, cn] =
          at::lstm(step_in, {h.unsqueeze(0), c.unsqueeze(0)}, w, true, 1, 0.0, false, false, false);
      h = hn[0];
      c = cn[0];
      out[static_cast<std::size_t>(t)] = o[0];
    } else {
      std::tuple<torch::Tensor, torch::Tensor> r;
      if (kind.layer_op == "aten::gru") {
        r = at::gru(step_in, h.unsqueeze(0), w, true, 1, 0.0, false, false, false);
      } else if (kind.layer_op == "aten::rnn_tanh") {
        r = at::rnn_tanh(step_in, h.unsqueeze(0), w, true, 1, 0.0, false, false, false);
      } else {
        r = at::rnn_relu(step_in, h.unsqueeze(0), w, true, 1, 0.0, false, false, false);
      }
      h = std::get<1>(r)[0];
      out[static_cast<std::size_t>(t)] = std::get<0>(r)[0];
    }
  }
  return torch::stack(out);
}

std::vector<c10::IValue> layer_args(const Kind& kind, const torch::Tensor& input,
                                    const torch::Tensor& h0, const torch::Tensor& c0,
                                    const std::vector<torch::Tensor>& params, int64_t layers,
                                    bool bidirectional, bool batch_first) {
  const bool lstm = kind.layer_op == "aten::lstm";
  return {input,
          lstm ? recurrent_tensor_list({h0, c0}) : c10::IValue(h0),
          recurrent_tensor_list(params),
          true,
          layers,
          0.0,
          false,
          bidirectional,
          batch_first};
}

}  // namespace

TEST_CASE("an LSTM layer counts as the LSTMCell steps it unrolls to", "[metrics][synops]") {
  const std::string name =
      GENERATE(as<std::string>{}, "lstm_1layer", "lstm_2layer_bi_batch_first_hx",
               "lstm_no_bias_spikes", "lstm_unbatched");
  require_oracle_numbers(name);
}

TEST_CASE("a GRU layer counts as the GRUCell steps it unrolls to", "[metrics][synops]") {
  const std::string name = GENERATE(as<std::string>{}, "gru_1layer_batch_first", "gru_2layer_bi_hx",
                                    "gru_no_bias", "gru_unbatched_hx");
  require_oracle_numbers(name);
}

TEST_CASE("an RNN layer, tanh or relu, counts as the RNNCell steps it unrolls to",
          "[metrics][synops]") {
  const std::string name = GENERATE(as<std::string>{}, "rnn_tanh_2layer_spikes", "rnn_relu_bi_hx");
  require_oracle_numbers(name);
}

TEST_CASE("a packed sequence counts only the steps each sequence takes", "[metrics][synops]") {
  const std::string name = GENERATE(as<std::string>{}, "lstm_packed_2layer_bi", "gru_packed");
  require_oracle_numbers(name);
}

TEST_CASE("each step of a recurrent layer is an AC or a MAC by that step's own input",
          "[metrics][synops]") {
  // Layer 0 reads 0/1 spikes (ACs); layer 1 reads tanh outputs (MACs).
  const Json& e = expected_all().at("rnn_tanh_2layer_spikes");
  REQUIRE(e.at("total_acs").get<int64_t>() > 0);
  REQUIRE(e.at("total_macs").get<int64_t>() > 0);
  // One all-zero timestep of one sample (a call of its own when unbatched) is spiking too.
  REQUIRE(expected_all().at("lstm_unbatched").at("total_acs").get<int64_t>() > 0);
  require_oracle_numbers("rnn_tanh_2layer_spikes");
  require_oracle_numbers("lstm_unbatched");
}

TEST_CASE("an LSTM with a projection fails the metric with a message naming the layer",
          "[metrics][synops]") {
  const neurobench::Results r = run_fixture("lstm_proj");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.failures.size() == 1);
  REQUIRE(r.failures[0].metric == "SynapticOperations");
  REQUIRE_THAT(r.failures[0].message, Catch::Contains("layer 'rnn'") &&
                                          Catch::Contains("projection") &&
                                          Catch::Contains("not supported"));
  REQUIRE(r.values.at("SynapticOperations").is_null());
}

TEST_CASE("a recurrent layer call counts the same as the cell calls that replay it",
          "[metrics][synops]") {
  // Independent of the Python oracle: the states come from the real layer operator run one
  // step at a time; two layers, both directions, spiking and non-spiking inputs.
  const Kind kind =
      GENERATE(Kind{"aten::lstm", "aten::lstm_cell", 4}, Kind{"aten::gru", "aten::gru_cell", 3},
               Kind{"aten::rnn_tanh", "aten::rnn_tanh_cell", 1},
               Kind{"aten::rnn_relu", "aten::rnn_relu_cell", 1});
  const bool spikes = GENERATE(false, true);
  const bool batch_first = GENERATE(false, true);
  INFO(kind.layer_op << (spikes ? " on spikes" : " on real values")
                     << (batch_first ? ", batch_first" : ""));
  c10::InferenceMode guard;
  torch::manual_seed(21);
  const int64_t steps = 4, batch = 3, in = 5, hidden = 3, layers = 2, dirs = 2;
  const torch::Tensor x = spikes ? (torch::rand({steps, batch, in}) < 0.4).to(torch::kFloat)
                                 : sparse_randn({steps, batch, in}, 0.3);
  const torch::Tensor h0 = sparse_randn({layers * dirs, batch, hidden}, 0.3);
  const torch::Tensor c0 = sparse_randn({layers * dirs, batch, hidden}, 0.3);
  std::vector<torch::Tensor> params;
  std::vector<std::vector<torch::Tensor>> per_cell;
  for (int64_t l = 0; l < layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      per_cell.push_back(cell_weights(kind.gates, l == 0 ? in : hidden * dirs, hidden));
      params.insert(params.end(), per_cell.back().begin(), per_cell.back().end());
    }
  }

  SynapticOperations cells;
  cells.reset();
  torch::Tensor layer_in = x;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<torch::Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t i = l * dirs + d;
      outs.push_back(replay_direction(kind, layer_in, h0[i], c0[i],
                                      per_cell[static_cast<std::size_t>(i)], d == 1, cells));
    }
    layer_in = torch::cat(outs, 2);
  }

  SynapticOperations whole;
  whole.reset();
  const torch::Tensor input = batch_first ? x.transpose(0, 1) : x;
  const auto args = layer_args(kind, input, h0, c0, params, layers, true, batch_first);
  whole.on_connection(neurobench::ConnectionCall{"rnn", "Layer", kind.layer_op, args});

  const Json expected = finish(cells, batch);
  const Json got = finish(whole, batch);
  REQUIRE(expected.at("Dense").get<double>() > 0);
  REQUIRE(got == expected);
}

TEST_CASE("malformed recurrent layer calls are MetricErrors that name the layer",
          "[metrics][synops]") {
  c10::InferenceMode guard;
  torch::manual_seed(3);
  const Kind gru{"aten::gru", "aten::gru_cell", 3};
  const int64_t steps = 3, batch = 2, in = 4, hidden = 2;
  const torch::Tensor x = torch::randn({steps, batch, in});
  const torch::Tensor h0 = torch::zeros({1, batch, hidden});
  const std::vector<torch::Tensor> params = cell_weights(3, in, hidden);
  SynapticOperations synops;
  synops.reset();
  const auto call = [&](const std::vector<c10::IValue>& args, const std::string& op) {
    synops.on_connection(neurobench::ConnectionCall{"encoder.gru", "GRU", op, args});
  };
  const auto require_error = [&](const std::vector<c10::IValue>& args, const std::string& op,
                                 const std::string& telling) {
    REQUIRE_THROWS_AS(call(args, op), neurobench::MetricError);
    REQUIRE_THROWS_WITH(call(args, op),
                        Catch::Contains("layer 'encoder.gru'") && Catch::Contains(telling));
  };

  SECTION("a weight list that does not fit the layer count") {
    const std::vector<torch::Tensor> three(params.begin(), params.begin() + 3);
    require_error(layer_args(gru, x, h0, {}, three, 1, false, false), "aten::gru",
                  "3 weight tensors for 1 layer(s) x 1 direction(s) with biases, expected 4");
  }
  SECTION("an LSTM weight list with weight_hr (proj_size)") {
    std::vector<torch::Tensor> w = cell_weights(4, in, hidden);
    w.push_back(torch::randn({1, hidden}));
    const Kind lstm{"aten::lstm", "aten::lstm_cell", 4};
    require_error(layer_args(lstm, x, torch::zeros({1, batch, 1}), torch::zeros({1, batch, hidden}),
                             w, 1, false, false),
                  "aten::lstm", "projection (proj_size > 0, weight_hr) are not supported");
  }
  SECTION("an input that is not 2-D or 3-D") {
    require_error(layer_args(gru, x.unsqueeze(0), h0, {}, params, 1, false, false), "aten::gru",
                  "input of shape [1, 3, 2, 4]");
  }
  SECTION("an initial state of the wrong shape") {
    require_error(layer_args(gru, x, torch::zeros({2, batch, hidden}), {}, params, 1, false, false),
                  "aten::gru", "h0 has shape [2, 2, 2], expected [1, 2, 2]");
  }
  SECTION("weights that do not fit the input") {
    require_error(layer_args(gru, x, h0, {}, cell_weights(3, in + 1, hidden), 1, false, false),
                  "aten::gru", "do not fit an input of 4 features");
  }
  SECTION("packed batch sizes that grow") {
    const torch::Tensor data = torch::randn({5, in});
    const torch::Tensor sizes = torch::tensor({2, 3}, torch::kLong);
    const std::vector<c10::IValue> args = {
        data, sizes, h0, recurrent_tensor_list(params), true, int64_t{1}, 0.0, false, false};
    require_error(args, "aten::gru", "not positive and non-increasing");
  }
  SECTION("packed batch sizes that do not add up to the data") {
    const torch::Tensor data = torch::randn({4, in});
    const torch::Tensor sizes = torch::tensor({2, 1}, torch::kLong);
    const std::vector<c10::IValue> args = {
        data, sizes, h0, recurrent_tensor_list(params), true, int64_t{1}, 0.0, false, false};
    require_error(args, "aten::gru", "batch_sizes add up to 3 but the packed data has 4 rows");
  }
  SECTION("a weight_hh that is not a matrix") {
    std::vector<torch::Tensor> w = params;
    w[1] = torch::randn({3 * hidden});
    require_error(layer_args(gru, x, h0, {}, w, 1, false, false), "aten::gru",
                  "weight_hh_l0 has shape [6], expected (gates x hidden, hidden)");
  }
  SECTION("an LSTM state that is not a pair (h0, c0)") {
    const std::vector<c10::IValue> args = {x,
                                           recurrent_tensor_list({h0}),
                                           recurrent_tensor_list(cell_weights(4, in, hidden)),
                                           true,
                                           int64_t{1},
                                           0.0,
                                           false,
                                           false,
                                           false};
    require_error(args, "aten::lstm", "the LSTM state is not a pair (h0, c0)");
  }
  SECTION("too few arguments") { require_error({x, h0}, "aten::gru", "2 arguments, expected 9"); }
}
