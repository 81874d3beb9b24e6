// SPDX-License-Identifier: Apache-2.0
// NeuroBench's WISDM file: which arrays make each subset, inputs as float32, one-hot targets as
// NumPy's argmax, and every way the file can be wrong. Files are written here with save_npz;
// tests/datasets/check_wisdm.py compares the same reading with NeuroBench's own WISDM.
#include <neurobench/datasets/wisdm.hpp>

#include <cmath>
#include <limits>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>

#include "file_digest.hpp"
#include "io/npy_fixtures.hpp"
#include "io/zip_bytes.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::NamedArray;
using neurobench::UsageError;
using neurobench::datasets::argmax_rows;
using neurobench::datasets::Wisdm;
using neurobench::datasets::WisdmSubset;
using neurobench::test::TempDir;

namespace {

// One-hot rows of `classes` columns for `labels`.
torch::Tensor one_hot(const std::vector<int64_t>& labels, int64_t classes,
                      torch::ScalarType type = torch::kFloat64) {
  torch::Tensor y = torch::zeros({static_cast<int64_t>(labels.size()), classes}, type);
  for (std::size_t i = 0; i < labels.size(); ++i) y[static_cast<int64_t>(i)][labels[i]] = 1;
  return y;
}

// The six arrays of a small WISDM file: 5 train, 3 validation, 4 test windows of (40, 6),
// float64 as the release stores them, 7 classes.
std::vector<NamedArray> small_file() {
  torch::manual_seed(3);
  return {{"arr_0", torch::randn({5, 40, 6}, torch::kFloat64)},
          {"arr_1", torch::randn({3, 40, 6}, torch::kFloat64)},
          {"arr_2", torch::randn({4, 40, 6}, torch::kFloat64)},
          {"arr_3", one_hot({0, 6, 2, 2, 5}, 7)},
          {"arr_4", one_hot({1, 3, 4}, 7)},
          {"arr_5", one_hot({6, 0, 1, 3}, 7)}};
}

// `arrays` with the array `name` replaced by `value`, or left out when `value` is undefined.
std::vector<NamedArray> with(std::vector<NamedArray> arrays, const std::string& name,
                             const torch::Tensor& value) {
  std::vector<NamedArray> out;
  for (auto& [n, a] : arrays) {
    if (n != name) {
      out.emplace_back(n, a);
    } else if (value.defined()) {
      out.emplace_back(n, value);
    }
  }
  return out;
}

bool same_wisdm(const torch::Tensor& a, const torch::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && torch::equal(a, b);
}

}  // namespace

TEST_CASE("each WISDM subset is its input array as float32 and its targets' argmax",
          "[datasets][wisdm]") {
  TempDir tmp;
  const auto arrays = small_file();
  const fs::path file = tmp / "watch_subset2_40.npz";
  neurobench::save_npz(file, arrays);
  struct Case {
    WisdmSubset subset;
    std::size_t x, y;
    std::vector<int64_t> labels;
  };
  for (const Case& c :
       {Case{WisdmSubset::Train, 0, 3, {0, 6, 2, 2, 5}}, Case{WisdmSubset::Val, 1, 4, {1, 3, 4}},
        Case{WisdmSubset::Test, 2, 5, {6, 0, 1, 3}}}) {
    INFO(neurobench::datasets::to_string(c.subset));
    // The file, or the folder holding it, as NeuroBench's WISDM takes either.
    for (const fs::path& path : {file, tmp.path()}) {
      const Wisdm wisdm(path, c.subset);
      CHECK(wisdm.file() == file);
      CHECK(wisdm.subset() == c.subset);
      CHECK(wisdm.size() == arrays[c.x].second.size(0));
      CHECK(same_wisdm(wisdm.data(), arrays[c.x].second.to(torch::kFloat32)));
      CHECK(same_wisdm(wisdm.targets(), torch::tensor(c.labels, torch::kInt64)));
      CHECK(wisdm.num_steps() == 40);
      CHECK(wisdm.num_inputs() == 6);
      CHECK(wisdm.num_classes() == 7);
      CHECK(wisdm.source_sha256() == neurobench::test::sha256sum(file));
      CHECK(wisdm.describe() == "WISDM '" + std::string(neurobench::datasets::to_string(c.subset)) +
                                    "' subset of " + file.string() + " (" +
                                    std::to_string(wisdm.size()) + " windows)");
      const neurobench::Batch batch = wisdm.get({2, 0});
      CHECK(same_wisdm(batch.data, wisdm.data().index_select(0, torch::tensor({2, 0}))));
      CHECK(same_wisdm(batch.targets, torch::tensor({c.labels[2], c.labels[0]})));
      const neurobench::Batch part = wisdm.slice(1, 3);
      CHECK(same_wisdm(part.data, wisdm.data().slice(0, 1, 3)));
      CHECK(same_wisdm(part.targets, wisdm.targets().slice(0, 1, 3)));
      const auto named = wisdm.arrays();
      REQUIRE(named.size() == 2);
      CHECK(named[0].first == "data");
      CHECK(named[1].first == "targets");
    }
  }
}

TEST_CASE("WISDM inputs of any numeric dtype become float32 as torch.tensor(x, dtype=float)",
          "[datasets][wisdm]") {
  TempDir tmp;
  const fs::path file = tmp / "w.npz";
  // float64 values that float32 must round, integers past 2^24, booleans.
  torch::Tensor f64 = torch::full({2, 3, 2}, 0.1, torch::kFloat64);
  f64[1][2][1] = 16777217.0;
  f64[0][0][0] = 1e-46;  // below float32's smallest subnormal: rounds to 0
  torch::Tensor i64 = torch::full({2, 3, 2}, int64_t{16777217}, torch::kInt64);
  torch::Tensor b = torch::zeros({2, 3, 2}, torch::kBool);
  b[0][1][1] = true;
  for (const torch::Tensor& x : {f64, i64, b, f64.to(torch::kFloat16), i64.to(torch::kUInt8)}) {
    INFO(x.scalar_type());
    neurobench::save_npz(file, with(with(small_file(), "arr_2", x), "arr_5", one_hot({1, 2}, 7)));
    const Wisdm wisdm(file, WisdmSubset::Test);
    CHECK(same_wisdm(wisdm.data(), x.to(torch::kFloat32)));
  }
}

TEST_CASE("class indices follow NumPy's argmax: first maximum, all-zero rows 0, NaN first",
          "[datasets][wisdm]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const torch::Tensor y = torch::tensor({0.0,  0.0,  0.0,   //
                                         1.0,  1.0,  0.0,   // a tie: the first
                                         0.0,  1.0,  1.0,   //
                                         -3.0, -1.0, -1.0,  // negative values
                                         0.2,  0.7,  0.7,   //
                                         1.0,  nan,  nan,   // NaN beats any number
                                         nan,  5.0,  inf,   //
                                         -0.0, 0.0,  -inf,  // -0 == 0: the first
                                         0.0,  inf,  inf},
                                        torch::kFloat64)
                              .reshape({9, 3});
  const std::vector<int64_t> expected = {0, 0, 1, 1, 1, 1, 0, 0, 1};
  for (const auto type : {torch::kFloat64, torch::kFloat32, torch::kFloat16}) {
    INFO(type);
    CHECK(same_wisdm(argmax_rows(y.to(type)), torch::tensor(expected, torch::kInt64)));
  }
  // Integers compare as integers, even beyond double's 53 bits.
  const torch::Tensor big =
      torch::tensor({int64_t{1} << 60, (int64_t{1} << 60) + 1, int64_t{0}}, torch::kInt64)
          .reshape({1, 3});
  CHECK(same_wisdm(argmax_rows(big), torch::tensor({int64_t{1}})));
  const torch::Tensor ints =
      torch::tensor({0, 0, 0, 1, 1, 0, 0, 2, 2, 0, 0, 1}, torch::kInt64).reshape({4, 3});
  for (const auto type :
       {torch::kInt64, torch::kInt32, torch::kInt16, torch::kInt8, torch::kUInt8, torch::kBool}) {
    INFO(type);
    // As bool the 2s become True: the same indices.
    CHECK(same_wisdm(argmax_rows(ints.to(type)), torch::tensor({0, 0, 1, 2}, torch::kInt64)));
  }
  CHECK(same_wisdm(argmax_rows(torch::tensor({-5, -7}).to(torch::kInt8).reshape({1, 2})),
                   torch::tensor({int64_t{0}})));
  // No rows: no targets; one column: always 0.
  CHECK(argmax_rows(torch::zeros({0, 7})).sizes() == std::vector<int64_t>{0});
  CHECK(same_wisdm(argmax_rows(torch::tensor({3.0, -1.0}).reshape({2, 1})),
                   torch::tensor({int64_t{0}, int64_t{0}})));
  CHECK_THROWS_AS(argmax_rows(torch::zeros({3, 0})), InputError);
  CHECK_THROWS_WITH(argmax_rows(torch::zeros({3, 0})),
                    "one-hot targets: shape (3, 0) has no classes to take the argmax of");
  CHECK_THROWS_WITH(argmax_rows(torch::zeros({3})),
                    "one-hot targets: shape (3,); expected 2-D (samples, classes)");
}

TEST_CASE("WISDM targets in the file are read with NumPy's argmax", "[datasets][wisdm]") {
  TempDir tmp;
  const fs::path file = tmp / "w.npz";
  // All-zero rows, ties and integer one-hot arrays, as a file might hold them.
  const torch::Tensor y =
      torch::tensor({0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1}, torch::kUInt8).reshape({4, 3});
  neurobench::save_npz(file, with(small_file(), "arr_5", y));
  const Wisdm wisdm(file, WisdmSubset::Test);
  CHECK(same_wisdm(wisdm.targets(), torch::tensor({0, 1, 0, 2}, torch::kInt64)));
  CHECK(wisdm.num_classes() == 3);
}

TEST_CASE("a WISDM file without one of arr_0..arr_5 is refused, naming it and the arrays there",
          "[datasets][wisdm]") {
  TempDir tmp;
  const fs::path file = tmp / "watch_subset2_40.npz";
  neurobench::save_npz(file, with(small_file(), "arr_3", {}));
  // The test subset does not read arr_3, but NeuroBench's WISDM needs all six, and so do we.
  for (const auto subset : {WisdmSubset::Train, WisdmSubset::Test}) {
    REQUIRE_THROWS_AS(Wisdm(file, subset), InputError);
    REQUIRE_THROWS_WITH(Wisdm(file, subset),
                        file.string() +
                            ": no array named 'arr_3' (found: arr_0, arr_1, arr_2, arr_4, "
                            "arr_5); a WISDM file holds arr_0..arr_5: the train, validation and "
                            "test inputs, then their one-hot targets");
  }
  neurobench::save_npz(file, {{"data", torch::zeros({2, 3})}});
  REQUIRE_THROWS_WITH(Wisdm(file, WisdmSubset::Test),
                      Catch::StartsWith(file.string() + ": no array named 'arr_0' (found: data)"));
}

TEST_CASE("a missing WISDM file is refused, saying where NeuroBench's data are",
          "[datasets][wisdm]") {
  TempDir tmp;
  const std::string hint =
      "(NeuroBench's WISDM data, watch_subset2_40.npz, is in "
      "https://drive.google.com/drive/folders/"
      "1WCN-XwLM_D2nOTZLY00iGwEJLwDQaUCv)";
  REQUIRE_THROWS_AS(Wisdm(tmp / "none.npz", WisdmSubset::Test), InputError);
  REQUIRE_THROWS_WITH(Wisdm(tmp / "none.npz", WisdmSubset::Test),
                      (tmp / "none.npz").string() + ": no such WISDM file " + hint);
  // A folder: the file in it.
  REQUIRE_THROWS_WITH(Wisdm(tmp.path(), WisdmSubset::Test),
                      (tmp / "watch_subset2_40.npz").string() + ": no such WISDM file " + hint);
  REQUIRE_THROWS_WITH(
      Wisdm(tmp / "nowhere", WisdmSubset::Test),
      (tmp / "nowhere" / "watch_subset2_40.npz").string() + ": no such WISDM file " + hint);
  // A path ending in .npz is the file, as in NeuroBench: a folder of that name is refused.
  fs::create_directories(tmp / "folder.npz");
  REQUIRE_THROWS_WITH(
      Wisdm(tmp / "folder.npz", WisdmSubset::Test),
      Catch::StartsWith((tmp / "folder.npz").string() + ": the WISDM file is a directory"));
  // Not a zip archive.
  neurobench::test::write_bytes(tmp / "text.npz", "not an archive\n");
  REQUIRE_THROWS_AS(Wisdm(tmp / "text.npz", WisdmSubset::Test), InputError);
  REQUIRE_THROWS_WITH(Wisdm(tmp / "text.npz", WisdmSubset::Test),
                      Catch::StartsWith((tmp / "text.npz").string() + ": "));
}

TEST_CASE("WISDM arrays of the wrong shape are refused, naming file, array and shape",
          "[datasets][wisdm]") {
  TempDir tmp;
  const fs::path file = tmp / "w.npz";
  const std::string f = file.string();
  struct Case {
    std::string array;
    torch::Tensor value;
    WisdmSubset subset;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"arr_2", torch::zeros({4, 240}), WisdmSubset::Test,
       f + ": array 'arr_2' (the 'test' inputs) has shape (4, 240); expected 3-D (windows, "
           "timesteps, channels)"},
      {"arr_0", torch::zeros({5, 40, 6, 1}), WisdmSubset::Train,
       f + ": array 'arr_0' (the 'train' inputs) has shape (5, 40, 6, 1); expected 3-D "
           "(windows, timesteps, channels)"},
      {"arr_4", torch::zeros({3}), WisdmSubset::Val,
       f + ": array 'arr_4' (the 'val' targets) has shape (3,); expected 2-D one-hot "
           "(windows, classes)"},
      {"arr_5", torch::zeros({4, 7, 1}), WisdmSubset::Test,
       f + ": array 'arr_5' (the 'test' targets) has shape (4, 7, 1); expected 2-D one-hot "
           "(windows, classes)"},
      {"arr_5", torch::zeros({4, 0}), WisdmSubset::Test,
       f + ": array 'arr_5' (the 'test' targets) has shape (4, 0): no classes to take the "
           "argmax of"},
      {"arr_5", one_hot({1, 2, 3}, 7), WisdmSubset::Test,
       f + ": array 'arr_2' has 4 windows (shape (4, 40, 6)) but its targets 'arr_5' have 3 "
           "(shape (3, 7))"},
      {"arr_3", one_hot({1, 2, 3, 4, 5, 6}, 7), WisdmSubset::Train,
       f + ": array 'arr_0' has 5 windows (shape (5, 40, 6)) but its targets 'arr_3' have 6 "
           "(shape (6, 7))"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    neurobench::save_npz(file, with(small_file(), c.array, c.value));
    REQUIRE_THROWS_AS(Wisdm(file, c.subset), InputError);
    REQUIRE_THROWS_WITH(Wisdm(file, c.subset), c.message);
  }
  // The other subsets of the same file are fine: only the subset's arrays are checked.
  neurobench::save_npz(file, with(small_file(), "arr_5", one_hot({1, 2, 3}, 7)));
  CHECK(Wisdm(file, WisdmSubset::Train).size() == 5);
}

TEST_CASE(
    "a WISDM array of a non-numeric dtype is refused, naming file, array and dtype, "
    "and arrays the subset does not use are not read",
    "[datasets][wisdm]") {
  TempDir tmp;
  const fs::path file = tmp / "w.npz";
  // arr_2 holds strings ('<U2'); the others are the small file's.
  std::vector<neurobench::test::ZipEntry> entries;
  TempDir parts;
  for (const auto& [name, array] : small_file()) {
    if (name == "arr_2") {
      entries.emplace_back(
          name + ".npy",
          neurobench::test::make_npy("{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }",
                                     std::string(16, 'a')));
      continue;
    }
    neurobench::save_npy(parts / (name + ".npy"), array);
    entries.emplace_back(name + ".npy", neurobench::test::read_bytes(parts / (name + ".npy")));
  }
  neurobench::test::write_bytes(file, neurobench::test::make_zip(entries));
  REQUIRE_THROWS_AS(Wisdm(file, WisdmSubset::Test), InputError);
  REQUIRE_THROWS_WITH(Wisdm(file, WisdmSubset::Test),
                      Catch::Contains(file.string() + ": array 'arr_2'") &&
                          Catch::Contains("unsupported dtype '<U2'"));
  CHECK(Wisdm(file, WisdmSubset::Train).size() == 5);
  CHECK(Wisdm(file, WisdmSubset::Val).size() == 3);
}

TEST_CASE("WISDM subsets are named train, val and test", "[datasets][wisdm]") {
  using neurobench::datasets::wisdm_subset;
  CHECK(wisdm_subset("train") == WisdmSubset::Train);
  CHECK(wisdm_subset("val") == WisdmSubset::Val);
  CHECK(wisdm_subset("test") == WisdmSubset::Test);
  CHECK_THROWS_AS(wisdm_subset("testing"), UsageError);
  CHECK_THROWS_WITH(wisdm_subset("testing"),
                    "unknown WISDM subset 'testing' (subsets: train, val, test)");
  CHECK(neurobench::datasets::wisdm_file("a/b.npz") == fs::path("a/b.npz"));
  CHECK(neurobench::datasets::wisdm_file("a/b") == fs::path("a/b/watch_subset2_40.npz"));
  CHECK(neurobench::datasets::wisdm_file("a/b.NPZ") == fs::path("a/b.NPZ/watch_subset2_40.npz"));
}

TEST_CASE("a WISDM index out of range is a UsageError", "[datasets][wisdm]") {
  TempDir tmp;
  neurobench::save_npz(tmp / "w.npz", small_file());
  const Wisdm wisdm(tmp / "w.npz", WisdmSubset::Val);
  CHECK_THROWS_AS(wisdm.get({3}), UsageError);
  CHECK_THROWS_WITH(wisdm.get({-1}), Catch::Contains("window index -1 out of range [0, 3)"));
  CHECK_THROWS_AS(wisdm.slice(2, 4), UsageError);
}

TEST_CASE("the wisdm kind opens a subset by --dataset wisdm:PATH and checks its option",
          "[datasets][wisdm][kinds]") {
  TempDir tmp;
  neurobench::save_npz(tmp / "watch_subset2_40.npz", small_file());
  neurobench::DatasetSpec spec = neurobench::parse_dataset_spec("wisdm:" + tmp.path().string());
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    "data set 'wisdm' needs option 'subset' (the windows: train, val or test "
                    "(--subset))");
  spec.options["subset"] = "testing";
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    "data set 'wisdm': unknown WISDM subset 'testing' (subsets: train, val, "
                    "test)");
  spec.options["subset"] = "test";
  CHECK(neurobench::dataset_kinds().check(spec) == neurobench::Json{{"subset", "test"}});
  const auto dataset = neurobench::dataset_kinds().open(spec);
  const auto* wisdm = dynamic_cast<const Wisdm*>(dataset.get());
  REQUIRE(wisdm != nullptr);
  CHECK(wisdm->subset() == WisdmSubset::Test);
  CHECK(wisdm->size() == 4);
  spec.path = tmp / "nowhere.npz";
  CHECK_THROWS_AS(neurobench::dataset_kinds().open(spec), InputError);
}
