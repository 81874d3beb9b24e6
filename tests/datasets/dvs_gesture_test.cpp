// SPDX-License-Identifier: Apache-2.0
// The DVS Gesture data set on the fixture release and tonic export
// (tests/fixtures/dvs_gesture/make_fixtures.py): the samples, labels and order of each subset,
// and frames equal to tonic's semantics (the fixture's expected/*.npz come from
// tonic_reference.py, checked once against tonic itself, docs/datasets.md) for NeuroBench's
// options and for time windows, event counts and overlaps; every bad file refused by name.
#include <neurobench/datasets/dvs_gesture.hpp>

#include <sys/stat.h>

#include <fstream>

#include <limits>

#include <torch/script.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>

#include "support.hpp"
#include "unprivileged.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::datasets::DvsGesture;
using neurobench::datasets::DvsGestureOptions;
using neurobench::datasets::DvsGestureSubset;
using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::TempDir;

namespace fs = std::filesystem;

namespace {

DvsGestureOptions quiet_dvs() {
  DvsGestureOptions o;
  o.quiet = true;
  return o;
}

// expected/NAME.npz: frames stored sparse (shape, flat index, count) and targets.
struct Expected {
  torch::Tensor data;
  torch::Tensor targets;
};

Expected expected(const std::string& name) {
  std::map<std::string, torch::Tensor> a;
  const fs::path file = fixture("dvs_gesture/expected/" + name + ".npz");
  for (auto& [key, value] : neurobench::load_npz(file)) a[key] = value;
  const torch::Tensor shape = a.at("shape");
  std::vector<int64_t> sizes(shape.data_ptr<int64_t>(), shape.data_ptr<int64_t>() + shape.numel());
  torch::Tensor flat = torch::zeros({shape.prod().item<int64_t>()}, torch::kFloat32);
  flat.index_put_({a.at("index")}, a.at("count"));
  return {flat.reshape(sizes), a.at("targets")};
}

neurobench::Batch all(const DvsGesture& d) {
  std::vector<int64_t> indices(static_cast<std::size_t>(d.size()));
  for (int64_t i = 0; i < d.size(); ++i) indices[static_cast<std::size_t>(i)] = i;
  return d.get(indices);
}

void require_dvs_equal(const neurobench::Batch& got, const Expected& want) {
  REQUIRE(got.data.sizes() == want.data.sizes());
  REQUIRE(got.data.scalar_type() == torch::kFloat32);
  REQUIRE(got.targets.scalar_type() == torch::kInt64);
  REQUIRE(torch::equal(got.targets, want.targets));
  REQUIRE(torch::equal(got.data, want.data));
}

void copy_folder(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
}

void write_dvs_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("DvsGesture reads the release's samples with NeuroBench's frames", "[datasets][dvs]") {
  for (const auto subset : {DvsGestureSubset::Train, DvsGestureSubset::Test}) {
    const std::string name = std::string(neurobench::datasets::to_string(subset));
    DYNAMIC_SECTION(name) {
      const DvsGesture d(fixture("dvs_gesture/release"), subset, quiet_dvs());
      REQUIRE(d.is_release());
      REQUIRE(d.size() == 5);
      REQUIRE(d.frame_size() == 32);
      const neurobench::Batch batch = all(d);
      REQUIRE(batch.data.size(1) == 150);
      REQUIRE(batch.data.sum().item<float>() > 1000);
      require_dvs_equal(batch, expected("release_" + name + "_default"));
      REQUIRE(d.describe().find("release, 5 samples") != std::string::npos);
    }
  }
  const DvsGesture test(fixture("dvs_gesture/release"), DvsGestureSubset::Test, quiet_dvs());
  // Trial list order, then csv order: user24_natural's classes 7, 10, 4 are labels 6, 9, 3.
  REQUIRE(test.label(0) == 6);
  REQUIRE(test.label(1) == 9);
  REQUIRE(test.label(2) == 3);
  REQUIRE(test.file(3).filename() == "user25_lab.aedat");
}

TEST_CASE("DvsGesture samples hold the events with start <= t < end of their csv row",
          "[datasets][dvs]") {
  const DvsGesture d(fixture("dvs_gesture/release"), DvsGestureSubset::Test, quiet_dvs());
  const std::string csv = read_file(fixture("dvs_gesture/release/user24_natural_labels.csv"));
  // Second line: the first gesture's class, start, end.
  const std::size_t line = csv.find('\n') + 1;
  const std::string row = csv.substr(line, csv.find('\n', line) - line);
  const int64_t start = std::stoll(row.substr(row.find(',') + 1));
  const int64_t end = std::stoll(row.substr(row.rfind(',') + 1));
  const neurobench::events::Events e = d.events(0);
  REQUIRE(e.t.front() == start);  // the fixture has events exactly at start and at end
  REQUIRE(e.t.back() < end);
  REQUIRE(e.t.back() >= end - 1000);
}

TEST_CASE("DvsGesture frames by time window, event count and overlapping bins as tonic",
          "[datasets][dvs]") {
  for (const std::string config : {"window", "count", "bins_overlap"}) {
    DYNAMIC_SECTION(config) {
      DvsGestureOptions o = quiet_dvs();
      if (config == "window") {
        o.frames.time_window = 20000;
        o.frames.overlap = 5000;
        o.frames.include_incomplete = true;
      } else if (config == "count") {
        o.filter_time = 0;
        o.frames.event_count = 500;
        o.frames.overlap = 100;
      } else {
        o.spatial_factor = 0.5;
        o.frames.n_time_bins = 20;
        o.frames.overlap = 0.25;
      }
      for (const auto subset : {DvsGestureSubset::Train, DvsGestureSubset::Test}) {
        const DvsGesture d(fixture("dvs_gesture/release"), subset, o);
        require_dvs_equal(
            all(d), expected("release_" + std::string(neurobench::datasets::to_string(subset)) +
                             "_" + config));
      }
    }
  }
}

TEST_CASE("DvsGesture reads tonic's export: ms arrays of any dtype and structured arrays",
          "[datasets][dvs]") {
  for (const auto subset : {DvsGestureSubset::Train, DvsGestureSubset::Test}) {
    const std::string name = std::string(neurobench::datasets::to_string(subset));
    DYNAMIC_SECTION(name) {
      const DvsGesture d(fixture("dvs_gesture/tonic"), subset, quiet_dvs());
      REQUIRE_FALSE(d.is_release());
      require_dvs_equal(all(d), expected("tonic_" + name + "_default"));
    }
  }
  // tonic's root (save_to) holds DVSGesture/; a batch pads shorter samples with zero frames.
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/tonic"), tmp / "DVSGesture");
  DvsGestureOptions o = quiet_dvs();
  o.frames.time_window = 10000;
  const DvsGesture d(tmp.path(), DvsGestureSubset::Test, o);
  const neurobench::Batch one = d.get({3});  // user25_lab class 1: 40 ms
  const neurobench::Batch two = d.get({3, 0});
  REQUIRE(one.data.size(1) < two.data.size(1));
  REQUIRE(torch::equal(two.data[0].narrow(0, 0, one.data.size(1)), one.data[0]));
  REQUIRE(two.data[0]
              .narrow(0, one.data.size(1), two.data.size(1) - one.data.size(1))
              .count_nonzero()
              .item<int64_t>() == 0);
}

TEST_CASE("the dvs-gesture kind opens the release with NeuroBench's defaults",
          "[datasets][dvs][kinds]") {
  neurobench::DatasetSpec spec =
      neurobench::parse_dataset_spec("dvs-gesture:" + fixture("dvs_gesture/release").string());
  spec.options["subset"] = "test";
  neurobench::DatasetOpenOptions open;
  open.quiet = true;
  const auto d = neurobench::dataset_kinds().open(spec, open);
  require_dvs_equal(d->get({0, 1, 2, 3, 4}), expected("release_test_default"));
  REQUIRE(d->source_sha256().value().size() == 64);
  spec.options["time_window"] = 20000;
  spec.options["overlap"] = 5000;
  spec.options["include_incomplete"] = true;
  require_dvs_equal(neurobench::dataset_kinds().open(spec, open)->get({0, 1, 2, 3, 4}),
                    expected("release_test_window"));
  spec.options["n_time_bins"] = 10;  // and time_window: two slicings
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec), Catch::Contains("exactly one"));
  spec.options = {{"subset", "validation"}};
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                      Catch::Contains("unknown DVS Gesture subset 'validation'"));
  spec.options = {{"subset", "test"}, {"filter_time", -1}};
  REQUIRE_THROWS_AS(neurobench::dataset_kinds().check(spec), UsageError);
  // Integer options past int64 are quoted as given, not wrapped into another value.
  spec.options = {{"subset", "test"}, {"n_time_bins", 1e30}};
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                      "data set 'dvs-gesture': option 'n_time_bins' = 1e+30 is out of range (an "
                      "integer from -2^63 to 2^63 - 1)");
  spec.options = {{"subset", "test"}, {"event_count", std::uint64_t{10000000000000000000u}}};
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec),
                      Catch::Contains("option 'event_count' = 10000000000000000000 is out of range"));
}

TEST_CASE("DvsGesture names what it looked for when the folder is neither layout",
          "[datasets][dvs]") {
  TempDir tmp;
  REQUIRE_THROWS_WITH(DvsGesture(tmp.path(), DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("not a DVS Gesture folder") &&
                          Catch::Contains("trials_to_train.txt") &&
                          Catch::Contains("ibmGestureTest"));
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "nothing", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("no such DVS Gesture folder"));
  fs::create_directories(tmp / "only_train" / "ibmGestureTrain");
  REQUIRE_THROWS_WITH(
      DvsGesture(tmp / "only_train", DvsGestureSubset::Test, quiet_dvs()),
      Catch::Contains("ibmGestureTest: no such folder") && Catch::Contains("figshare"));
}

TEST_CASE("DvsGesture refuses a missing labels csv and a bad row, naming them", "[datasets][dvs]") {
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/release"), tmp / "r");
  fs::remove(tmp / "r" / "user25_lab_labels.csv");
  REQUIRE_THROWS_AS(DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()), InputError);
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("trials_to_test.txt line 2") &&
                          Catch::Contains("user25_lab_labels.csv: no such labels file"));
  write_dvs_file(tmp / "r" / "user25_lab_labels.csv",
                 "class,startTime_usec,endTime_usec\n12,5,10\n");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("user25_lab_labels.csv line 2: '12,5,10'") &&
                          Catch::Contains("class (1-11)"));
  fs::remove(tmp / "r" / "user24_natural.aedat");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("line 1") && Catch::Contains("no such AEDAT file"));
}

TEST_CASE("DvsGesture reports a truncated recording and a bad eventSize when it reads them",
          "[datasets][dvs]") {
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/release"), tmp / "r");
  const fs::path rec = tmp / "r" / "user25_lab.aedat";
  const std::string whole = read_file(rec);
  write_dvs_file(rec, whole.substr(0, whole.size() - 5));
  const DvsGesture d(tmp / "r", DvsGestureSubset::Test, quiet_dvs());
  REQUIRE_NOTHROW(d.get({0, 1, 2}));  // user24_natural is intact
  REQUIRE_THROWS_WITH(d.get({3}), Catch::Contains(rec.string()) &&
                                      Catch::Contains("truncated AEDAT packet at byte offset"));
  // eventSize of the first polarity packet (after the special-event packet) set to 16.
  std::string bad = whole;
  const std::size_t data = bad.find("#!END-HEADER\r\n") + 14;
  const std::size_t second = data + 28 + 8;
  REQUIRE(bad[second] == 1);  // eventType 1: polarity
  bad[second + 4] = 16;
  write_dvs_file(rec, bad);
  REQUIRE_THROWS_WITH(d.get({4}), Catch::Contains(rec.string()) && Catch::Contains("eventSize 16"));
}

TEST_CASE("DvsGesture refuses malformed npy files of tonic's export", "[datasets][dvs]") {
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/tonic"), tmp / "t");
  const fs::path trial = tmp / "t" / "ibmGestureTest" / "user24_natural";
  write_dvs_file(trial / "5.npy", "garbage");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("5.npy") && Catch::Contains("not a NumPy .npy file"));
  fs::remove(trial / "5.npy");
  fs::copy_file(fixture("dvs_gesture/npy/plain.npy"), trial / "5.npy");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("5.npy: an array of shape (2, 3)"));
  fs::remove(trial / "5.npy");
  fs::copy_file(fixture("dvs_gesture/npy/unsigned.npy"), trial / "5.npy");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("5.npy: the structured array has no field 'x'"));
  fs::remove(trial / "5.npy");
  // A (events, 4) array with an event off the 128 x 128 sensor: found when it is read.
  neurobench::save_npy(trial / "7.npy",
                       torch::tensor({200, 1, 0, 5, 1, 1, 1, 6}, torch::kInt).reshape({2, 4}));
  const DvsGesture off(tmp / "t", DvsGestureSubset::Test, quiet_dvs());
  REQUIRE(off.file(2).filename() == "7.npy");
  REQUIRE_THROWS_WITH(off.get({2}), Catch::Contains("7.npy: sample 2: event 0 at x 200, y 1") &&
                                        Catch::Contains("outside the DVS128"));
  write_dvs_file(trial / "11.npy", "");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("11.npy: expected a file named by its label"));
}

TEST_CASE("DvsGesture refuses a trial or a sample file that is not what it seems, by name",
          "[datasets][dvs]") {
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/tonic"), tmp / "t");
  const fs::path test = tmp / "t" / "ibmGestureTest";
  // A trial that is a link to nothing or a loop: its samples would be left out unsaid.
  fs::create_symlink(tmp / "gone", test / "user30_gone");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains((test / "user30_gone").string()) &&
                          Catch::Contains("the trial is a symbolic link to"));
  fs::remove(test / "user30_gone");
  fs::create_symlink(test / "user31_b", test / "user31_a");
  fs::create_symlink(test / "user31_a", test / "user31_b");
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("user31_") && Catch::Contains("symbolic link loop"));
  fs::remove(test / "user31_a");
  fs::remove(test / "user31_b");
  // A sample file that is a FIFO: refused without waiting for a writer.
  REQUIRE(::mkfifo((test / "user24_natural" / "5.npy").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(DvsGesture(tmp / "t", DvsGestureSubset::Test, quiet_dvs()),
                      Catch::Contains("5.npy") && Catch::Contains("FIFO"));
}

TEST_CASE("DvsGesture refuses NaN, infinite and out-of-range values in a float export",
          "[datasets][dvs]") {
  TempDir tmp;
  copy_folder(fixture("dvs_gesture/tonic"), tmp / "t");
  const fs::path trial = tmp / "t" / "ibmGestureTest" / "user24_natural";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    int column;
    double value;
    std::string message;
  };
  for (const Case& c : {Case{3, nan, "column 't' of event 1 is nan"},
                        Case{3, -inf, "column 't' of event 1 is -inf"},
                        Case{3, 1e17, "column 't' of event 1 is 1e+20"},  // in microseconds
                        Case{0, nan, "column 'x' of event 1 is nan"},
                        Case{1, 1e6, "column 'y' of event 1 is 1e+06: not a value an int16 can hold"},
                        Case{2, inf, "column 'p' of event 1 is inf"}}) {
    for (const auto dtype : {torch::kFloat64, torch::kFloat32}) {
      torch::Tensor events =
          torch::tensor({1.0, 1.0, 0.0, 5.0, 2.0, 2.0, 1.0, 6.0}, dtype).reshape({2, 4});
      events[1][c.column] = c.value;
      neurobench::save_npy(trial / "7.npy", events);
      const DvsGesture d(tmp / "t", DvsGestureSubset::Test, quiet_dvs());
      REQUIRE(d.file(2).filename() == "7.npy");
      INFO(c.message << ", " << dtype);
      CHECK_THROWS_AS(d.get({2}), InputError);
      CHECK_THROWS_WITH(d.get({2}),
                        Catch::Contains((trial / "7.npy").string()) && Catch::Contains(c.message));
    }
  }
}

TEST_CASE("DvsGesture refuses frame options beyond the memory budget, naming the option",
          "[datasets][dvs]") {
  DvsGestureOptions o = quiet_dvs();
  o.frames.n_time_bins = 1000000000;
  // 10^9 frames of 2 x 32 x 32 float32: refused when the data set is opened, before any sample.
  CHECK_THROWS_AS(DvsGesture(fixture("dvs_gesture/tonic"), DvsGestureSubset::Test, o), InputError);
  CHECK_THROWS_WITH(DvsGesture(fixture("dvs_gesture/tonic"), DvsGestureSubset::Test, o),
                    Catch::StartsWith("to_frame: frame option n_time_bins = 1000000000 makes 1e+09 "
                                      "frames of 2 x 32 x 32 float32: the array takes"));
  // A time window of one microsecond over a sample of seconds: found when the sample is framed.
  o = quiet_dvs();
  o.frames.time_window = 1.0;
  o.frames.max_bytes = 1 << 20;
  const DvsGesture d(fixture("dvs_gesture/tonic"), DvsGestureSubset::Test, o);
  CHECK_THROWS_AS(d.get({0}), InputError);
  CHECK_THROWS_WITH(d.get({0}), Catch::Contains("frame option time_window = 1 makes") &&
                                    Catch::Contains("max_array_bytes"));
}

TEST_CASE("neurobench run --dataset dvs-gesture:PATH --subset test runs NeuroBench's network",
          "[datasets][dvs][cli]") {
  TempDir tmp;
  const std::string release = fixture("dvs_gesture/release").string();
  const auto r = run_cli(
      "run --model " + q(fixture("../../examples/dvs_gesture/models/snn.pt")) +
      " --stepwise --dataset " + q("dvs-gesture:" + release) +
      " --subset test --dataset-options time_window=50000 --batch-size 2 --post ChooseMaxCount"
      " --metrics ClassificationAccuracy,Footprint -q --json " +
      q(tmp / "r.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto json = nlohmann::ordered_json::parse(read_file(tmp / "r.json"));
  CHECK(json["_run"]["dataset"]["kind"] == "dvs-gesture");
  CHECK(json["_run"]["dataset"]["options"]["subset"] == "test");
  CHECK(json["_run"]["dataset"]["options"]["time_window"] == 50000);
  CHECK(json["_run"]["samples"] == 5);
  CHECK(json["Footprint"] == 304828);
  const auto bad = run_cli("run --model " + q(fixture("../../examples/dvs_gesture/models/snn.pt")) +
                           " --stepwise --dataset " + q("dvs-gesture:" + release) +
                           " --subset validation --metrics Footprint -q");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown DVS Gesture subset 'validation'") != std::string::npos);
}

TEST_CASE("DvsGesture names a NUL byte in the trial list and a recording it may not read",
          "[datasets][dvs]") {
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);  // nobody may reach what is inside
  copy_folder(fixture("dvs_gesture/release"), tmp / "r");
  const fs::path list = tmp / "r" / "trials_to_test.txt";
  const std::string trials = read_file(list);
  write_dvs_file(list, trials.substr(0, trials.find('\n')) + std::string("\0junk\n", 6));
  CHECK_THROWS_WITH(DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()),
                    list.string() + " line 1: a NUL byte in the line");
  write_dvs_file(list, trials);
  const fs::path first = tmp / "r" / trials.substr(0, trials.find_first_of("\r\n"));
  fs::permissions(first, fs::perms::none);
  CHECK_THAT(neurobench::test::unprivileged_error(
                 [&] { DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs()); }),
             Catch::EndsWith(first.string() + ": cannot open the AEDAT file: Permission denied"));
  fs::permissions(tmp / "r", fs::perms::none);
  CHECK(neurobench::test::unprivileged_error([&] {
          DvsGesture(tmp / "r", DvsGestureSubset::Test, quiet_dvs());
        }) == (tmp / "r").string() + ": cannot list the DVS Gesture folder: Permission denied");
  fs::permissions(tmp / "r", fs::perms::owner_all);
}
