// SPDX-License-Identifier: Apache-2.0
// NeuroBench's THOR EEG motor imagery files: each subset's trials as float32 and labels as int64,
// and every way the files can be wrong. Files are written here with save_npy;
// tests/datasets/check_thor_eeg_mi.py compares the same reading with NeuroBench's own ThorEEGMI.
#include <neurobench/datasets/thor_eeg_mi.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "file_digest.hpp"
#include "io/npy_fixtures.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::UsageError;
using neurobench::datasets::ThorEegMi;
using neurobench::datasets::ThorEegMiSubset;
using neurobench::test::TempDir;

namespace {

const std::string kWhere =
    " (NeuroBench's THOR EEG motor imagery data, train_X.npy, train_y.npy, val_X.npy and "
    "val_y.npy, are at https://huggingface.co/datasets/NeuroBench/thor_eeg_mi)";

// A small release in `folder`: 6 train and 4 val trials of 25 timesteps and 62 channels,
// float32 as the release stores them, int64 labels 0 and 1.
void write_release(const fs::path& folder) {
  torch::manual_seed(7);
  neurobench::save_npy(folder / "train_X.npy", torch::randn({6, 25, 62}));
  neurobench::save_npy(folder / "train_y.npy", torch::tensor({0, 1, 1, 0, 1, 0}, torch::kInt64));
  neurobench::save_npy(folder / "val_X.npy", torch::randn({4, 25, 62}));
  neurobench::save_npy(folder / "val_y.npy", torch::tensor({1, 0, 0, 1}, torch::kInt64));
}

bool same_eeg(const torch::Tensor& a, const torch::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && torch::equal(a, b);
}

// The digest source_sha256() documents, from coreutils' sha256sum of the two files and of the
// listing.
std::string listing_digest(const TempDir& tmp, const fs::path& folder, const std::string& subset) {
  const std::string x = subset + "_X.npy";
  const std::string y = subset + "_y.npy";
  const std::string listing = "thor-eeg-mi " + subset + "\n" +
                              neurobench::test::sha256sum(folder / x) + "  " + x + "\n" +
                              neurobench::test::sha256sum(folder / y) + "  " + y + "\n";
  neurobench::test::write_bytes(tmp / "listing.txt", listing);
  return neurobench::test::sha256sum(tmp / "listing.txt");
}

}  // namespace

TEST_CASE("each THOR EEG MI subset is its trials as float32 and its labels as int64",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  const fs::path folder = tmp / "thor";
  fs::create_directories(folder);
  write_release(folder);
  for (const auto subset : {ThorEegMiSubset::Train, ThorEegMiSubset::Val}) {
    const std::string name(neurobench::datasets::to_string(subset));
    INFO(name);
    const torch::Tensor x = neurobench::load_npy(folder / (name + "_X.npy"));
    const torch::Tensor y = neurobench::load_npy(folder / (name + "_y.npy"));
    const ThorEegMi eeg(folder, subset);
    CHECK(eeg.folder() == folder);
    CHECK(eeg.subset() == subset);
    CHECK(eeg.size() == x.size(0));
    CHECK(same_eeg(eeg.data(), x));
    CHECK(same_eeg(eeg.targets(), y));
    CHECK(eeg.num_timesteps() == 25);
    CHECK(eeg.num_channels() == 62);
    CHECK(eeg.num_classes() == 2);
    CHECK(eeg.source_sha256() == listing_digest(tmp, folder, name));
    CHECK(eeg.describe() == "THOR EEG MI '" + name + "' subset of " + folder.string() + " (" +
                                std::to_string(x.size(0)) + " trials)");
    const neurobench::Batch batch = eeg.get({3, 0});
    CHECK(same_eeg(batch.data, x.index_select(0, torch::tensor({3, 0}))));
    CHECK(same_eeg(batch.targets, y.index_select(0, torch::tensor({3, 0}))));
    const neurobench::Batch part = eeg.slice(1, 3);
    CHECK(same_eeg(part.data, x.slice(0, 1, 3)));
    CHECK(same_eeg(part.targets, y.slice(0, 1, 3)));
    const auto named = eeg.arrays();
    REQUIRE(named.size() == 2);
    CHECK(named[0].first == "data");
    CHECK(named[1].first == "targets");
  }
  // The digest is the subset's: the other subset, or a changed label, gives another.
  const auto train = ThorEegMi(folder, ThorEegMiSubset::Train).source_sha256();
  CHECK(train != ThorEegMi(folder, ThorEegMiSubset::Val).source_sha256());
  neurobench::save_npy(folder / "train_y.npy", torch::tensor({0, 1, 1, 0, 1, 1}, torch::kInt64));
  CHECK(train != ThorEegMi(folder, ThorEegMiSubset::Train).source_sha256());
}

TEST_CASE("a subset needs only its own two files", "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  write_release(tmp.path());
  fs::remove(tmp / "train_X.npy");
  fs::remove(tmp / "train_y.npy");
  CHECK(ThorEegMi(tmp.path(), ThorEegMiSubset::Val).size() == 4);
  CHECK_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Train), InputError);
}

TEST_CASE("THOR EEG MI trials of any numeric dtype become float32 as torch.tensor(X, float32)",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  write_release(tmp.path());
  // float64 values float32 must round, overflow and underflow; integers past 2^24; booleans.
  torch::Tensor f64 = torch::full({4, 3, 2}, 0.1, torch::kFloat64);
  f64[1][2][1] = 16777217.0;
  f64[0][0][0] = 1e-46;
  f64[0][0][1] = 1e39;
  f64[2][1][0] = std::numeric_limits<double>::quiet_NaN();
  torch::Tensor i64 = torch::full({4, 3, 2}, int64_t{16777217}, torch::kInt64);
  i64[3][0][0] = std::numeric_limits<int64_t>::min();
  torch::Tensor b = torch::zeros({4, 3, 2}, torch::kBool);
  b[0][1][1] = true;
  for (const torch::Tensor& x :
       {f64, i64, b, f64.to(torch::kFloat16), i64.to(torch::kInt32), i64.to(torch::kInt16),
        i64.to(torch::kInt8), i64.to(torch::kUInt8)}) {
    INFO(x.scalar_type());
    neurobench::save_npy(tmp / "val_X.npy", x);
    const ThorEegMi eeg(tmp.path(), ThorEegMiSubset::Val);
    const torch::Tensor expected = x.to(torch::kFloat32);
    REQUIRE(eeg.data().scalar_type() == torch::kFloat32);
    REQUIRE(eeg.data().sizes() == expected.sizes());
    // Bit for bit, NaN included.
    CHECK(std::memcmp(eeg.data().data_ptr(), expected.data_ptr(), expected.nbytes()) == 0);
  }
}

TEST_CASE("THOR EEG MI labels of any integer, boolean or whole floating dtype become int64",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  write_release(tmp.path());
  const torch::Tensor labels = torch::tensor({1, 0, 0, 1}, torch::kInt64);
  for (const auto type : {torch::kInt64, torch::kInt32, torch::kInt16, torch::kInt8, torch::kUInt8,
                          torch::kBool, torch::kFloat64, torch::kFloat32, torch::kFloat16}) {
    INFO(type);
    neurobench::save_npy(tmp / "val_y.npy", labels.to(type));
    CHECK(same_eeg(ThorEegMi(tmp.path(), ThorEegMiSubset::Val).targets(), labels));
  }
  // Other class indices are kept, as NeuroBench keeps them: n_classes is the largest plus one.
  // -0.0 is 0.
  neurobench::save_npy(tmp / "val_y.npy", torch::tensor({3.0, -0.0, 7.0, 1.0}, torch::kFloat64));
  const ThorEegMi many(tmp.path(), ThorEegMiSubset::Val);
  CHECK(same_eeg(many.targets(), torch::tensor({3, 0, 7, 1}, torch::kInt64)));
  CHECK(many.num_classes() == 8);
  // Beyond 2^53 an int64 label is kept exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  neurobench::save_npy(tmp / "val_y.npy", torch::tensor({big, int64_t{0}, int64_t{1}, big}));
  CHECK(same_eeg(ThorEegMi(tmp.path(), ThorEegMiSubset::Val).targets(),
             torch::tensor({big, int64_t{0}, int64_t{1}, big})));
}

TEST_CASE("a THOR EEG MI label that is no class index is refused, naming file, trial and value",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  write_release(tmp.path());
  const std::string y = (tmp / "val_y.npy").string();
  const std::string tail =
      "; a label is a class index, a whole number from 0 (NeuroBench's torch.tensor(y, "
      "dtype=torch.long) would silently make another number of it)";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    torch::Tensor labels;
    std::string message;
  };
  const std::vector<Case> cases = {
      {torch::tensor({1.0, 0.5, 0.0, 1.0}, torch::kFloat64),
       y + ": the label of trial 1 is 0.5" + tail},
      {torch::tensor({1.0, 0.0, 0.0, 1.7}, torch::kFloat32),
       y + ": the label of trial 3 is 1.7000000476837158" + tail},
      {torch::tensor({1.0, 0.0, nan, 1.0}, torch::kFloat64),
       y + ": the label of trial 2 is nan" + tail},
      {torch::tensor({inf, 0.0, 0.0, 1.0}, torch::kFloat16),
       y + ": the label of trial 0 is inf" + tail},
      {torch::tensor({1.0, 0.0, -1.0, 1.0}, torch::kFloat64),
       y + ": the label of trial 2 is -1" + tail},
      {torch::tensor({1.0, 9223372036854775808.0, 0.0, 1.0}, torch::kFloat64),
       y + ": the label of trial 1 is 9.223372036854776e+18" + tail},
      {torch::tensor({1, 0, -1, 1}, torch::kInt8), y + ": the label of trial 2 is -1" + tail},
      {torch::tensor({int64_t{1}, std::numeric_limits<int64_t>::min(), int64_t{0}, int64_t{1}}),
       y + ": the label of trial 1 is -9223372036854775808" + tail},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    neurobench::save_npy(tmp / "val_y.npy", c.labels);
    REQUIRE_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), InputError);
    REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), c.message);
  }
}

TEST_CASE("a missing THOR EEG MI file is refused, naming it and saying where the data are",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  // Nothing there: the inputs file is named first, as NeuroBench looks for it first.
  REQUIRE_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), InputError);
  REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val),
                      (tmp / "val_X.npy").string() + ": no such THOR EEG MI file" + kWhere);
  REQUIRE_THROWS_WITH(
      ThorEegMi(tmp / "nowhere", ThorEegMiSubset::Train),
      (tmp / "nowhere" / "train_X.npy").string() + ": no such THOR EEG MI file" + kWhere);
  // The inputs without the labels: the labels are named.
  write_release(tmp.path());
  fs::remove(tmp / "val_y.npy");
  REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val),
                      (tmp / "val_y.npy").string() + ": no such THOR EEG MI file" + kWhere);
  // A folder in the file's place.
  fs::create_directories(tmp / "val_y.npy");
  REQUIRE_THROWS_WITH(
      ThorEegMi(tmp.path(), ThorEegMiSubset::Val),
      Catch::StartsWith((tmp / "val_y.npy").string() + ": the THOR EEG MI file is a directory") &&
          Catch::EndsWith(kWhere));
}

TEST_CASE("a THOR EEG MI file that is no .npy array of numbers is refused, naming file and dtype",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  write_release(tmp.path());
  const std::string x = (tmp / "val_X.npy").string();
  const std::string y = (tmp / "val_y.npy").string();
  // Not a .npy file at all.
  neurobench::test::write_bytes(tmp / "val_X.npy", "not an array\n");
  REQUIRE_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), InputError);
  REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), Catch::StartsWith(x + ": "));
  // Complex trials (NeuroBench would drop the imaginary part), strings, uint16 labels (NeuroBench
  // fails on those).
  struct Case {
    std::string file;
    std::string dict;
    std::string data;
    std::string dtype;
  };
  const std::vector<Case> cases = {
      {"val_X.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (4, 1, 1), }",
       std::string(32, '\0'), "'<c8'"},
      {"val_X.npy", "{'descr': '<U2', 'fortran_order': False, 'shape': (4, 1, 1), }",
       std::string(32, 'a'), "'<U2'"},
      {"val_y.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }",
       std::string(8, '\0'), "'<u2'"},
      {"val_y.npy", "{'descr': '<c16', 'fortran_order': False, 'shape': (4,), }",
       std::string(64, '\0'), "'<c16'"},
  };
  for (const Case& c : cases) {
    INFO(c.dict);
    write_release(tmp.path());
    neurobench::test::write_bytes(tmp / c.file, neurobench::test::make_npy(c.dict, c.data));
    REQUIRE_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), InputError);
    REQUIRE_THROWS_WITH(
        ThorEegMi(tmp.path(), ThorEegMiSubset::Val),
        Catch::StartsWith((tmp / c.file).string() + ": ") && Catch::Contains(c.dtype));
  }
  // Fewer bytes than the header promises.
  write_release(tmp.path());
  neurobench::test::write_bytes(
      tmp / "val_y.npy",
      neurobench::test::make_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }",
                                 std::string(16, '\0')));
  REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), Catch::StartsWith(y + ": "));
}

TEST_CASE("THOR EEG MI arrays of the wrong shape or count are refused, naming files and shapes",
          "[datasets][thor_eeg_mi]") {
  TempDir tmp;
  const std::string x = (tmp / "val_X.npy").string();
  const std::string y = (tmp / "val_y.npy").string();
  struct Case {
    std::string file;
    torch::Tensor value;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"val_X.npy", torch::zeros({4, 1550}),
       x + ": the 'val' trials have shape (4, 1550); expected 3-D (trials, timesteps, channels)"},
      {"val_X.npy", torch::zeros({4, 25, 62, 1}),
       x + ": the 'val' trials have shape (4, 25, 62, 1); expected 3-D (trials, timesteps, "
           "channels)"},
      {"val_X.npy", torch::tensor(1.5),
       x + ": the 'val' trials have shape (); expected 3-D (trials, timesteps, channels)"},
      {"val_y.npy", torch::zeros({4, 1}, torch::kInt64),
       y + ": the 'val' labels have shape (4, 1); expected 1-D (trials), one class index per "
           "trial"},
      {"val_y.npy", torch::tensor(int64_t{1}),
       y + ": the 'val' labels have shape (); expected 1-D (trials), one class index per trial"},
      {"val_y.npy", torch::tensor({0, 1, 1}, torch::kInt64),
       x + " holds 4 trials (shape (4, 25, 62)) but " + y + " holds 3 labels (shape (3,))"},
      {"val_X.npy", torch::zeros({5, 25, 62}),
       x + " holds 5 trials (shape (5, 25, 62)) but " + y + " holds 4 labels (shape (4,))"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    write_release(tmp.path());
    neurobench::save_npy(tmp / c.file, c.value);
    REQUIRE_THROWS_AS(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), InputError);
    REQUIRE_THROWS_WITH(ThorEegMi(tmp.path(), ThorEegMiSubset::Val), c.message);
  }
  // A subset without trials is a data set of none, as in NeuroBench.
  neurobench::save_npy(tmp / "val_X.npy", torch::zeros({0, 25, 62}));
  neurobench::save_npy(tmp / "val_y.npy", torch::zeros({0}, torch::kInt64));
  const ThorEegMi empty(tmp.path(), ThorEegMiSubset::Val);
  CHECK(empty.size() == 0);
  CHECK(empty.num_classes() == 0);
}

TEST_CASE("THOR EEG MI subsets are named train and val, and indices out of range are UsageErrors",
          "[datasets][thor_eeg_mi]") {
  using neurobench::datasets::thor_eeg_mi_subset;
  CHECK(thor_eeg_mi_subset("train") == ThorEegMiSubset::Train);
  CHECK(thor_eeg_mi_subset("val") == ThorEegMiSubset::Val);
  CHECK_THROWS_AS(thor_eeg_mi_subset("test"), UsageError);
  CHECK_THROWS_WITH(thor_eeg_mi_subset("test"),
                    "unknown THOR EEG MI subset 'test' (subsets: train, val)");
  CHECK(neurobench::datasets::thor_eeg_mi_inputs_file("a/b", ThorEegMiSubset::Val) ==
        fs::path("a/b/val_X.npy"));
  CHECK(neurobench::datasets::thor_eeg_mi_targets_file("a/b", ThorEegMiSubset::Train) ==
        fs::path("a/b/train_y.npy"));
  TempDir tmp;
  write_release(tmp.path());
  const ThorEegMi eeg(tmp.path(), ThorEegMiSubset::Val);
  CHECK_THROWS_AS(eeg.get({4}), UsageError);
  CHECK_THROWS_WITH(eeg.get({-1}), Catch::Contains("trial index -1 out of range [0, 4)"));
  CHECK_THROWS_AS(eeg.slice(2, 5), UsageError);
}

TEST_CASE("the thor-eeg-mi kind opens a subset by --dataset thor-eeg-mi:FOLDER",
          "[datasets][thor_eeg_mi][kinds]") {
  TempDir tmp;
  write_release(tmp.path());
  neurobench::DatasetSpec spec =
      neurobench::parse_dataset_spec("thor-eeg-mi:" + tmp.path().string());
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    "data set 'thor-eeg-mi' needs option 'subset' (the trials: train or val "
                    "(--subset))");
  spec.options["subset"] = "test";
  CHECK_THROWS_AS(neurobench::dataset_kinds().check(spec), UsageError);
  CHECK_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                    "data set 'thor-eeg-mi': unknown THOR EEG MI subset 'test' (subsets: train, "
                    "val)");
  spec.options["subset"] = "val";
  CHECK(neurobench::dataset_kinds().check(spec) == neurobench::Json{{"subset", "val"}});
  const auto dataset = neurobench::dataset_kinds().open(spec);
  const auto* eeg = dynamic_cast<const ThorEegMi*>(dataset.get());
  REQUIRE(eeg != nullptr);
  CHECK(eeg->subset() == ThorEegMiSubset::Val);
  CHECK(eeg->size() == 4);
  spec.path = tmp / "nowhere";
  CHECK_THROWS_AS(neurobench::dataset_kinds().open(spec), InputError);
}

TEST_CASE("neurobench run on a bad thor-eeg-mi folder exits 2 naming the file, writing nothing",
          "[datasets][thor_eeg_mi][cli]") {
  TempDir tmp;
  write_release(tmp.path());
  neurobench::save_npy(tmp / "val_y.npy", torch::tensor({0, 1, 1}, torch::kInt64));
  const std::string model =
      neurobench::test::fixture("../../examples/eeg_mi/models/eeg_snn.pt").string();
  const auto r = neurobench::test::run_cli(
      "run --model '" + model + "' --dataset 'thor-eeg-mi:" + tmp.path().string() +
      "' --subset val --post ChooseMaxCount --metrics ClassificationAccuracy -q --json '" +
      (tmp / "r.json").string() + "'");
  CHECK(r.status == 2);
  CHECK(r.err == "error: " + (tmp / "val_X.npy").string() +
                     " holds 4 trials (shape (4, 25, 62)) but " + (tmp / "val_y.npy").string() +
                     " holds 3 labels (shape (3,))\n");
  CHECK_FALSE(fs::exists(tmp / "r.json"));
  // The good folder runs.
  neurobench::save_npy(tmp / "val_y.npy", torch::tensor({0, 1, 1, 0}, torch::kInt64));
  const auto ok = neurobench::test::run_cli(
      "run --model '" + model + "' --dataset 'thor-eeg-mi:" + tmp.path().string() +
      "' --subset val --post ChooseMaxCount --metrics ClassificationAccuracy -q --json '" +
      (tmp / "r.json").string() + "'");
  CHECK(ok.status == 0);
  CHECK(fs::exists(tmp / "r.json"));
  // An output over a file the kind reads is refused before the first batch, the file kept.
  const std::string labels = neurobench::test::read_file(tmp / "val_y.npy");
  const auto over = neurobench::test::run_cli(
      "run --model '" + model + "' --dataset 'thor-eeg-mi:" + tmp.path().string() +
      "' --subset val --post ChooseMaxCount --metrics ClassificationAccuracy -q --csv '" +
      (tmp / "val_y.npy").string() + "'");
  CHECK(over.status == 2);
  CHECK(over.err == "error: " + (tmp / "val_y.npy").string() + " (--csv) is the same file as " +
                        (tmp / "val_y.npy").string() + " (read by the data set thor-eeg-mi:" +
                        tmp.path().string() + "): an output must not overwrite an input\n");
  CHECK(neurobench::test::read_file(tmp / "val_y.npy") == labels);
}
