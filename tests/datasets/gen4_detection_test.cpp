// SPDX-License-Identifier: Apache-2.0
// Prophesee's Gen4 detection histograms in NeuroBench's sequential batches: the schedule, the
// batch layout on a small release written here (HDF5 through HDF5's C library, boxes as
// structured .npy), and every way the files can be wrong. tests/datasets/check_gen4_detection.py
// compares whole batches with gen4_reference.py, our NumPy statement of metavision_ml.
#include <neurobench/datasets/gen4_detection.hpp>

#include <sys/stat.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <hdf5.h>
#include <catch2/catch.hpp>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/sequential.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>

#include "datasets/gen4_detection_boxes.hpp"
#include "io/npy_fixtures.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::SequentialSchedule;
using neurobench::UsageError;
using neurobench::datasets::Gen4Detection;
using neurobench::datasets::Gen4DetectionOptions;
using neurobench::datasets::Gen4Subset;
using neurobench::test::TempDir;

namespace {

// One histogram file: `data` (bins, channels, height, width) of uint8 (or float32) values with
// integer and string attributes, written as h5py writes them.
struct Gen4H5 {
  std::vector<hsize_t> dims = {6, 2, 4, 8};
  float value = 1;  // every bin's value
  bool as_float = false;
  std::vector<std::pair<std::string, long long>> numbers = {
      {"delta_t", 50000}, {"event_input_height", 8}, {"event_input_width", 16}};
  std::vector<std::pair<std::string, std::string>> texts = {{"mode", "delta_t"}};
};

void write_gen4_h5(const fs::path& path, const Gen4H5& spec) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space =
      H5Screate_simple(static_cast<int>(spec.dims.size()), spec.dims.data(), nullptr);
  hsize_t n = 1;
  for (const hsize_t d : spec.dims) n *= d;
  const hid_t type = spec.as_float ? H5T_IEEE_F32LE : H5T_STD_U8LE;
  const hid_t data = H5Dcreate2(file, "data", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (spec.as_float) {
    const std::vector<float> values(n, spec.value);
    H5Dwrite(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  } else {
    const std::vector<unsigned char> values(n, static_cast<unsigned char>(spec.value));
    H5Dwrite(data, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  }
  const hid_t scalar = H5Screate(H5S_SCALAR);
  for (const auto& [name, value] : spec.numbers) {
    const hid_t a = H5Acreate2(data, name.c_str(), H5T_STD_I64LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, &value);
    H5Aclose(a);
  }
  for (const auto& [name, text] : spec.texts) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    const hid_t a = H5Acreate2(data, name.c_str(), t, scalar, H5P_DEFAULT, H5P_DEFAULT);
    const char* p = text.c_str();
    H5Awrite(a, t, &p);
    H5Aclose(a);
    H5Tclose(t);
  }
  H5Sclose(scalar);
  H5Dclose(data);
  H5Sclose(space);
  H5Fclose(file);
}

// One box as the Gen4 release stores it.
struct Gen4BoxRow {
  std::uint64_t t;
  float x, y, w, h;
  std::uint8_t class_id;
};

// A `_bbox.npy` of the release's dtype (t <u8, x y w h <f4, class_id u1, class_confidence <f4,
// track_id <u4); `fields` replaces the dtype's field list (to leave one out).
void write_gen4_boxes(const fs::path& path, const std::vector<Gen4BoxRow>& rows,
                      bool without_class = false) {
  std::string data;
  for (const Gen4BoxRow& r : rows) {
    const auto put = [&](const void* p, std::size_t n) {
      data.append(static_cast<const char*>(p), n);
    };
    put(&r.t, 8);
    put(&r.x, 4);
    put(&r.y, 4);
    put(&r.w, 4);
    put(&r.h, 4);
    if (!without_class) put(&r.class_id, 1);
    const float confidence = 1;
    const std::uint32_t track = 7;
    put(&confidence, 4);
    put(&track, 4);
  }
  const std::string descr =
      std::string("[('t', '<u8'), ('x', '<f4'), ('y', '<f4'), ('w', '<f4'), ") + "('h', '<f4'), " +
      (without_class ? "" : "('class_id', 'u1'), ") +
      "('class_confidence', '<f4'), ('track_id', '<u4')]";
  neurobench::test::write_bytes(
      path, neurobench::test::make_npy("{'descr': " + descr +
                                           ", 'fortran_order': False, "
                                           "'shape': (" +
                                           std::to_string(rows.size()) + ",), }",
                                       data));
}

// Options for the small files: 2 x 4 x 8 histograms of a 8 x 16 sensor, 3 bins a batch.
Gen4DetectionOptions small_gen4_options(int64_t batch_size = 2) {
  Gen4DetectionOptions o;
  o.batch_size = batch_size;
  o.num_tbins = 3;
  o.height = 4;
  o.width = 8;
  o.min_box_diag = 2;
  o.quiet = true;
  return o;
}

// A release in `folder`: test recordings a (6 bins: 2 batches), b (3 bins), c (4 bins: 1
// batch, the last bin never read); val/only.h5. In slots of 2: a then c, and b.
void write_small_gen4_release(const fs::path& folder) {
  fs::create_directories(folder / "test");
  fs::create_directories(folder / "val");
  Gen4H5 six;
  write_gen4_h5(folder / "test" / "a.h5", six);
  Gen4H5 three = six;
  three.dims[0] = 3;
  three.value = 2;
  write_gen4_h5(folder / "test" / "b.h5", three);
  Gen4H5 four = six;
  four.dims[0] = 4;
  write_gen4_h5(folder / "test" / "c.h5", four);
  write_gen4_h5(folder / "val" / "only.h5", three);
  // a: in bin 1 of batch 0 ((50, 100] ms) a car, a truck (dropped) and a pedestrian partly
  // left of the frame; in batch 1 (from 150 ms) a two wheeler in bin 2 ((250, 300] ms).
  write_gen4_boxes(folder / "test" / "a_bbox.npy", {{60000, 4, 2, 8, 4, 2},
                                                    {60000, 2, 2, 8, 4, 3},
                                                    {60000, -4, 0, 10, 6, 0},
                                                    {290000, 0, 0, 12, 8, 1}});
  write_gen4_boxes(folder / "test" / "b_bbox.npy", {});
  write_gen4_boxes(folder / "test" / "c_bbox.npy", {{10000, 0, 0, 6, 6, 2}});
  write_gen4_boxes(folder / "val" / "only_bbox.npy", {});
}

std::vector<float> gen4_rows(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

}  // namespace

TEST_CASE("the schedule streams recordings through slots as metavision's Scheduler",
          "[datasets][gen4]") {
  // Batches of 12 x 50 ms; recordings of 2, 1, 3, 0.5 and 1 batches in 2 slots: slot 0 reads
  // 0, 2, 4 (6 batches), slot 1 reads 1 then 3, which is shorter than a batch and never read.
  const int64_t b = 600000;
  const SequentialSchedule s({2 * b, b, 3 * b, b / 2, b}, 50000, 12, 2);
  REQUIRE(s.num_batches() == 6);
  REQUIRE(s.batch_size() == 2);
  const std::vector<std::pair<int64_t, int64_t>> slot0 = {{0, 0}, {0, b},     {2, 0},
                                                          {2, b}, {2, 2 * b}, {4, 0}};
  for (int64_t k = 0; k < 6; ++k) {
    const auto at = s.at(k, 0);
    CHECK(at.recording == slot0[static_cast<std::size_t>(k)].first);
    CHECK(at.start_us == slot0[static_cast<std::size_t>(k)].second);
    CHECK(at.starts_recording == (at.start_us == 0));
  }
  CHECK(s.at(0, 1).recording == 1);
  CHECK(s.at(0, 1).starts_recording);
  for (int64_t k = 1; k < 6; ++k) CHECK(s.at(k, 1).padding());
  REQUIRE_THROWS_AS(s.at(6, 0), UsageError);
  REQUIRE_THROWS_AS(s.at(0, 2), UsageError);
  // A duration at most 1000 us short of a batch rounds up; fewer recordings, fewer slots.
  const SequentialSchedule up({1150}, 100, 12, 4);
  CHECK(up.num_batches() == 1);
  CHECK(up.batch_size() == 1);
  REQUIRE_THROWS_WITH(SequentialSchedule({1}, 0, 12, 4), Catch::Contains("delta_t"));
}

TEST_CASE("numpy_argsort orders ties as NumPy 1.24's argsort", "[datasets][gen4]") {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 40; ++i) v.push_back((i * 7) % 5);
  // np.argsort([(i * 7) % 5 for i in range(40)]) with NumPy 1.24.2
  const std::vector<int64_t> expected = {0,  20, 15, 30, 10, 25, 35, 5,  23, 8,  33, 28, 13, 3,
                                         38, 18, 6,  21, 1,  36, 16, 26, 11, 31, 34, 29, 19, 14,
                                         9,  4,  24, 39, 27, 22, 17, 12, 32, 7,  2,  37};
  CHECK(neurobench::detail::numpy_argsort(v) == expected);
  std::vector<int64_t> w(20, 3);
  w.insert(w.end(), 5, 1);
  const std::vector<int64_t> ties = {24, 22, 21, 20, 23, 19, 18, 17, 16, 15, 14, 13, 0,
                                     10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  11, 12};
  CHECK(neurobench::detail::numpy_argsort(w) == ties);
}

TEST_CASE("gen4 batches hold data, boxes and metadata as NeuroBench's loader gives them",
          "[datasets][gen4]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  const Gen4Detection test(tmp.path(), Gen4Subset::Test, small_gen4_options());
  REQUIRE(test.num_recordings() == 3);
  REQUIRE(test.num_batches() == 3);
  REQUIRE(test.size() == 6);
  REQUIRE(test.fixed_batch_size() == 2);
  CHECK(test.recording_name(1) == (tmp.path() / "test" / "b.h5").string());
  CHECK(test.boxes_file(2) == tmp.path() / "test" / "c_bbox.npy");
  CHECK_THAT(test.describe(),
             Catch::Contains("'test' subset") && Catch::Contains("3 recordings, 3 batches of 2"));

  const neurobench::Batch first = test.batch(0);  // slots: a from 0, b from 0
  REQUIRE(first.data.sizes() == torch::IntArrayRef({2, 3, 2, 4, 8}));
  REQUIRE(first.data.scalar_type() == torch::kFloat32);
  CHECK(first.data[0].eq(1).all().item<bool>());
  CHECK(first.data[1].eq(2).all().item<bool>());
  // Bin 1, slot 0: the pedestrian (clipped to x 0-6, halved) then the car; the truck dropped.
  CHECK(gen4_rows(first.targets) == std::vector<float>{1, 0, 0, 0, 3, 3, 1,  //
                                                       1, 0, 2, 1, 6, 3, 3});
  CHECK(first.extras.at("recording").equal(torch::tensor({0, 1}, torch::kInt64)));
  CHECK(first.extras.at("padding").equal(torch::tensor({false, false})));
  CHECK(first.extras.at("tbin_start_us").equal(torch::tensor({0, 0}, torch::kInt64)));
  CHECK(first.extras.at("delta_t_us").equal(torch::tensor({50000, 50000}, torch::kInt64)));
  CHECK(first.extras.at("starts_recording").equal(torch::tensor({true, true})));
  CHECK(first.extras.at("frame_is_labeled")
            .equal(torch::tensor({false, false, true, false, false, false}).view({3, 2})));

  const neurobench::Batch second = test.batch(1);  // a from 150 ms; b is done
  CHECK(second.extras.at("recording").equal(torch::tensor({0, -1}, torch::kInt64)));
  CHECK(second.extras.at("padding").equal(torch::tensor({false, true})));
  CHECK(second.extras.at("tbin_start_us").equal(torch::tensor({150000, 0}, torch::kInt64)));
  CHECK(second.extras.at("starts_recording").equal(torch::tensor({false, false})));
  // The two wheeler: 12 x 8 sensor pixels, 6 x 4 here.
  CHECK(gen4_rows(second.targets) == std::vector<float>{2, 0, 0, 0, 6, 4, 2});
  const neurobench::Batch third = test.batch(2);  // c from 0: its box at 10 ms in bin 0
  CHECK(third.extras.at("recording").equal(torch::tensor({2, -1}, torch::kInt64)));
  CHECK(third.extras.at("starts_recording").equal(torch::tensor({true, false})));
  CHECK(gen4_rows(third.targets) == std::vector<float>{0, 0, 0, 0, 3, 3, 3});
  REQUIRE_THROWS_AS(test.batch(3), UsageError);
}

TEST_CASE("a slot whose recordings are done is padding", "[datasets][gen4]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  const Gen4Detection test(tmp.path(), Gen4Subset::Test, small_gen4_options(3));
  REQUIRE(test.num_batches() == 2);
  const neurobench::Batch last = test.batch(1);
  CHECK(last.extras.at("padding").equal(torch::tensor({false, true, true})));
  CHECK(last.extras.at("recording").equal(torch::tensor({0, -1, -1}, torch::kInt64)));
  CHECK(last.extras.at("delta_t_us").equal(torch::tensor({50000, 0, 0}, torch::kInt64)));
  CHECK(last.data[1].eq(0).all().item<bool>());
}

TEST_CASE("a DataLoader takes a sequential data set's batches whole and in order",
          "[datasets][gen4]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  auto test = std::make_shared<Gen4Detection>(tmp.path(), Gen4Subset::Test, small_gen4_options());
  neurobench::LoaderOptions options;  // batch_size 64
  const neurobench::DataLoader loader(test, options);
  CHECK(loader.options().batch_size == 2);
  CHECK(loader.num_batches() == 3);
  CHECK(
      loader.batch(1).extras.at("tbin_start_us").equal(test->batch(1).extras.at("tbin_start_us")));
  options.shuffle_seed = 3;
  REQUIRE_THROWS_AS(neurobench::DataLoader(test, options), UsageError);
  REQUIRE_THROWS_WITH(neurobench::DataLoader(test, options), Catch::Contains("cannot be shuffled"));
  REQUIRE_THROWS_WITH(test->get({1, 2}), Catch::Contains("whole batches only"));
  REQUIRE_THROWS_AS(test->slice(0, 1), UsageError);
  CHECK(test->get({2, 3}).extras.at("recording").equal(torch::tensor({0, -1}, torch::kInt64)));
}

TEST_CASE("the gen4-detection kind opens a subset with NeuroBench's options",
          "[datasets][gen4][kinds]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  neurobench::DatasetSpec spec{"gen4-detection",
                               tmp.path(),
                               {{"subset", "validation"},
                                {"num_tbins", 3},
                                {"height", 4},
                                {"width", 8},
                                {"min_box_diag", 2}}};
  neurobench::DatasetOpenOptions open;
  open.quiet = true;
  const auto val = neurobench::dataset_kinds().open(spec, open);
  CHECK(val->fixed_batch_size() == 1);  // one recording: one slot
  CHECK(val->size() == 1);
  CHECK(val->source_sha256().value().size() == 64);
  spec.options["subset"] = "training set";
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec), Catch::Contains("train, val, test"));
  spec.options["subset"] = "test";
  spec.options["batch_size"] = 0;
  REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec), Catch::Contains("batch_size"));
  CHECK(neurobench::datasets::gen4_class_lookup() == std::vector<int64_t>{1, 2, 3, -1, -1, -1, -1});
}

TEST_CASE("the test recordings NeuroBench skips are skipped, others need their boxes",
          "[datasets][gen4]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  const std::string skipped = "moorea_2019-06-14_000_549500000_609500000.h5";
  write_gen4_h5(tmp.path() / "test" / skipped, Gen4H5{});
  const Gen4Detection test(tmp.path(), Gen4Subset::Test, small_gen4_options());
  CHECK(test.num_recordings() == 3);
  CHECK(test.skipped() == std::vector<std::string>{skipped});
  write_gen4_h5(tmp.path() / "val" / skipped, Gen4H5{});
  REQUIRE_THROWS_AS(Gen4Detection(tmp.path(), Gen4Subset::Val, small_gen4_options()), InputError);
  REQUIRE_THROWS_WITH(Gen4Detection(tmp.path(), Gen4Subset::Val, small_gen4_options()),
                      Catch::Contains((tmp.path() / "val" / skipped).string()) &&
                          Catch::Contains("has no boxes file moorea_2019-06-14_000_549500000_"
                                          "609500000_bbox.npy"));
}

TEST_CASE("a release that is not one is an InputError naming the file at fault",
          "[datasets][gen4]") {
  TempDir tmp;
  write_small_gen4_release(tmp.path());
  const auto opens = [&] {
    return Gen4Detection(tmp.path(), Gen4Subset::Test, small_gen4_options());
  };
  const fs::path a = tmp.path() / "test" / "a.h5";
  SECTION("no subset folder") {
    REQUIRE_THROWS_WITH(Gen4Detection(tmp.path(), Gen4Subset::Train, small_gen4_options()),
                        Catch::Contains("no folder 'train'"));
    REQUIRE_THROWS_WITH(Gen4Detection(tmp.path() / "nothing", Gen4Subset::Test),
                        Catch::Contains("not a Gen4 release"));
  }
  SECTION("no recordings") {
    fs::create_directories(tmp.path() / "train");
    REQUIRE_THROWS_WITH(Gen4Detection(tmp.path(), Gen4Subset::Train, small_gen4_options()),
                        Catch::Contains("no recordings (NAME.h5 files)"));
  }
  SECTION("a histogram of the wrong shape") {
    Gen4H5 wide;
    wide.dims = {6, 2, 4, 9};
    write_gen4_h5(a, wide);
    REQUIRE_THROWS_AS(opens(), InputError);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains(a.string()) &&
                                     Catch::Contains("has shape (6, 2, 4, 9); expected (bins, 2, "
                                                     "4, 8)"));
  }
  SECTION("histograms of another type than the first recording's") {
    Gen4H5 floats;
    floats.as_float = true;
    write_gen4_h5(tmp.path() / "test" / "b.h5", floats);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("b.h5: histograms of type float32, but") &&
                                     Catch::Contains("holds uint8"));
  }
  SECTION("bins of another delta_t, or not of equal duration") {
    Gen4H5 slow;
    slow.numbers[0].second = 20000;
    write_gen4_h5(a, slow);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("bins of 20000 us (attribute 'delta_t'); "
                                                 "expected 50000"));
    Gen4H5 counted;
    counted.texts = {{"mode", "n_events"}};
    write_gen4_h5(a, counted);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("mode 'n_events'"));
  }
  SECTION("a sensor that is not the histograms times a power of two") {
    Gen4H5 odd;
    odd.numbers = {{"delta_t", 50000}, {"event_input_height", 12}, {"event_input_width", 24}};
    write_gen4_h5(a, odd);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("a 24 x 12 sensor is not the 8 x 4 "
                                                 "histograms times a power of two"));
  }
  SECTION("a file that is not HDF5") {
    neurobench::test::write_bytes(a, "not hdf5");
    REQUIRE_THROWS_WITH(opens(),
                        Catch::Contains(a.string()) && Catch::Contains("not an HDF5 file"));
  }
  SECTION("boxes out of the frame, of an unknown class, or without a field") {
    const fs::path boxes = tmp.path() / "test" / "c_bbox.npy";
    write_gen4_boxes(boxes, {{10000, 16, 0, 6, 6, 2}});
    REQUIRE_THROWS_WITH(opens(), Catch::Contains(boxes.string()) &&
                                     Catch::Contains("box 0 (t 10000, x 16") &&
                                     Catch::Contains("wholly outside the 16 x 8 frame"));
    write_gen4_boxes(boxes, {{10000, 0, 0, 6, 6, 2}, {20000, 0, 0, 6, 6, 7}});
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("box 1") &&
                                     Catch::Contains("class_id 7 is not one of the 7 classes"));
    write_gen4_boxes(boxes, {{std::uint64_t{1} << 63U, 0, 0, 6, 6, 2}});
    REQUIRE_THROWS_WITH(opens(), Catch::Contains(boxes.string()) &&
                                     Catch::Contains("field 't': item 0 is 9223372036854775808, "
                                                     "beyond int64"));
    write_gen4_boxes(boxes, {{10000, 0, 0, -6, 6, 2}});
    REQUIRE_THROWS_WITH(opens(), Catch::Contains("a negative width or height"));
    write_gen4_boxes(boxes, {{10000, 0, 0, 6, 6, 2}}, true);
    REQUIRE_THROWS_WITH(opens(),
                        Catch::Contains(boxes.string()) && Catch::Contains("no field 'class_id'"));
    neurobench::test::write_bytes(boxes, "not npy");
    REQUIRE_THROWS_WITH(opens(), Catch::Contains(boxes.string()));
  }
  SECTION("a NAME.h5 or its boxes that is not a regular file, refused rather than left out") {
    const fs::path d = tmp.path() / "test" / "d.h5";
    const fs::path loop = tmp.path() / "test" / "loop.h5";
    for (const auto& [make, says] : std::vector<std::pair<std::function<void()>, std::string>>{
             {[&] { fs::create_symlink(tmp.path() / "nothing.h5", d); }, "(a symbolic link to"},
             {[&] { REQUIRE(::mkfifo(d.c_str(), 0600) == 0); }, "is a FIFO (named pipe)"},
             {[&] { fs::create_directory(d); }, "is a directory"},
             {[&] { fs::create_symlink("/dev/zero", d); }, "is a character device"},
             {[&] {
                fs::create_symlink(loop, d);
                fs::create_symlink(d, loop);
              },
              "symbolic link loop"}}) {
      fs::remove(d);
      fs::remove(loop);
      make();
      INFO(says);
      REQUIRE_THROWS_AS(opens(), InputError);
      REQUIRE_THROWS_WITH(opens(), Catch::Contains(d.string()) && Catch::Contains(says));
    }
    fs::remove(d);
    fs::remove(loop);
    const fs::path boxes = tmp.path() / "test" / "c_bbox.npy";
    fs::remove(boxes);
    REQUIRE(::mkfifo(boxes.c_str(), 0600) == 0);
    REQUIRE_THROWS_WITH(opens(), Catch::Contains(boxes.string()) &&
                                     Catch::Contains("the boxes file is a FIFO (named pipe)"));
  }
}
