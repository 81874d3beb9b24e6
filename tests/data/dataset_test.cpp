// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/dataset.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/errors.hpp>

#include "data/npz_shard.hpp"
#include "data/unread_npz.hpp"
#include "file_digest.hpp"
#include "io/npy.hpp"
#include "io/npy_fixtures.hpp"
#include "io/zip_bytes.hpp"
#include "support.hpp"
#include "util/sha256.hpp"

using neurobench::DataLoader;
using neurobench::TensorDataset;

namespace {
std::shared_ptr<TensorDataset> numbers(int64_t n) {
  return std::make_shared<TensorDataset>(torch::arange(n, torch::kFloat).reshape({n, 1}),
                                         torch::arange(n, torch::kLong));
}
}  // namespace

TEST_CASE("a DataLoader batches in order with a partial last batch", "[data][loader]") {
  neurobench::LoaderOptions opts;
  opts.batch_size = 4;
  DataLoader loader(numbers(10), opts);
  REQUIRE(loader.num_batches() == 3);
  REQUIRE(loader.batch(0).targets.equal(torch::arange(0, 4, torch::kLong)));
  REQUIRE(loader.batch(2).size() == 2);
  REQUIRE(loader.batch(2).targets.equal(torch::arange(8, 10, torch::kLong)));
  REQUIRE_THROWS_AS(loader.batch(3), neurobench::UsageError);
}

TEST_CASE("shuffling is a permutation fixed by the seed", "[data][loader]") {
  neurobench::LoaderOptions opts;
  opts.batch_size = 3;
  opts.shuffle_seed = 42;
  DataLoader a(numbers(10), opts);
  DataLoader b(numbers(10), opts);
  std::vector<torch::Tensor> seen;
  for (std::size_t i = 0; i < a.num_batches(); ++i) {
    REQUIRE(a.batch(i).targets.equal(b.batch(i).targets));
    REQUIRE(a.batch(i).data.squeeze(1).to(torch::kLong).equal(a.batch(i).targets));
    seen.push_back(a.batch(i).targets);
  }
  const auto all = std::get<0>(torch::cat(seen).sort());
  REQUIRE(all.equal(torch::arange(10, torch::kLong)));
  REQUIRE_FALSE(torch::cat(seen).equal(torch::arange(10, torch::kLong)));
}

namespace {
// Batches of sizes 3, 1, 2 handed out whole, as neurobench_cpp's Python iterables are.
class GivenBatchesDataset final : public neurobench::Dataset {
 public:
  int64_t size() const override { return 10; }  // weights are taken of this, not of 6
  neurobench::Batch get(const std::vector<int64_t>& /*indices*/) const override {
    throw neurobench::UsageError("given batches: no random access");
  }
  std::string describe() const override { return "given batches"; }
  std::optional<std::size_t> given_batches() const override { return 3; }
  neurobench::Batch given_batch(std::size_t index) const override {
    const int64_t n = std::vector<int64_t>{3, 1, 2}.at(index);
    return {torch::full({n, 1}, static_cast<double>(index)), torch::zeros({n}), {}};
  }
};
}  // namespace

TEST_CASE("a data set that hands out its own batches keeps their sizes", "[data][loader]") {
  neurobench::LoaderOptions opts;
  opts.batch_size = 4;
  DataLoader loader(std::make_shared<GivenBatchesDataset>(), opts);
  REQUIRE(loader.num_batches() == 3);
  REQUIRE(loader.batch(0).size() == 3);
  REQUIRE(loader.batch(1).size() == 1);
  REQUIRE(loader.batch(2).data.equal(torch::full({2, 1}, 2.0)));
  opts.shuffle_seed = 1;
  REQUIRE_THROWS_WITH(DataLoader(std::make_shared<GivenBatchesDataset>(), opts),
                      Catch::Contains("given batches") && Catch::Contains("shuffle"));
  REQUIRE_THROWS_AS(numbers(3)->given_batch(0), neurobench::UsageError);
}

TEST_CASE("bad loader options and empty datasets are rejected", "[data][loader]") {
  neurobench::LoaderOptions opts;
  opts.batch_size = 0;
  REQUIRE_THROWS_AS(DataLoader(numbers(3), opts), neurobench::UsageError);
  REQUIRE_THROWS_WITH(DataLoader(numbers(3), opts), Catch::Contains("batch_size"));
  auto empty = std::make_shared<TensorDataset>(torch::zeros({0, 2}), torch::zeros({0}), std::map<std::string, torch::Tensor>{}, "empty.npz");
  REQUIRE_THROWS_AS(DataLoader(empty, {}), neurobench::InputError);
  REQUIRE_THROWS_WITH(DataLoader(empty, {}), Catch::Contains("empty.npz") && Catch::Contains("empty"));
}

TEST_CASE("data and targets must agree on the number of samples", "[data]") {
  REQUIRE_THROWS_AS(TensorDataset(torch::zeros({5, 2}), torch::zeros({4}), {}, "d.npz"),
                    neurobench::InputError);
  REQUIRE_THROWS_WITH(TensorDataset(torch::zeros({5, 2}), torch::zeros({4}), {}, "d.npz"),
                      Catch::Contains("d.npz") && Catch::Contains("5") && Catch::Contains("4"));
  REQUIRE_THROWS_AS(TensorDataset(torch::zeros({}), torch::zeros({1})), neurobench::InputError);
  REQUIRE_THROWS_WITH(TensorDataset(torch::zeros({2, 1}), torch::zeros({2}),
                                    {{"ids", torch::zeros({3})}}, "d.npz"),
                      Catch::Contains("ids"));
}

TEST_CASE("a dataset loads 'data' and 'targets' from an npz", "[data]") {
  const auto ds = TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz"));
  REQUIRE(ds.size() == 10);
  REQUIRE(ds.data().sizes() == torch::IntArrayRef({10, 4}));
  REQUIRE(ds.targets().scalar_type() == torch::kLong);
  const auto batch = ds.get({1, 3});
  REQUIRE(batch.data[0].equal(ds.data()[1]));
  REQUIRE(batch.data[1].equal(ds.data()[3]));
  REQUIRE_THROWS_AS(ds.get({10}), neurobench::UsageError);
}

TEST_CASE("an npz without 'targets' is an InputError naming the file and the array",
          "[data]") {
  const auto path = neurobench::test::fixture("core/no_targets.npz");
  REQUIRE_THROWS_AS(TensorDataset::from_npz(path), neurobench::InputError);
  REQUIRE_THROWS_WITH(TensorDataset::from_npz(path),
                      Catch::Contains("no_targets.npz") && Catch::Contains("'targets'") &&
                          Catch::Contains("found: data"));
}

TEST_CASE("from_npz reads only 'data' and 'targets': other arrays cost nothing", "[data]") {
  const neurobench::test::TempDir dir;
  const auto f32 = [](const std::string& shape, std::size_t bytes, char fill) {
    return neurobench::test::make_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }",
        std::string(bytes, fill));
  };
  // An object array (refused if read) and 16 MiB of zeros (over the limit if read).
  const std::string objects = neurobench::test::make_npy(
      "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "\x80\x02N.");
  neurobench::test::write_bytes(
      dir / "extra.npz",
      neurobench::test::make_zip({{"names.npy", objects},
                                  {"data.npy", f32("(2, 3)", 24, '\0')},
                                  {"zeros.npy", f32("(4194304,)", 16u << 20, '\0'), true},
                                  {"targets.npy", f32("(2,)", 8, '\0')}}));
  neurobench::NpzReadOptions options;
  options.max_array_bytes = 1u << 20;
  const auto ds = TensorDataset::from_npz(dir / "extra.npz", options);
  CHECK(ds.size() == 2);
  CHECK(ds.data().sizes() == torch::IntArrayRef({2, 3}));
  CHECK(ds.get({0, 1}).extras.empty());
  REQUIRE(ds.arrays().size() == 2);
  CHECK(ds.arrays()[0].first == "data");
  CHECK(ds.arrays()[1].first == "targets");
  // The same limit still guards the arrays that are read.
  options.max_array_bytes = 16;
  REQUIRE_THROWS_AS(TensorDataset::from_npz(dir / "extra.npz", options), neurobench::InputError);
  REQUIRE_THROWS_WITH(TensorDataset::from_npz(dir / "extra.npz", options),
                      Catch::Contains("array 'data'") && Catch::Contains("limit of 16 bytes"));
}

TEST_CASE("from_npz refuses an archive with two 'data' entries instead of using one", "[data]") {
  const neurobench::test::TempDir dir;
  const auto f32 = [](char fill) {
    return neurobench::test::make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                                      std::string(4, fill));
  };
  neurobench::test::write_bytes(
      dir / "twice.npz",
      neurobench::test::make_zip(
          {{"data.npy", f32('\1')}, {"targets.npy", f32('\0')}, {"data.npy", f32('\2')}}));
  REQUIRE_THROWS_AS(TensorDataset::from_npz(dir / "twice.npz"), neurobench::InputError);
  REQUIRE_THROWS_WITH(
      TensorDataset::from_npz(dir / "twice.npz"),
      Catch::Contains("twice.npz") && Catch::Contains("entries 1 'data.npy' and 3 'data.npy'"));
}

TEST_CASE("from_npz records the SHA-256 of the data file", "[data]") {
  const auto path = neurobench::test::fixture("core/classifier.npz");
  const auto ds = TensorDataset::from_npz(path);
  REQUIRE(ds.source_sha256().has_value());
  CHECK(*ds.source_sha256() == neurobench::test::sha256sum(path));
  CHECK_FALSE(numbers(3)->source_sha256().has_value());
}

TEST_CASE("an unread npz knows its size from its targets and reads its arrays when asked",
          "[data]") {
  const auto path = neurobench::test::fixture("core/classifier.npz");
  const neurobench::detail::UnreadNpzDataset unread(path, {});
  CHECK(unread.describe() == path.string());
  CHECK(unread.input_files() == std::vector<std::filesystem::path>{path});
  CHECK(unread.size() == 10);
  CHECK_FALSE(unread.read());  // the size came from 'targets' alone
  const auto whole = TensorDataset::from_npz(path);
  CHECK(unread.get({1, 3}).data.equal(whole.get({1, 3}).data));
  CHECK(unread.read());
  CHECK(unread.source_sha256() == whole.source_sha256());
  CHECK(unread.arrays().size() == 2);
  // What from_npz refuses, it refuses when read; a missing file at once.
  const neurobench::detail::UnreadNpzDataset no_targets(
      neurobench::test::fixture("core/no_targets.npz"), {});
  CHECK_THROWS_WITH(no_targets.size(), Catch::Contains("'targets'"));
  CHECK_THROWS_AS(neurobench::detail::UnreadNpzDataset(path.parent_path() / "missing.npz", {}),
                  neurobench::InputError);
}

TEST_CASE("a rank's shard of an npz keeps its rows and stands for the whole file", "[data]") {
  const auto path = neurobench::test::fixture("core/classifier.npz");
  const auto whole = TensorDataset::from_npz(path);
  REQUIRE(whole.size() == 10);
  std::int64_t asked = -1;
  const neurobench::detail::NpzShardDataset shard(
      path, {},
      [&](std::int64_t samples) {
        asked = samples;
        return std::make_pair(std::int64_t{4}, std::int64_t{7});
      },
      false);
  CHECK(asked == 10);
  CHECK(shard.size() == 10);
  CHECK(shard.rows() == std::make_pair(std::int64_t{4}, std::int64_t{7}));
  CHECK(shard.describe() == path.string());
  CHECK(shard.input_files() == std::vector<std::filesystem::path>{path});
  // The file stores `data` uncompressed: the rows' bytes alone were read, so there is no
  // digest of the whole file, but one of those bytes.
  CHECK_FALSE(shard.source_sha256());
  REQUIRE(shard.part());
  CHECK(shard.part()->first_row == 4);
  CHECK(shard.part()->end_row == 7);
  const at::Tensor rows = whole.slice(4, 7).data.contiguous();
  CHECK(shard.part()->end - shard.part()->begin == static_cast<std::uint64_t>(rows.nbytes()));
  CHECK(shard.part()->sha256 == neurobench::detail::sha256_hex(rows.data_ptr(), rows.nbytes()));
  CHECK(shard.identity().entry == "data.npy");
  CHECK(shard.identity().file_bytes == std::filesystem::file_size(path));
  CHECK(shard.identity().entry_bytes > static_cast<std::uint64_t>(rows.nbytes()));
  // The rows kept, as the whole file's; the scan sees those alone.
  CHECK(shard.slice(4, 7).data.equal(whole.slice(4, 7).data));
  CHECK(shard.slice(5, 6).targets.equal(whole.slice(5, 6).targets));
  CHECK(shard.get({6, 4}).data.equal(whole.get({6, 4}).data));
  REQUIRE(shard.arrays().size() == 2);
  CHECK(shard.arrays()[0].second.size(0) == 3);
  // Rows outside: the whole file, read then.
  CHECK(shard.slice(0, 10).data.equal(whole.slice(0, 10).data));
  CHECK(shard.get({9, 5}).targets.equal(whole.get({9, 5}).targets));
  // What from_npz refuses, the shard refuses alike.
  const auto rows_of = [](std::int64_t) {
    return std::make_pair(std::int64_t{0}, std::int64_t{1});
  };
  CHECK_THROWS_WITH(neurobench::detail::NpzShardDataset(
                        neurobench::test::fixture("core/no_targets.npz"), {}, rows_of, true),
                    Catch::Contains("'targets'"));
}

TEST_CASE("the ranks' parts of an npz's data are checked together by their CRC-32s", "[data]") {
  using neurobench::detail::NpzPartRecord;
  using neurobench::detail::NpzShardDataset;
  const auto path = neurobench::test::fixture("core/classifier.npz");
  // Three ranks' rows, [0, 4), [4, 7) and [7, 10): the first part holds the .npy header too.
  std::vector<NpzPartRecord> parts;
  std::uint32_t crc = 0;
  std::uint64_t bytes = 0;
  for (const auto& [first, end] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 4}, {4, 7}, {7, 10}}) {
    const NpzShardDataset shard(
        path, {}, [first = first, end = end](std::int64_t) { return std::make_pair(first, end); },
        first == 0);
    REQUIRE(shard.part());
    parts.push_back(*shard.part());
    crc = shard.identity().entry_crc32;
    bytes = shard.identity().entry_bytes;
  }
  CHECK(parts.front().begin == 0);
  CHECK(parts.back().end == bytes);
  CHECK_NOTHROW(neurobench::detail::check_npz_parts(path.string(), parts, crc, bytes));
  // Another rank's copy, damaged in its rows: the parts no longer make the entry's CRC-32.
  std::vector<NpzPartRecord> damaged = parts;
  damaged[1].crc32 ^= 1u;
  CHECK_THROWS_WITH(neurobench::detail::check_npz_parts(path.string(), damaged, crc, bytes),
                    Catch::Contains(path.string()) && Catch::Contains("CRC-32 mismatch") &&
                        Catch::Contains("rank 1 ["));
  // Parts that leave a gap, or stop short, cannot be checked: said so.
  std::vector<NpzPartRecord> gap = {parts[0], parts[2]};
  CHECK_THROWS_WITH(neurobench::detail::check_npz_parts(path.string(), gap, crc, bytes),
                    Catch::Contains("do not follow one another"));
  std::vector<NpzPartRecord> short_of = {parts[0], parts[1]};
  CHECK_THROWS_WITH(neurobench::detail::check_npz_parts(path.string(), short_of, crc, bytes),
                    Catch::Contains("cannot be checked"));
}

TEST_CASE("a rank's shard of a deflated npz reads the file through and digests it whole",
          "[data]") {
  const neurobench::test::TempDir dir;
  const auto stored = TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz"));
  std::vector<neurobench::test::ZipEntry> entries;
  for (const auto& [name, array] : stored.arrays()) {
    const auto blob = neurobench::detail::prepare_npy(array, name);
    std::string npy = blob.header;
    npy.append(static_cast<const char*>(blob.data.data_ptr()), blob.nbytes);
    entries.emplace_back(name + ".npy", npy, /*deflated=*/true);
  }
  const auto path = dir / "deflated.npz";
  neurobench::test::write_bytes(path, neurobench::test::make_zip(entries));
  const auto whole = TensorDataset::from_npz(path);
  const neurobench::detail::NpzShardDataset shard(
      path, {}, [](std::int64_t) { return std::make_pair(std::int64_t{2}, std::int64_t{5}); },
      false);
  CHECK_FALSE(shard.part());
  CHECK(shard.source_sha256() == whole.source_sha256());  // the whole file's digest
  CHECK(shard.slice(2, 5).data.equal(whole.slice(2, 5).data));
}
