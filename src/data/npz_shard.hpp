// SPDX-License-Identifier: Apache-2.0
#pragma once
// An `.npz` data file of which a rank of a sharded run keeps only the rows of its shard
// (docs/distributed.md, "What each rank reads"). Private to src/.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/io/npz.hpp>

namespace neurobench::detail {

/// A rank's part of the `data` entry: its rows and the bytes that held them, as the workload
/// exchange carries it (NpzRowsPart less the rows).
struct NpzPartRecord {
  int64_t first_row = 0;
  int64_t end_row = 0;
  std::uint64_t begin = 0;  ///< [begin, end) of the entry's bytes
  std::uint64_t end = 0;
  std::uint32_t crc32 = 0;
  std::string sha256;
};

/// What ranks reading one `.npz` agree on where none reads it whole: the file's size, the `data`
/// entry's name and size and the CRC-32 its zip directory states, and the SHA-256 of `targets`
/// (which every rank reads whole).
struct NpzFileIdentity {
  std::uint64_t file_bytes = 0;
  std::string entry;
  std::uint64_t entry_bytes = 0;
  std::uint32_t entry_crc32 = 0;
  std::string targets_sha256;
};

/// TensorDataset::from_npz() of `path`, of whose `data` only some rows are kept in memory:
/// those `rows_of(n)` returns, [first, end) of the file's n samples. size() is n: the data set
/// stands for the whole file. arrays() are the rows kept, which the run scans for NaN and
/// infinities. A batch outside the rows kept (the timing pass's, when a rank has no full batch
/// of its own) reads the whole file then.
///
/// Where `data` is stored uncompressed in C order (as np.savez writes it), only the rows' bytes
/// are read (NpzArchive::read_rows_alone; the `.npy` header too for the `first_part`, rank 0's):
/// part() describes them, and no SHA-256 of the whole file is taken (source_sha256() is
/// std::nullopt). The entry's CRC-32 is checked when the ranks' parts meet (check_npz_parts).
/// Otherwise the file is read through, checked and hashed as from_npz() does it, and
/// source_sha256() is the whole file's. Errors are from_npz()'s.
class NpzShardDataset final : public Dataset {
 public:
  using RowsOf = std::function<std::pair<int64_t, int64_t>(int64_t samples)>;
  NpzShardDataset(std::filesystem::path path, NpzReadOptions options, const RowsOf& rows_of,
                  bool first_part);

  [[nodiscard]] int64_t size() const override;
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The rows kept, [first, end).
  [[nodiscard]] std::pair<int64_t, int64_t> rows() const { return {first_, end_}; }

  /// The bytes of `data` read, when only the rows' were; std::nullopt when the file was read
  /// through.
  [[nodiscard]] const std::optional<NpzPartRecord>& part() const { return part_; }
  /// With part(): what the ranks must agree on, in place of the whole file's digest.
  [[nodiscard]] const NpzFileIdentity& identity() const { return identity_; }

 private:
  const TensorDataset& whole() const;

  std::filesystem::path path_;
  NpzReadOptions options_;
  int64_t samples_ = 0;
  int64_t first_ = 0;
  int64_t end_ = 0;
  std::unique_ptr<TensorDataset> kept_;
  std::optional<std::string> sha256_;
  std::optional<NpzPartRecord> part_;
  NpzFileIdentity identity_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<TensorDataset> whole_;
};

/// Checks the ranks' parts of one `data` entry (in rank order) together: they must tile its
/// `entry_bytes`, and their CRC-32s, combined in order, must be the `entry_crc32` its directory
/// states. Throws InputError naming `file` otherwise: a rank's copy of the file differs from
/// another's, or is damaged where only that rank read it.
void check_npz_parts(const std::string& file, const std::vector<NpzPartRecord>& parts,
                     std::uint32_t entry_crc32, std::uint64_t entry_bytes);

}  // namespace neurobench::detail
