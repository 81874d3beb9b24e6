// SPDX-License-Identifier: Apache-2.0
// The spike encoders against snnTorch's spikegen (fixtures from
// tests/fixtures/encoders/make_encoder_fixtures.py), their options, layouts and errors.
// Spikes and events are compared exactly (torch::equal): they are 0, 1 and -1, and the spike
// times behind them are computed by the same LibTorch operations in the same order.
#include <neurobench/processors/encoders.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/json.hpp>
#include <neurobench/processors/processors.hpp>

#include "support.hpp"

using neurobench::Batch;
using neurobench::InputError;
using neurobench::Json;
using neurobench::UsageError;
using neurobench::processors::DeltaEncoder;
using neurobench::processors::DeltaEncoderOptions;
using neurobench::processors::LatencyEncoder;
using neurobench::processors::LatencyEncoderOptions;
using neurobench::processors::RateEncoder;
using neurobench::processors::RateEncoderOptions;

namespace {

Batch encoder_batch_of(const torch::Tensor& data) {
  Batch b;
  b.data = data;
  b.targets = torch::arange(data.dim() > 0 ? data.size(0) : 1, torch::kLong);
  return b;
}

torch::Tensor apply_encoder(neurobench::PreProcessor& pre, const torch::Tensor& data) {
  return pre(encoder_batch_of(data)).data;
}

std::unique_ptr<neurobench::PreProcessor> make_encoder(const std::string& name,
                                                       const Json& options) {
  return neurobench::pre_processors().create(name, options);
}

Json fixture_cases() {
  std::ifstream in(neurobench::test::fixture("encoders/cases.json"));
  return Json::parse(in).at("cases");
}

RateEncoderOptions rate_options(int64_t num_steps, uint64_t seed = 0) {
  RateEncoderOptions o;
  o.num_steps = num_steps;
  o.seed = seed;
  return o;
}

LatencyEncoderOptions latency_options(int64_t num_steps) {
  LatencyEncoderOptions o;
  o.num_steps = num_steps;
  return o;
}

}  // namespace

TEST_CASE(
    "the encoders equal snnTorch's spikegen.rate and spikegen.latency and the delta "
    "definition exactly on every fixture",
    "[encoders]") {
  const Json cases = fixture_cases();
  REQUIRE(cases.size() >= 25);
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    INFO("case " << name);
    neurobench::NpzArchive archive(
        neurobench::test::fixture("encoders/" + c.at("file").get<std::string>()));
    // One encoder for all the batches of a case: RateEncoder's generator runs on across them.
    auto encoder = make_encoder(c.at("encoder").get<std::string>(), c.at("options"));
    for (const auto& keys : c.at("batches")) {
      const torch::Tensor data = archive.read(keys.at(0).get<std::string>());
      const torch::Tensor expected = archive.read(keys.at(1).get<std::string>());
      const torch::Tensor out = apply_encoder(*encoder, data);
      REQUIRE(out.scalar_type() == torch::kFloat);
      REQUIRE(out.sizes() == expected.sizes());
      REQUIRE(out.is_contiguous());
      CHECK(out.equal(expected));
    }
  }
}

TEST_CASE("delta_modulate follows the level: events when value - level passes the threshold",
          "[encoders]") {
  // level 0 (round(0.5), half to even); 1.5: +1 (level 1); 2.6: +1 (2); 2.6: 0; 0.4: -1 (1);
  // -3.0: -1 (0); 1.0: 0, exactly the threshold away (strictly greater needed).
  const auto x = torch::tensor({0.5F, 1.5F, 2.6F, 2.6F, 0.4F, -3.0F, 1.0F});
  const auto events = neurobench::delta_modulate(x, 1.0, 0);
  REQUIRE(events.equal(torch::tensor({0.F, 1.F, 1.F, 0.F, -1.F, -1.F, 0.F})));
  // Threshold 0.5: the level starts at round(0.5) = 0 all the same; 0.5 - 0 is not above 0.5;
  // 1.1 - 0 = 1.1: +1 (level 0.5); 1.6 - 0.5 = 1.1: +1 (level 1).
  const auto half = neurobench::delta_modulate(torch::tensor({0.5F, 1.1F, 1.6F}), 0.5, 0);
  REQUIRE(half.equal(torch::tensor({0.F, 1.F, 1.F})));
  // Threshold 0.25: the first step fires when it is more than 0.25 from its rounding.
  const auto quarter = neurobench::delta_modulate(torch::tensor({0.4F, 0.4F, 0.4F}), 0.25, 0);
  REQUIRE(quarter.equal(torch::tensor({1.F, 0.F, 0.F})));  // 0.4 - 0 > 0.25; then level 0.25
  // A jump of several thresholds is followed one step at a time.
  const auto jump = neurobench::delta_modulate(torch::tensor({0.F, 5.F, 5.F, 5.F, 5.F, 5.F}), 1, 0);
  REQUIRE(jump.equal(torch::tensor({0.F, 1.F, 1.F, 1.F, 1.F, 0.F})));
}

TEST_CASE("delta_modulate runs along the dimension it is given, negative counting from the end",
          "[encoders]") {
  const auto x = torch::randn({3, 4, 20}, torch::TensorOptions().dtype(torch::kFloat)) * 2;
  const auto along_last = neurobench::delta_modulate(x, 0.5, 2);
  REQUIRE(along_last.equal(neurobench::delta_modulate(x, 0.5, -1)));
  const auto moved = neurobench::delta_modulate(x.transpose(1, 2), 0.5, 1).transpose(1, 2);
  REQUIRE(along_last.equal(moved));
  const auto first = neurobench::delta_modulate(x.permute({2, 0, 1}), 0.5, 0).permute({1, 2, 0});
  REQUIRE(along_last.equal(first));
}

TEST_CASE("delta_modulate computes integers and bool as float32, and float64 in float64",
          "[encoders]") {
  const auto ints = torch::tensor({0, 2, 5, 3, -1}, torch::kLong);
  REQUIRE(neurobench::delta_modulate(ints, 1, 0)
              .equal(neurobench::delta_modulate(ints.to(torch::kFloat), 1, 0)));
  const auto flags = torch::tensor({false, true, true, false});
  // level 0; true: +1 (level 0.5); true and false: 0.5 away, no event.
  REQUIRE(neurobench::delta_modulate(flags, 0.5, 0).equal(torch::tensor({0.F, 1.F, 0.F, 0.F})));
  // 0.30000000000000004 is above 0.3 in float64, and both round to the same float32: a step
  // of that size is an event for float64 data only.
  const auto f64 = torch::tensor({0.0, 0.30000000000000004}, torch::kDouble);
  const auto out64 = neurobench::delta_modulate(f64, 0.3, 0);
  REQUIRE(out64.scalar_type() == torch::kFloat);
  REQUIRE(out64.equal(torch::tensor({0.F, 1.F})));  // 0.30000000000000004 > 0.3 in float64
  REQUIRE(neurobench::delta_modulate(f64.to(torch::kFloat), 0.3, 0)
              .equal(torch::tensor({0.F, 0.F})));  // equal in float32
}

TEST_CASE("delta_modulate of an empty tensor is an empty float32 tensor of its shape",
          "[encoders]") {
  const auto out = neurobench::delta_modulate(torch::zeros({2, 0, 3}), 1, 1);
  REQUIRE(out.sizes() == torch::IntArrayRef({2, 0, 3}));
  REQUIRE(out.scalar_type() == torch::kFloat);
  REQUIRE(neurobench::delta_modulate(torch::zeros({0, 5}), 1, 1).sizes() ==
          torch::IntArrayRef({0, 5}));
}

TEST_CASE("delta_modulate rejects a bad threshold or dim (UsageError) and bad data (InputError)",
          "[encoders]") {
  const auto x = torch::rand({2, 5});
  for (const double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    REQUIRE_THROWS_AS(neurobench::delta_modulate(x, bad, 1), UsageError);
    REQUIRE_THROWS_WITH(neurobench::delta_modulate(x, bad, 1),
                        Catch::Contains("threshold") && Catch::Contains("above 0"));
  }
  REQUIRE_THROWS_WITH(neurobench::delta_modulate(x, 1e300, 1),
                      Catch::Contains("float32") && Catch::Contains("1e+300"));
  REQUIRE(neurobench::delta_modulate(x.to(torch::kDouble), 1e300, 1).eq(0).all().item<bool>());
  REQUIRE_THROWS_AS(neurobench::delta_modulate(x, 1, 2), UsageError);
  REQUIRE_THROWS_WITH(neurobench::delta_modulate(x, 1, -3),
                      Catch::Contains("dim -3") && Catch::Contains("2 dimensions"));
  REQUIRE_THROWS_AS(neurobench::delta_modulate(torch::tensor(1.F), 1, 0), InputError);
  REQUIRE_THROWS_AS(neurobench::delta_modulate(torch::Tensor(), 1, 0), InputError);
  auto bad = x.clone();
  bad[1][3] = std::numeric_limits<float>::infinity();
  bad[1][4] = std::nan("");
  REQUIRE_THROWS_AS(neurobench::delta_modulate(bad, 1, 1), InputError);
  REQUIRE_THROWS_WITH(neurobench::delta_modulate(bad, 1, 1),
                      Catch::Contains("2 non-finite") && Catch::Contains("data[1, 3] = inf"));
}

TEST_CASE("DeltaEncoder encodes along the timesteps and drops -1 events without off spikes",
          "[encoders]") {
  const auto x = torch::randn({2, 30, 3}).cumsum(1) * 1.5;
  DeltaEncoder both;
  const auto events = apply_encoder(both, x);
  REQUIRE(events.equal(neurobench::delta_modulate(x, 1.0, 1)));
  REQUIRE(events.lt(0).any().item<bool>());
  DeltaEncoderOptions on_only;
  on_only.off_spikes = false;
  DeltaEncoder positive(on_only);
  // The level still falls on a -1 event: the +1 events are the same as with off spikes.
  REQUIRE(apply_encoder(positive, x).equal(events.clamp_min(0)));
  DeltaEncoder registered(Json{{"threshold", 0.5}, {"off_spikes", true}});
  REQUIRE(apply_encoder(registered, x).equal(neurobench::delta_modulate(x, 0.5, 1)));
}

TEST_CASE("the encoders pass targets and extras through and leave the input alone", "[encoders]") {
  Batch in = encoder_batch_of(torch::rand({3, 4, 2}));
  in.extras["ids"] = torch::tensor({7, 8, 9});
  const auto original = in.data.clone();
  DeltaEncoder delta;
  RateEncoder rate(rate_options(5));
  LatencyEncoder latency(latency_options(16));
  for (neurobench::PreProcessor* pre :
       std::initializer_list<neurobench::PreProcessor*>{&delta, &rate, &latency}) {
    const Batch out = (*pre)(in);
    REQUIRE(out.targets.equal(in.targets));
    REQUIRE(out.extras.at("ids").equal(in.extras.at("ids")));
    REQUIRE(in.data.equal(original));
  }
  REQUIRE(rate(in).data.sizes() == torch::IntArrayRef({3, 5, 4, 2}));
  REQUIRE(latency(in).data.sizes() == torch::IntArrayRef({3, 16, 4, 2}));
  REQUIRE(delta(in).data.sizes() == torch::IntArrayRef({3, 4, 2}));
}

TEST_CASE("RateEncoder is reproducible: one seed, one stream of draws, continued across batches",
          "[encoders]") {
  const auto x = torch::full({4, 6}, 0.5F);
  RateEncoder a(rate_options(10, 3));
  RateEncoder b(rate_options(10, 3));
  RateEncoder other(rate_options(10, 4));
  const auto first = apply_encoder(a, x);
  REQUIRE(first.equal(apply_encoder(b, x)));
  REQUIRE_FALSE(first.equal(apply_encoder(other, x)));
  REQUIRE_FALSE(first.equal(apply_encoder(a, x)));  // the second batch draws on from the first
  // Certain probabilities; first_spike_time silences the first steps.
  RateEncoderOptions o = rate_options(5);
  o.first_spike_time = 2;
  RateEncoder late(o);
  const auto ones = apply_encoder(late, torch::tensor({{1.F, 0.F, 3.F, -2.F}}));
  REQUIRE(ones.sizes() == torch::IntArrayRef({1, 5, 4}));
  REQUIRE(ones.narrow(1, 0, 2).eq(0).all().item<bool>());
  REQUIRE(ones.narrow(1, 2, 3).equal(torch::tensor({1.F, 0.F, 1.F, 0.F}).expand({1, 3, 4})));
  // Infinities are clamped, as in snnTorch.
  RateEncoder plain(rate_options(2));
  const float inf = std::numeric_limits<float>::infinity();
  REQUIRE(apply_encoder(plain, torch::tensor({{inf, -inf}}))
              .equal(torch::tensor({1.F, 0.F}).expand({1, 2, 2})));
}

TEST_CASE("LatencyEncoder places larger values earlier, one spike each", "[encoders]") {
  // snnTorch's docstring example: [0.02, 0.5, 1], 5 steps, linear, normalize: times 3.92, 2, 0.
  LatencyEncoderOptions o = latency_options(5);
  o.linear = true;
  o.normalize = true;
  LatencyEncoder enc(o);
  const auto out = apply_encoder(enc, torch::tensor({{0.02F, 0.5F, 1.F}}));
  REQUIRE(out.sizes() == torch::IntArrayRef({1, 5, 3}));
  const auto expected = torch::tensor({0.F, 0.F, 1.F,  //
                                       0.F, 0.F, 0.F,  //
                                       0.F, 1.F, 0.F,  //
                                       0.F, 0.F, 0.F,  //
                                       1.F, 0.F, 0.F})
                            .reshape({1, 5, 3});
  REQUIRE(out.equal(expected));
  // clip: values below the threshold do not fire at all.
  o.clip = true;
  o.threshold = 0.1;
  LatencyEncoder clipped(o);
  REQUIRE(apply_encoder(clipped, torch::tensor({{0.02F, 0.5F, 1.F}}))
              .sum(1)
              .equal(torch::tensor({{0.F, 1.F, 1.F}})));
  // bypass: spikes later than the last step are dropped instead of an error.
  LatencyEncoderOptions b = latency_options(3);
  b.bypass = true;
  LatencyEncoder bypass(b);
  REQUIRE(
      apply_encoder(bypass, torch::tensor({{0.F, 1.F}})).sum(1).equal(torch::tensor({{0.F, 1.F}})));
  // Integers and bool are taken as float32.
  LatencyEncoder plain(latency_options(16));
  REQUIRE(apply_encoder(plain, torch::tensor({{true, false}}))
              .equal(apply_encoder(plain, torch::tensor({{1.F, 0.F}}))));
}

TEST_CASE("an empty batch gives an empty batch of the encoder's output shape", "[encoders]") {
  DeltaEncoder delta;
  RateEncoder rate(rate_options(4));
  LatencyEncoder latency(latency_options(6));
  REQUIRE(apply_encoder(delta, torch::zeros({2, 0, 3})).sizes() == torch::IntArrayRef({2, 0, 3}));
  REQUIRE(apply_encoder(rate, torch::zeros({0, 3})).sizes() == torch::IntArrayRef({0, 4, 3}));
  REQUIRE(apply_encoder(latency, torch::zeros({0, 3})).sizes() == torch::IntArrayRef({0, 6, 3}));
  REQUIRE(apply_encoder(latency, torch::zeros({2, 0})).sizes() == torch::IntArrayRef({2, 6, 0}));
}

TEST_CASE("the encoders are registered with their options, defaults and required num_steps",
          "[encoders]") {
  const auto& registry = neurobench::pre_processors();
  for (const char* name : {"DeltaEncoder", "RateEncoder", "LatencyEncoder"}) {
    const auto* entry = registry.find(name);
    REQUIRE(entry != nullptr);
    REQUIRE(entry->source == "built-in");
    REQUIRE_FALSE(entry->options.empty());
  }
  REQUIRE(registry.find("delta_encoder")->options.at(0).default_value == Json(1.0));
  REQUIRE(registry.find("RateEncoder")->options.at(0).name == "num_steps");
  REQUIRE(registry.find("RateEncoder")->options.at(0).default_value.is_null());
  for (const char* name : {"RateEncoder", "LatencyEncoder"}) {
    REQUIRE_THROWS_AS(make_encoder(name, Json::object()), UsageError);
    REQUIRE_THROWS_WITH(make_encoder(name, Json::object()),
                        Catch::Contains("needs option 'num_steps'"));
  }
  REQUIRE_THROWS_WITH(make_encoder("RateEncoder", Json{{"num_steps", "ten"}}),
                      Catch::Contains("'num_steps' must be an integer"));
  REQUIRE_THROWS_WITH(make_encoder("DeltaEncoder", Json{{"off_spike", false}}),
                      Catch::Contains("no option 'off_spike'") && Catch::Contains("off_spikes"));
  // The classes' JSON constructors check and complete options as the registry does.
  const DeltaEncoder partial(Json{{"threshold", 0.5}});
  REQUIRE(partial.options().threshold == 0.5);
  REQUIRE(partial.options().off_spikes);
  REQUIRE_THROWS_WITH(RateEncoder(Json::object()), Catch::Contains("needs option 'num_steps'"));
  REQUIRE_THROWS_WITH(LatencyEncoder(Json{{"num_steps", 4}, {"tua", 1}}),
                      Catch::Contains("LatencyEncoder' has no option 'tua'"));
  // Whole numbers written as floats are integers.
  auto rate = make_encoder("RateEncoder", Json{{"num_steps", 3.0}, {"seed", 2.0}});
  REQUIRE(apply_encoder(*rate, torch::rand({2, 2})).size(1) == 3);
}

TEST_CASE("the command line lists the encoders with their options", "[encoders][cli]") {
  const auto r = neurobench::test::run_cli("list");
  REQUIRE(r.status == 0);
  for (const char* text : {"DeltaEncoder", "RateEncoder", "LatencyEncoder", "option num_steps",
                           "option off_spikes", "option normalize"}) {
    CHECK_THAT(r.out, Catch::Contains(text));
  }
}

TEST_CASE("encoder options out of range are a UsageError naming the option and the range",
          "[encoders]") {
  // DeltaEncoder
  for (const double bad : {0.0, -0.5, std::nan("")}) {
    DeltaEncoderOptions o;
    o.threshold = bad;
    REQUIRE_THROWS_AS(DeltaEncoder(o), UsageError);
    REQUIRE_THROWS_WITH(DeltaEncoder(o),
                        Catch::Contains("DeltaEncoder: threshold") && Catch::Contains("above 0"));
  }
  REQUIRE_THROWS_WITH(make_encoder("DeltaEncoder", Json{{"threshold", -1}}),
                      Catch::Contains("threshold is -1"));
  // RateEncoder
  for (const int64_t steps : {int64_t{0}, int64_t{-3}, int64_t{1'000'001}}) {
    REQUIRE_THROWS_AS(RateEncoder(rate_options(steps)), UsageError);
    REQUIRE_THROWS_WITH(RateEncoder(rate_options(steps)),
                        Catch::Contains("num_steps is " + std::to_string(steps)) &&
                            Catch::Contains("from 1 to 1000000"));
  }
  REQUIRE_THROWS_WITH(make_encoder("RateEncoder", Json{{"num_steps", 5}, {"first_spike_time", 5}}),
                      Catch::Contains("first_spike_time is 5") && Catch::Contains("= 4"));
  REQUIRE_THROWS_WITH(make_encoder("RateEncoder", Json{{"num_steps", 5}, {"first_spike_time", -1}}),
                      Catch::Contains("first_spike_time is -1"));
  REQUIRE_THROWS_WITH(make_encoder("RateEncoder", Json{{"num_steps", 5}, {"seed", 1e20}}),
                      Catch::Contains("'seed' is out of range") && Catch::Contains("2^64"));
  REQUIRE_THROWS_WITH(make_encoder("RateEncoder", Json{{"num_steps", 1e30}}),
                      Catch::Contains("'num_steps' is out of range"));
  RateEncoderOptions gain = rate_options(3);
  gain.gain = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(RateEncoder(gain), Catch::Contains("gain is inf"));
  RateEncoderOptions offset = rate_options(3);
  offset.offset = std::nan("");
  REQUIRE_THROWS_WITH(RateEncoder(offset), Catch::Contains("offset is nan"));
  // LatencyEncoder
  REQUIRE_THROWS_WITH(LatencyEncoder(latency_options(0)), Catch::Contains("num_steps is 0"));
  for (const double bad : {0.0, 1.0, 1.5, -0.1}) {
    LatencyEncoderOptions o = latency_options(10);
    o.threshold = bad;
    REQUIRE_THROWS_AS(LatencyEncoder(o), UsageError);
    REQUIRE_THROWS_WITH(LatencyEncoder(o),
                        Catch::Contains("threshold is") && Catch::Contains("above 0 and below 1"));
  }
  for (const double bad : {0.0, -2.0, std::numeric_limits<double>::infinity()}) {
    LatencyEncoderOptions o = latency_options(10);
    o.tau = bad;
    REQUIRE_THROWS_WITH(LatencyEncoder(o), Catch::Contains("tau is"));
    o.tau = 1;
    o.epsilon = bad;
    REQUIRE_THROWS_WITH(LatencyEncoder(o), Catch::Contains("epsilon is"));
  }
  REQUIRE_THROWS_WITH(
      make_encoder("LatencyEncoder", Json{{"num_steps", 3}, {"first_spike_time", 3}}),
      Catch::Contains("first_spike_time is 3"));
  REQUIRE_THROWS_WITH(make_encoder("LatencyEncoder", Json{{"num_steps", 3}, {"linear", 1}}),
                      Catch::Contains("'linear' must be a boolean"));
}

TEST_CASE(
    "encoder data of the wrong layout, type or values are an InputError saying what is "
    "wrong",
    "[encoders]") {
  DeltaEncoder delta;
  RateEncoder rate(rate_options(4));
  LatencyEncoder latency(latency_options(16));
  // Layout
  REQUIRE_THROWS_AS(apply_encoder(delta, torch::rand({5})), InputError);
  REQUIRE_THROWS_WITH(
      apply_encoder(delta, torch::rand({5})),
      Catch::Contains("(batch, timesteps, features...)") && Catch::Contains("shape [5]"));
  REQUIRE_THROWS_WITH(apply_encoder(rate, torch::tensor(0.5F)),
                      Catch::Contains("RateEncoder") && Catch::Contains("shape []"));
  REQUIRE_THROWS_WITH(apply_encoder(latency, torch::tensor(0.5F)),
                      Catch::Contains("LatencyEncoder"));
  REQUIRE_THROWS_WITH(apply_encoder(rate, torch::Tensor()), Catch::Contains("undefined"));
  // Complex numbers
  const auto complex = torch::rand({2, 3}, torch::kComplexFloat);
  REQUIRE_THROWS_WITH(apply_encoder(rate, complex), Catch::Contains("real numbers"));
  REQUIRE_THROWS_WITH(apply_encoder(latency, complex), Catch::Contains("real numbers"));
  REQUIRE_THROWS_WITH(apply_encoder(delta, complex), Catch::Contains("real numbers"));
  // NaN: the count and the first index
  auto nan = torch::rand({2, 3, 4});
  nan[1][2][0] = std::nan("");
  nan[1][2][3] = std::nan("");
  for (neurobench::PreProcessor* pre :
       std::initializer_list<neurobench::PreProcessor*>{&delta, &rate, &latency}) {
    REQUIRE_THROWS_AS(apply_encoder(*pre, nan), InputError);
    REQUIRE_THROWS_WITH(apply_encoder(*pre, nan),
                        Catch::Contains("2 ") && Catch::Contains("data[1, 2, 0] = nan"));
  }
  // Infinities: refused by delta, clamped by rate unless the gain is 0, out of range in latency.
  auto inf = torch::rand({2, 3, 4});
  inf[0][1][2] = -std::numeric_limits<float>::infinity();
  REQUIRE_THROWS_WITH(apply_encoder(delta, inf), Catch::Contains("data[0, 1, 2] = -inf"));
  RateEncoderOptions zero_gain = rate_options(4);
  zero_gain.gain = 0;
  RateEncoder rate0(zero_gain);
  REQUIRE_THROWS_AS(apply_encoder(rate0, inf), InputError);
  REQUIRE_THROWS_WITH(apply_encoder(rate0, inf), Catch::Contains("gain is 0"));
  REQUIRE_THROWS_WITH(apply_encoder(latency, inf), Catch::Contains("from -inf to"));
}

TEST_CASE("LatencyEncoder refuses data outside [0, 1] and spike times it cannot place",
          "[encoders]") {
  LatencyEncoder latency(latency_options(16));
  REQUIRE_THROWS_AS(apply_encoder(latency, torch::tensor({{0.5F, 1.25F}, {-0.5F, 0.F}})),
                    InputError);
  REQUIRE_THROWS_WITH(apply_encoder(latency, torch::tensor({{0.5F, 1.25F}, {-0.5F, 0.F}})),
                      Catch::Contains("[0, 1]") && Catch::Contains("from -0.5 to 1.25"));
  // The default log code puts a 0 at tau * log(0.0100001 / 1e-7), about 11.5: step 12.
  LatencyEncoder short_one(latency_options(12));
  REQUIRE_THROWS_AS(apply_encoder(short_one, torch::tensor({{0.F, 1.F}})), InputError);
  REQUIRE_THROWS_WITH(apply_encoder(short_one, torch::tensor({{0.F, 1.F}})),
                      Catch::Contains("step 12") && Catch::Contains("num_steps - 1 = 11") &&
                          Catch::Contains("bypass"));
  REQUIRE(apply_encoder(latency, torch::tensor({{0.F, 1.F}})).size(1) == 16);
  // An epsilon lost in float32 next to the threshold: a value at the threshold has an
  // infinite spike time.
  LatencyEncoderOptions tiny = latency_options(16);
  tiny.epsilon = 1e-12;
  LatencyEncoder lost(tiny);
  REQUIRE_THROWS_AS(apply_encoder(lost, torch::tensor({{0.F, 1.F}})), InputError);
  REQUIRE_THROWS_WITH(apply_encoder(lost, torch::tensor({{0.F, 1.F}})),
                      Catch::Contains("not all finite") && Catch::Contains("epsilon 1e-12"));
  // In float64 the same epsilon is kept: log(0.010000000001 / 1e-12) is about 23.
  tiny.num_steps = 40;
  LatencyEncoder kept(tiny);
  REQUIRE(apply_encoder(kept, torch::tensor({{0.0, 1.0}}, torch::kDouble))
              .select(2, 0)
              .argmax()
              .item<int64_t>() == 23);
}

TEST_CASE("num_steps whose spikes cannot fit in memory are refused before any is made",
          "[processors][encoders][errors]") {
  // 1,000,000 steps of (2, 16000, 1) clips: 32e9 values, hundreds of GB.
  const Batch clips = encoder_batch_of(torch::rand({2, 16000, 1}));
  RateEncoderOptions rate;
  rate.num_steps = 1000000;
  REQUIRE_THROWS_AS(RateEncoder(rate)(clips), InputError);
  REQUIRE_THROWS_WITH(RateEncoder(rate)(clips),
                      Catch::StartsWith("RateEncoder: num_steps 1000000 on data of shape "
                                        "[2, 16000, 1] would take ") &&
                          Catch::Contains("of memory available (MemAvailable); nothing was made"));
  LatencyEncoderOptions latency;
  latency.num_steps = 1000000;
  REQUIRE_THROWS_WITH(LatencyEncoder(latency)(clips),
                      Catch::StartsWith("LatencyEncoder: num_steps 1000000 on data of shape "
                                        "[2, 16000, 1] would take "));
}
