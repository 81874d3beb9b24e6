// SPDX-License-Identifier: Apache-2.0
// The Primate Reaching data set: subsets, shapes and values of a small committed session
// (tests/fixtures/primate_reaching, written by make_mat.py there), option checks, and every file
// it refuses, by name. Sample-by-sample equality with NeuroBench on larger sessions is the
// ctest case primate_reaching_vs_neurobench (tests/datasets/check_primate_reaching.py).
#include <neurobench/datasets/primate_reaching.hpp>

#include <fmt/format.h>
#include <torch/script.h>
#include <limits>

#include <catch2/catch.hpp>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>

#include "io/hdf5_file.hpp"
#include "runtime/finite_check.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::datasets::PrimateReaching;
using neurobench::datasets::PrimateReachingOptions;
using neurobench::datasets::PrimateReachingSubset;
using neurobench::test::fixture;
using neurobench::test::TempDir;

namespace {

PrimateReachingOptions quiet_primate() {
  PrimateReachingOptions options;
  options.quiet = true;
  return options;
}

std::filesystem::path session(const std::string& name) {
  return fixture("primate_reaching/" + name);
}

std::string open_error(const std::filesystem::path& path) {
  try {
    PrimateReaching d(path, PrimateReachingSubset::Test, quiet_primate());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A copy of small.mat in `dir` whose 't' runs evenly from 0 to `stop` seconds, the rest as it
// was: the values of 't' are found among the file's bytes (a contiguous dataset) and rewritten.
std::filesystem::path with_time_span(const TempDir& dir, double stop) {
  std::string bytes = neurobench::test::read_file(session("small.mat"));
  const std::vector<double> t =
      neurobench::detail::Hdf5File(session("small.mat")).read_doubles("t", 1 << 20).values;
  const std::string old(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(double));
  const std::size_t at = bytes.find(old);
  REQUIRE(at != std::string::npos);
  std::vector<double> spread(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    spread[i] = stop * static_cast<double>(i) / static_cast<double>(t.size() - 1);
  }
  bytes.replace(at, old.size(), reinterpret_cast<const char*>(spread.data()), old.size());
  const std::filesystem::path out = dir / "long.mat";
  std::ofstream(out, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out;
}

// A copy of small.mat in `dir` whose `cursor_pos` holds a NaN at (x, step 7), found among the
// file's bytes as with_time_span() finds 't'.
std::filesystem::path with_nan_cursor(const TempDir& dir) {
  std::string bytes = neurobench::test::read_file(session("small.mat"));
  const std::vector<double> c =
      neurobench::detail::Hdf5File(session("small.mat")).read_doubles("cursor_pos", 1 << 20).values;
  const std::string old(reinterpret_cast<const char*>(c.data()), c.size() * sizeof(double));
  const std::size_t at = bytes.find(old);
  REQUIRE(at != std::string::npos);
  std::vector<double> changed = c;
  changed[7] = std::numeric_limits<double>::quiet_NaN();
  bytes.replace(at, old.size(), reinterpret_cast<const char*>(changed.data()), old.size());
  const std::filesystem::path out = dir / "nan_cursor.mat";
  std::ofstream(out, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out;
}

std::string open_error(const std::filesystem::path& path, const PrimateReachingOptions& options) {
  try {
    PrimateReaching d(path, PrimateReachingSubset::Test, options);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// The expected numbers are NeuroBench's (PrimateReaching('.', 'small', num_steps=1), renamed
// indy_small.mat for its name check): subsets of 100, 1 and 199 steps, as the session's 8
// segments (target changes after steps 0, 1, 4, 19, 99, 100, 101) split 6 / 1 / 1.
TEST_CASE("the small session splits into NeuroBench's train, val and test steps",
          "[datasets][primate_reaching]") {
  const PrimateReaching train(session("small.mat"), PrimateReachingSubset::Train, quiet_primate());
  const PrimateReaching val(session("small.mat"), PrimateReachingSubset::Validation,
                            quiet_primate());
  const PrimateReaching test(session("small.mat"), PrimateReachingSubset::Test, quiet_primate());
  CHECK(train.size() == 100);
  CHECK(val.size() == 1);
  CHECK(test.size() == 199);
  CHECK(train.steps().front() == 0);
  CHECK(val.steps() == std::vector<int64_t>{100});
  CHECK(test.steps().front() == 101);
  CHECK(test.steps().back() == 299);
  CHECK(test.segments().size() == 8);
  CHECK(test.channels() == 4);
  CHECK(test.dropped_steps() == 0);
  REQUIRE(test.source_sha256().has_value());
  CHECK(test.source_sha256()->size() == 64);
  CHECK(test.describe() == "Primate Reaching 'test' subset of " + session("small.mat").string() +
                               " (199 samples, 4 channels)");
}

TEST_CASE("samples are (num_steps, channels) float32 counts, targets (2) or (num_steps, 2)",
          "[datasets][primate_reaching]") {
  const PrimateReaching test(session("small.mat"), PrimateReachingSubset::Test, quiet_primate());
  const neurobench::Batch batch = test.get({0, 1, 198});
  CHECK(batch.data.sizes() == torch::IntArrayRef{3, 1, 4});
  CHECK(batch.data.dtype() == torch::kFloat32);
  CHECK(batch.targets.sizes() == torch::IntArrayRef{3, 2});
  CHECK(batch.targets.dtype() == torch::kFloat32);
  // Counts of a 28 ms window: whole numbers from 0 to 7.
  CHECK(torch::equal(batch.data, batch.data.round()));
  CHECK(batch.data.min().item<float>() >= 0);
  CHECK(batch.data.max().item<float>() <= 7);

  PrimateReachingOptions series = quiet_primate();
  series.num_steps = 3;
  series.label_series = true;
  const PrimateReaching train(session("small.mat"), PrimateReachingSubset::Train, series);
  const neurobench::Batch first = train.get({0, 50});
  CHECK(first.data.sizes() == torch::IntArrayRef{2, 3, 4});
  CHECK(first.targets.sizes() == torch::IntArrayRef{2, 3, 2});
  const neurobench::Batch none = test.get({});
  CHECK(none.data.sizes() == torch::IntArrayRef{0, 1, 4});
  // Row k of step 50 is the window of step 50 - 7k, and its target that step's velocity.
  const PrimateReaching one(session("small.mat"), PrimateReachingSubset::Train, quiet_primate());
  const neurobench::Batch rows = one.get({50, 43, 36});
  CHECK(torch::equal(first.data[1], rows.data.squeeze(1)));
  CHECK(torch::equal(first.targets[1], rows.targets));
}

TEST_CASE("counts and velocities are NeuroBench's on the small session",
          "[datasets][primate_reaching]") {
  // NeuroBench's values (check_primate_reaching.py compares every sample of larger sessions).
  const PrimateReaching test(session("small.mat"), PrimateReachingSubset::Test, quiet_primate());
  std::vector<int64_t> all(199);
  for (int64_t i = 0; i < 199; ++i) all[static_cast<std::size_t>(i)] = i;
  const neurobench::Batch batch = test.get(all);
  CHECK(batch.data.sum().item<float>() == 917.0F);
  CHECK(batch.data.max().item<float>() == 5.0F);
  CHECK(torch::equal(batch.data[0], torch::zeros({1, 4})));
  CHECK(torch::equal(batch.data[198], torch::tensor({{3.0F, 4.0F, 1.0F, 3.0F}})));
  // torch.gradient's values, to the bit: 0.36132144927978516 is 0x1.71fe4p-2 in float32.
  CHECK(batch.targets[0][0].item<float>() == 0x1.71fe4p-2F);
  CHECK(batch.targets[0][1].item<float>() == 0x1.90a738p-4F);
  CHECK(batch.targets[198][0].item<float>() == 0x1.d06fp-2F);
  CHECK(batch.targets[198][1].item<float>() == -0x1.f7a44p-2F);
}

TEST_CASE("a session without cursor_pos is an InputError naming the file and the dataset",
          "[datasets][primate_reaching]") {
  const std::string message = open_error(session("no_cursor_pos.mat"));
  CHECK_THAT(message, Catch::StartsWith(session("no_cursor_pos.mat").string() +
                                        ": no dataset 'cursor_pos' (the file holds: #refs#, "));
  CHECK_THAT(message, Catch::Contains("spikes, t, target_pos"));
}

TEST_CASE("datasets of the wrong shape or type are InputErrors saying what was expected",
          "[datasets][primate_reaching]") {
  CHECK(open_error(session("bad_shape.mat")) ==
        session("bad_shape.mat").string() +
            ": dataset 'cursor_pos' has shape (3, 50); expected (2, 50), x and y for each step "
            "of 't'");
  CHECK(open_error(session("spikes_not_cell.mat")) ==
        session("spikes_not_cell.mat").string() +
            ": dataset 'spikes': not a MATLAB cell array (expected object references)");
}

TEST_CASE("a file that is not HDF5, truncated or missing is an InputError naming it",
          "[datasets][primate_reaching]") {
  TempDir dir;
  const std::string bytes = neurobench::test::read_file(session("small.mat"));
  {
    std::ofstream out(dir / "text.mat", std::ios::binary);
    out << "MATLAB 5.0 MAT-file, not version 7.3\n";
  }
  CHECK(open_error(dir / "text.mat") ==
        (dir / "text.mat").string() +
            ": not an HDF5 file (a MATLAB .mat file of version 7.3 is one; save older ones with "
            "save -v7.3)");
  for (const std::size_t keep : {bytes.size() / 2, bytes.size() - 100, std::size_t{600}}) {
    {
      std::ofstream out(dir / "cut.mat", std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(keep));
    }
    INFO("first " << keep << " bytes");
    const std::string message = open_error(dir / "cut.mat");
    CHECK_THAT(message, Catch::StartsWith((dir / "cut.mat").string() + ": "));
    CHECK_THAT(message, Catch::Contains("truncated"));
  }
  CHECK_THAT(open_error(dir / "none.mat"), Catch::Contains("no such file"));
}

TEST_CASE("options NeuroBench asserts on are UsageErrors naming the field",
          "[datasets][primate_reaching]") {
  const auto refused = [](auto change, const std::string& text) {
    PrimateReachingOptions o = quiet_primate();
    change(o);
    CHECK_THROWS_AS(o.validate(), UsageError);
    CHECK_THROWS_WITH(o.validate(), Catch::StartsWith("Primate Reaching option " + text));
    CHECK_THROWS_AS(PrimateReaching(session("small.mat"), PrimateReachingSubset::Test, o),
                    UsageError);
  };
  refused([](auto& o) { o.num_steps = 0; }, "num_steps = 0: must be at least 1");
  refused([](auto& o) { o.train_ratio = 1.5; }, "train_ratio = 1.5: must lie in [0, 1]");
  refused([](auto& o) { o.biological_delay = -1; }, "biological_delay = -1");
  refused([](auto& o) { o.stride = 0.002; }, "stride = 0.002: must be at least 0.004 s");
  refused([](auto& o) { o.bin_width = 0.001; }, "bin_width = 0.001: must be at least 0.004 s");
  refused([](auto& o) { o.max_segment_length = -1; }, "max_segment_length = -1");
  refused([](auto& o) { o.split_num = 0; }, "split_num = 0: must be at least 1");
  CHECK_NOTHROW(quiet_primate().validate());
}

TEST_CASE("spike trains too long for memory are refused naming the file before allocating",
          "[datasets][primate_reaching]") {
  TempDir dir;
  // Over 2^64 steps of 4 ms (a cast to size_t once gave 0 and a write into an empty vector).
  const std::filesystem::path huge = with_time_span(dir, 1e17);
  CHECK_THROWS_AS(PrimateReaching(huge, PrimateReachingSubset::Test, quiet_primate()), InputError);
  std::string message = open_error(huge, quiet_primate());
  CHECK_THAT(message, Catch::StartsWith(huge.string() + ": the spike trains of 4 channels over "
                                                        "dataset 't' (0 s to 1e+17 s)"));
  CHECK_THAT(message, Catch::Contains("nothing of it was read"));
  // 2.5e11 steps: within size_t, far beyond the budget, which the message names.
  PrimateReachingOptions small_budget = quiet_primate();
  small_budget.max_array_bytes = 1 << 20;
  message = open_error(with_time_span(dir, 1e9), small_budget);
  CHECK_THAT(message, Catch::Contains("(0 s to 1e+09 s)"));
  CHECK_THAT(message, Catch::Contains("max_array_bytes"));
  // The same from bin_width, on the small session.
  PrimateReachingOptions wide = quiet_primate();
  wide.bin_width = 1e9;
  message = open_error(session("small.mat"), wide);
  CHECK_THAT(message, Catch::StartsWith(session("small.mat").string() + ": the spike trains"));
  CHECK_THAT(message, Catch::Contains("a bin_width of 1e+09 s"));
}

TEST_CASE("stride and bin_width too large are UsageErrors naming them, split_num gives none",
          "[datasets][primate_reaching]") {
  for (const double seconds : {1e17, 1e300}) {
    PrimateReachingOptions o = quiet_primate();
    o.stride = seconds;
    CHECK_THROWS_WITH(o.validate(), fmt::format("Primate Reaching option stride = {}: must be at "
                                                "least 0.004 s (the sampling interval) and at "
                                                "most 1e+09 s",
                                                seconds));
    o = quiet_primate();
    o.bin_width = seconds;
    CHECK_THROWS_WITH(o.validate(), Catch::StartsWith(fmt::format(
                                        "Primate Reaching option bin_width = {}: ", seconds)));
  }
  // More chunks than segments: no samples, as in NeuroBench, and at once (a loop over 10^18
  // chunks once hung).
  for (const int64_t chunks : {int64_t{9}, int64_t{1000000000000000000}}) {
    PrimateReachingOptions o = quiet_primate();
    o.split_num = chunks;
    CHECK(PrimateReaching(session("small.mat"), PrimateReachingSubset::Train, o).size() == 0);
  }
  PrimateReachingOptions eight = quiet_primate();
  eight.split_num = 8;
  CHECK(PrimateReaching(session("small.mat"), PrimateReachingSubset::Test, eight).size() > 0);
}

TEST_CASE("subset names are NeuroBench's, an unknown one is a UsageError listing them",
          "[datasets][primate_reaching]") {
  using neurobench::datasets::primate_reaching_subset;
  CHECK(primate_reaching_subset("train") == PrimateReachingSubset::Train);
  CHECK(primate_reaching_subset("val") == PrimateReachingSubset::Validation);
  CHECK(primate_reaching_subset("validation") == PrimateReachingSubset::Validation);
  CHECK(primate_reaching_subset("test") == PrimateReachingSubset::Test);
  CHECK(neurobench::datasets::to_string(PrimateReachingSubset::Validation) == "val");
  CHECK_THROWS_AS(primate_reaching_subset("testing"), UsageError);
  CHECK_THROWS_WITH(primate_reaching_subset("testing"),
                    Catch::StartsWith("unknown Primate Reaching subset 'testing' (valid: train, "
                                      "val, test"));
  const PrimateReaching test(session("small.mat"), PrimateReachingSubset::Test, quiet_primate());
  CHECK_THROWS_AS(test.get({199}), UsageError);
  CHECK_THROWS_AS(test.get({-1}), UsageError);
}

TEST_CASE("the primate-reaching kind opens a session with its options",
          "[datasets][primate_reaching][kinds]") {
  neurobench::DatasetSpec spec{"primate-reaching",
                               session("small.mat"),
                               {{"subset", "test"}, {"num_steps", 2}, {"label_series", true}}};
  neurobench::DatasetOpenOptions open;
  open.quiet = true;
  const auto d = neurobench::dataset_kinds().open(spec, open);
  CHECK(d->size() == 199);
  const neurobench::Batch b = d->get({0});
  CHECK(b.data.sizes() == torch::IntArrayRef{1, 2, 4});
  CHECK(b.targets.sizes() == torch::IntArrayRef{1, 2, 2});
  spec.options = {{"subset", "test"}, {"bin_width", 0.001}};
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    Catch::StartsWith("data set 'primate-reaching': Primate Reaching option "
                                      "bin_width = 0.001"));
  spec.options = neurobench::Json::object();
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    Catch::StartsWith("data set 'primate-reaching' needs option 'subset'"));
  // Integer options beyond int64 are quoted as given, not as the wrapped-around value.
  for (const char* name : {"num_steps", "split_num", "biological_delay", "max_segment_length"}) {
    for (const neurobench::Json& value :
         {neurobench::Json(1e30), neurobench::Json(1e19), neurobench::Json(-1e19),
          neurobench::Json(std::uint64_t{10000000000000000000u})}) {
      spec.options = {{"subset", "test"}, {name, value}};
      INFO(name << " = " << value.dump());
      CHECK_THROWS_AS(neurobench::dataset_kinds().check(spec), UsageError);
      CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                        fmt::format("data set 'primate-reaching': option '{}' = {} is out of "
                                    "range (an integer from -2^63 to 2^63 - 1)",
                                    name, value.dump()));
    }
  }
}

TEST_CASE("a NaN in cursor_pos reaches the scan before the run through the session's velocity",
          "[datasets][primate_reaching]") {
  TempDir dir;
  const PrimateReaching d(with_nan_cursor(dir), PrimateReachingSubset::Train, quiet_primate());
  const auto arrays = d.arrays();
  REQUIRE(arrays.size() == 1);
  CHECK(arrays[0].first == "velocity (targets, from cursor_pos)");
  CHECK(arrays[0].second.isnan().any().item<bool>());
  const auto found = neurobench::detail::find_non_finite(arrays[0].second);
  REQUIRE(found.has_value());
  CHECK(found->nan > 0);
  // The clean session has none.
  const PrimateReaching clean(session("small.mat"), PrimateReachingSubset::Train, quiet_primate());
  CHECK_FALSE(neurobench::detail::find_non_finite(clean.arrays()[0].second).has_value());
}
