// SPDX-License-Identifier: Apache-2.0
#include "data/npz_shard.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <torch/script.h>
#include <zlib.h>

#include <neurobench/errors.hpp>

#include "data/file_digest.hpp"
#include "io/input_file.hpp"
#include "util/phase_clock.hpp"
#include "util/sha256.hpp"

namespace neurobench::detail {

NpzShardDataset::NpzShardDataset(std::filesystem::path path, NpzReadOptions options,
                                 const RowsOf& rows_of, bool first_part)
    : path_(std::move(path)), options_(options) {
  const std::uint64_t file_bytes = check_regular_input(path_, "data file");
  NpzArchive archive(path_, options_);
  std::optional<std::vector<int64_t>> shape;
  at::Tensor targets;
  if (archive.contains("data") && archive.contains("targets")) {
    targets = archive.read("targets");
    shape = archive.shape("data");
  }
  if (!shape || targets.dim() == 0 || shape->empty() || shape->front() != targets.size(0)) {
    // What from_npz() refuses (an array missing, the samples disagreeing), it says so; what it
    // takes, it reads whole.
    kept_ = std::make_unique<TensorDataset>(TensorDataset::from_npz(path_, options_));
    samples_ = end_ = kept_->size();
    sha256_ = kept_->source_sha256();
    return;  // from_npz() recorded the phases
  }
  samples_ = targets.size(0);
  std::tie(first_, end_) = rows_of(samples_);
  first_ = std::clamp<int64_t>(first_, 0, samples_);
  end_ = std::clamp<int64_t>(end_, first_, samples_);
  at::Tensor data;
  if (std::optional<NpzRowsPart> part = archive.read_rows_alone("data", first_, end_, first_part)) {
    // Only the rows' bytes were read: no digest of the whole file, which the rank has not read.
    data = std::move(part->rows);
    part_ = NpzPartRecord{first_, end_, part->begin, part->end, part->crc32, part->sha256};
    const at::Tensor t = targets.contiguous();
    identity_ = NpzFileIdentity{file_bytes, part->entry, part->entry_bytes, part->entry_crc32,
                                sha256_hex(t.data_ptr(), t.nbytes())};
    if (PhaseClock* phases = PhaseScope::current()) phases->lap("data_read_s");
  } else {
    // As from_npz(): the whole file's SHA-256 beside the reading.
    FileDigest digest(path_);
    data = archive.read_rows("data", first_, end_);
    sha256_ = digest.after_read();
  }
  kept_ = std::make_unique<TensorDataset>(std::move(data), targets.narrow(0, first_, end_ - first_),
                                          std::map<std::string, at::Tensor>{}, path_.string());
}

const TensorDataset& NpzShardDataset::whole() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!whole_) whole_ = std::make_unique<TensorDataset>(TensorDataset::from_npz(path_, options_));
  return *whole_;
}

int64_t NpzShardDataset::size() const { return samples_; }

Batch NpzShardDataset::get(const std::vector<int64_t>& indices) const {
  const bool kept = std::all_of(indices.begin(), indices.end(),
                                [&](int64_t i) { return i >= first_ && i < end_; });
  if (!kept) return whole().get(indices);
  std::vector<int64_t> local(indices);
  for (int64_t& i : local) i -= first_;
  return kept_->get(local);
}

Batch NpzShardDataset::slice(int64_t begin, int64_t end) const {
  if (begin >= first_ && end <= end_ && begin <= end) {
    return kept_->slice(begin - first_, end - first_);
  }
  return whole().slice(begin, end);
}

std::string NpzShardDataset::describe() const { return path_.string(); }

std::vector<NamedArray> NpzShardDataset::arrays() const { return kept_->arrays(); }

std::optional<std::string> NpzShardDataset::source_sha256() const { return sha256_; }

std::vector<std::filesystem::path> NpzShardDataset::input_files() const { return {path_}; }

void check_npz_parts(const std::string& file, const std::vector<NpzPartRecord>& parts,
                     std::uint32_t entry_crc32, std::uint64_t entry_bytes) {
  const auto list = [&] {
    std::string out;
    for (std::size_t r = 0; r < parts.size(); ++r) {
      out += fmt::format("{}rank {} [{}, {})", r == 0 ? "" : ", ", r, parts[r].begin, parts[r].end);
    }
    return out;
  };
  std::uint64_t at = 0;
  uLong crc = crc32_z(0, nullptr, 0);
  for (const NpzPartRecord& p : parts) {
    if (p.begin != at || p.end < p.begin) {
      throw InputError(fmt::format(
          "{}: array 'data': the ranks' parts of its entry do not follow one another ({}), so its "
          "CRC-32 cannot be checked; every rank must read the same file with the same batch size",
          file, list()));
    }
    crc = crc32_combine64(crc, p.crc32, static_cast<z_off64_t>(p.end - p.begin));
    at = p.end;
  }
  if (at != entry_bytes) {
    throw InputError(fmt::format(
        "{}: array 'data': the ranks' parts ({}) end at byte {} of its entry's {}, so its CRC-32 "
        "cannot be checked",
        file, list(), at, entry_bytes));
  }
  if (static_cast<std::uint32_t>(crc) != entry_crc32) {
    throw InputError(fmt::format(
        "{}: array 'data': corrupt entry: CRC-32 mismatch (directory states {:08x}, the ranks' "
        "parts make {:08x}): a rank's copy of the file differs from the others' or is damaged "
        "in the rows it read ({})",
        file, entry_crc32, static_cast<std::uint32_t>(crc), list()));
  }
}

}  // namespace neurobench::detail
