// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/npz.hpp>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>
#include <zip.h>
#include <zlib.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "io/npy.hpp"
#include "io/npy_header.hpp"
#include "io/zip_end_record.hpp"
#include "io/zip_handles.hpp"
#include "util/array_budget.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

using detail::Archive;
using detail::ByteReader;
using detail::kNpyMagic;
using detail::libzip_text;
using detail::printable;
using detail::ZipError;

// ---------------------------------------------------------------------------------------------
// Reading, through libzip.


/// Throws unless the file starts like a zip archive, saying what it looks like instead.
void check_zip_magic(const std::uint8_t* start, std::uint64_t count, const std::string& where) {
  if (detail::starts_with_bytes(start, count, "PK\x03\x04") ||
      detail::starts_with_bytes(start, count, std::string_view("PK\x05\x06", 4))) {
    return;
  }
  std::string found = count == 0 ? "an empty file" : "other bytes";
  if (count >= sizeof kNpyMagic && std::memcmp(start, kNpyMagic, sizeof kNpyMagic) == 0) {
    found = "a .npy file (read it with load_npy)";
  }
  throw InputError(fmt::format(
      "{}: not a NumPy .npz file (expected a zip archive starting with \"PK\", found {})", where,
      found));
}

/// Opens the archive read-only; with `flags` ZIP_CHECKCONS, libzip also checks every local header
/// against the central directory. Returns null with `error` set when libzip refuses the file.
Archive open_archive(const std::filesystem::path& path, int flags, ZipError& error) {
  zip_source_t* source = zip_source_file_create(path.c_str(), 0, -1, error.get());
  if (source == nullptr) return nullptr;
  zip_t* archive = zip_open_from_source(source, ZIP_RDONLY | flags, error.get());
  if (archive == nullptr) zip_source_free(source);
  return Archive(archive);
}

/// The InputError for a central directory that libzip refused.
[[noreturn]] void throw_open_error(const std::filesystem::path& path, const std::string& where,
                                   ZipError& error) {
  const int code = zip_error_code_zip(error.get());
  if (code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS || code == ZIP_ER_MULTIDISK) {
    // libzip calls an end record whose two entry counts differ a split archive (ZIP64) or no
    // archive at all (classic): say what the record states instead.
    if (const auto record = detail::read_zip_end_record(path)) {
      if (const auto problem = detail::end_record_problem(*record)) {
        throw InputError(fmt::format("{}: corrupt zip archive: {}", where, *problem));
      }
    }
  }
  switch (code) {
    case ZIP_ER_NOZIP:  // no end record, or the central directory it leads to does not parse
      throw InputError(fmt::format(
          "{}: truncated or corrupt zip archive: no end-of-central-directory record found, or a "
          "bad central directory signature",
          where));
    case ZIP_ER_INCONS:
      throw InputError(fmt::format(
          "{}: corrupt zip archive: the end-of-central-directory record and the central "
          "directory do not agree (the directory runs past its end record, holds another number "
          "of entries, or a record overruns it)",
          where));
    case ZIP_ER_MULTIDISK:
      throw InputError(fmt::format("{}: multi-disk (split) zip archives are not supported", where));
    case ZIP_ER_MEMORY:
      throw InputError(fmt::format("{}: out of memory reading the zip central directory", where));
    case ZIP_ER_OPEN:
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
    case ZIP_ER_TELL:
      throw InputError(fmt::format("{}: cannot read: {}", where, libzip_text(error.get())));
    default:
      throw InputError(fmt::format("{}: corrupt zip archive: {}", where, libzip_text(error.get())));
  }
}

std::string method_name(std::int32_t method) {
  switch (method) {
    case 1:
      return " (shrink)";
    case 6:
      return " (implode)";
    case 9:
      return " (deflate64)";
    case 12:
      return " (bzip2)";
    case 14:
      return " (LZMA)";
    case 93:
      return " (zstd)";
    case 95:
      return " (xz)";
    case 99:
      return " (AES encryption)";
    default:
      return "";
  }
}

/// Throws unless the directory record of an entry describes data this reader can take.
///
/// Checked before libzip reads anything: it would try methods it knows (bzip2, xz) and trust sizes
/// that only reading the whole entry would refute.
void check_entry(const zip_stat_t& stat, std::uint64_t file_size, const std::string& where) {
  if (stat.encryption_method != ZIP_EM_NONE) {
    throw InputError(fmt::format("{} is encrypted; encrypted archives are not supported", where));
  }
  if (stat.comp_method != ZIP_CM_STORE && stat.comp_method != ZIP_CM_DEFLATE) {
    throw InputError(fmt::format(
        "{} uses compression method {}{}; only 0 (stored) and 8 (deflate) are supported", where,
        stat.comp_method, method_name(stat.comp_method)));
  }
  if (stat.comp_size > file_size) {
    throw InputError(fmt::format(
        "{}: truncated or corrupt zip archive: its data ({} bytes) run past the end of the file "
        "({} bytes)",
        where, stat.comp_size, file_size));
  }
  if (stat.comp_method == ZIP_CM_STORE && stat.comp_size != stat.size) {
    throw InputError(
        fmt::format("{}: corrupt entry: stored with {} bytes but states an uncompressed size of {}",
                    where, stat.comp_size, stat.size));
  }
  // DEFLATE cannot expand more than about 1032:1; a larger claim would only waste memory.
  if (stat.comp_method == ZIP_CM_DEFLATE && stat.size / 1032 > stat.comp_size + 1) {
    throw InputError(
        fmt::format("{}: corrupt entry: {} compressed bytes cannot inflate to the {} bytes stated",
                    where, stat.comp_size, stat.size));
  }
}

/// The bytes of one archive entry, stored or inflated by libzip, read in order; libzip checks the
/// CRC-32 when the last byte has been read (finish()).
class EntryReader final : public ByteReader {
 public:
  EntryReader(zip_t* archive, std::uint64_t index, const zip_stat_t& stat, std::string where)
      : size_(stat.size),
        crc_(stat.crc),
        stored_(stat.comp_method == ZIP_CM_STORE),  // check_entry() refused encryption
        where_(std::move(where)) {
    file_ = zip_fopen_index(archive, index, 0);
    if (file_ == nullptr) fail(zip_get_error(archive));
  }
  EntryReader(const EntryReader&) = delete;
  EntryReader& operator=(const EntryReader&) = delete;
  ~EntryReader() override { zip_fclose(file_); }

  void read(void* destination, std::uint64_t count) override {
    assert(count <= size_ - position_);
    failed_ = true;  // until this read completes
    auto* out = static_cast<std::uint8_t*>(destination);
    while (count > 0) {
      const zip_int64_t got = zip_fread(file_, out, count);
      if (got < 0) fail(zip_file_get_error(file_));
      if (got == 0) {
        throw InputError(fmt::format(
            "{}: corrupt entry: inflates to {} bytes, but its directory record states {}", where_,
            position_, size_));
      }
      out += got;
      count -= static_cast<std::uint64_t>(got);
      position_ += static_cast<std::uint64_t>(got);
    }
    failed_ = false;
  }

  /// Moves past the next `count` bytes of a stored entry (zip_fseek); libzip no longer checks
  /// the CRC-32 then. A deflated entry cannot seek: false.
  bool seek_forward(std::uint64_t count) override {
    if (!stored_) return false;
    assert(count <= size_ - position_);
    if (zip_fseek(file_, static_cast<zip_int64_t>(position_ + count), SEEK_SET) != 0) {
      fail(zip_file_get_error(file_));
    }
    position_ += count;
    return true;
  }

  /// The bytes read or passed so far.
  [[nodiscard]] std::uint64_t position() const { return position_; }

  /// True when a read threw: the entry is unusable and its error already reported.
  [[nodiscard]] bool failed() const { return failed_; }

  /// Reads what the reader left, then checks that the entry ends at its stated size; libzip
  /// checks the CRC-32 on reaching the end.
  void finish() {
    std::vector<std::uint8_t> scratch(
        static_cast<std::size_t>(std::min<std::uint64_t>(size_ - position_, kPiece)));
    while (position_ < size_) read(scratch.data(), std::min(size_ - position_, kPiece));
    std::uint8_t spare = 0;
    const zip_int64_t got = zip_fread(file_, &spare, 1);
    if (got < 0) fail(zip_file_get_error(file_));
    if (got > 0) {
      throw InputError(fmt::format(
          "{}: corrupt entry: inflates to more than the {} bytes its directory record states",
          where_, size_));
    }
  }

 private:
  static constexpr std::uint64_t kPiece = 1u << 20;

  [[noreturn]] void fail(zip_error_t* error) const {
    switch (zip_error_code_zip(error)) {
      case ZIP_ER_CRC:  // raised when the data end: early, if the stream ends before its size
        if (position_ < size_) {
          throw InputError(fmt::format(
              "{}: corrupt entry: inflates to {} bytes, but its directory record states {}", where_,
              position_, size_));
        }
        throw InputError(fmt::format(
            "{}: corrupt entry: CRC-32 mismatch (directory states {:08x}, the data differ)", where_,
            crc_));
      case ZIP_ER_EOF:
        throw InputError(fmt::format(
            "{}: truncated or corrupt zip archive: its data run past the end of the file", where_));
      case ZIP_ER_ZLIB:
      case ZIP_ER_COMPRESSED_DATA:
        throw InputError(
            fmt::format("{}: corrupt entry: deflate data error: {}", where_, libzip_text(error)));
      case ZIP_ER_READ:
      case ZIP_ER_SEEK:
      case ZIP_ER_TELL:
        throw InputError(fmt::format("{}: cannot read: {}", where_, libzip_text(error)));
      default:
        throw InputError(fmt::format("{}: corrupt entry: {}", where_, libzip_text(error)));
    }
  }

  zip_file_t* file_ = nullptr;
  std::uint64_t size_;
  std::uint32_t crc_;
  bool stored_;
  std::string where_;
  std::uint64_t position_ = 0;
  bool failed_ = false;
};

/// The bytes of an entry read through an EntryReader, with the CRC-32 and SHA-256 of those read
/// since the part began: at the entry's first byte, or (`rows_alone`) where the reader seeks to
/// the rows, once. Each piece is hashed as it arrives, while it is in the cache.
class PartReader final : public ByteReader {
 public:
  PartReader(EntryReader& entry, bool from_start) : entry_(entry), from_start_(from_start) {}

  void read(void* destination, std::uint64_t count) override {
    auto* out = static_cast<std::uint8_t*>(destination);
    while (count > 0) {
      const std::uint64_t piece = std::min<std::uint64_t>(count, kPiece);
      entry_.read(out, piece);
      crc_ = crc32_z(crc_, out, static_cast<z_size_t>(piece));
      sha_->update(out, static_cast<std::size_t>(piece));
      out += piece;
      count -= piece;
    }
  }

  /// A first part reads through to its rows; any other begins where the rows do.
  bool seek_forward(std::uint64_t count) override {
    seek_asked_ = true;
    if (from_start_ || !entry_.seek_forward(count)) return false;
    begin_ = entry_.position();
    crc_ = crc32_z(0, nullptr, 0);
    sha_ = std::make_unique<detail::Sha256>();
    return true;
  }

  /// True when the array's rows were read alone (C order); a Fortran-order array is read whole.
  [[nodiscard]] bool seek_asked() const { return seek_asked_; }
  [[nodiscard]] std::uint64_t begin() const { return begin_; }
  [[nodiscard]] std::uint32_t crc32() const { return static_cast<std::uint32_t>(crc_); }
  [[nodiscard]] std::string sha256() { return sha_->hex(); }

 private:
  static constexpr std::uint64_t kPiece = 4u << 20;
  EntryReader& entry_;
  bool from_start_;
  bool seek_asked_ = false;
  std::uint64_t begin_ = 0;
  uLong crc_ = crc32_z(0, nullptr, 0);
  std::unique_ptr<detail::Sha256> sha_ = std::make_unique<detail::Sha256>();
};

/// The directory record of entry `index`. Names are taken as stored (NumPy writes UTF-8),
/// without libzip's CP437 guess.
zip_stat_t stat_entry(zip_t* archive, std::uint64_t index, const std::string& archive_name) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, ZIP_FL_ENC_RAW, &stat) != 0) {
    throw InputError(fmt::format("{}: corrupt zip archive: entry {}: {}", archive_name, index + 1,
                                 zip_strerror(archive)));
  }
  return stat;
}

std::string entry_name(const zip_stat_t& stat) { return stat.name != nullptr ? stat.name : ""; }

/// The array name of an entry: its name without the `.npy` suffix.
std::string array_name(std::string name) {
  constexpr std::string_view kSuffix = ".npy";
  if (name.size() >= kSuffix.size() &&
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    name.resize(name.size() - kSuffix.size());
  }
  return name;
}

std::string entry_where(const std::string& archive_name, const zip_stat_t& stat) {
  return fmt::format("{}: entry '{}'", archive_name, printable(entry_name(stat), 200));
}

/// Reads entry `index` to its end without keeping it, so that damage inside it (a CRC-32
/// mismatch, a stream of another length) is reported naming it. Entries above `limit` are left
/// alone: inflating them would cost time for no better message.
void verify_entry(zip_t* archive, std::uint64_t index, std::uint64_t file_size, std::uint64_t limit,
                  const std::string& archive_name) {
  const zip_stat_t stat = stat_entry(archive, index, archive_name);
  const std::string where = entry_where(archive_name, stat);
  check_entry(stat, file_size, where);
  if (stat.size > limit) return;
  EntryReader entry(archive, index, stat, where);
  entry.finish();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// NpzArchive

void NpzReadOptions::validate() const {
  if (max_array_bytes == 0) {
    throw UsageError("max_array_bytes must be at least 1 (bytes of the largest array to read)");
  }
}

struct NpzArchive::Impl {
  std::filesystem::path path;
  std::string where;
  NpzReadOptions options;
  std::uint64_t file_size = 0;
  Archive archive;
  std::vector<std::string> names;      // array names, in archive order
  std::vector<std::uint64_t> indices;  // the entry of each name
  std::unordered_map<std::string, std::size_t> by_name;

  /// Lists the entries' array names; two entries for one name make the archive ambiguous.
  void list_entries() {
    const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
    for (zip_int64_t i = 0; i < count; ++i) {
      const auto index = static_cast<std::uint64_t>(i);
      const zip_stat_t stat = stat_entry(archive.get(), index, where);
      std::string name = array_name(entry_name(stat));
      const auto [it, added] = by_name.emplace(name, names.size());
      if (!added) {
        const std::uint64_t first = indices[it->second];
        const std::string first_name = entry_name(stat_entry(archive.get(), first, where));
        throw InputError(fmt::format(
            "{}: entries {} '{}' and {} '{}' both hold an array named '{}'; an .npz names each "
            "array once (which one NumPy would read depends on the reader)",
            where, first + 1, printable(first_name, 200), index + 1,
            printable(entry_name(stat), 200), printable(name, 200)));
      }
      names.push_back(std::move(name));
      indices.push_back(index);
    }
  }

  std::string known_names() const {
    if (names.empty()) return "none";
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + printable(name, 200);
    return out;
  }

  /// The entry holding array `name`; InputError listing the arrays there are when none does.
  std::uint64_t index_of(const std::string& name) const {
    const auto found = by_name.find(name);
    if (found == by_name.end()) {
      throw InputError(fmt::format("{}: no array named '{}' (found: {})", where,
                                   printable(name, 200), known_names()));
    }
    return indices[found->second];
  }

  std::string array_where(const std::string& name) const {
    return fmt::format("{}: array '{}'", where, printable(name, 200));
  }

  /// The entry holding array `name`: its index, its directory record, checked (check_entry),
  /// and the words that name it in messages.
  struct Entry {
    std::uint64_t index;
    zip_stat_t stat;
    std::string where;
  };
  Entry entry_of(const std::string& name) const {
    const std::uint64_t index = index_of(name);
    const zip_stat_t stat = stat_entry(archive.get(), index, where);
    std::string entry_at = entry_where(where, stat);
    check_entry(stat, file_size, entry_at);
    return {index, stat, std::move(entry_at)};
  }

  /// Array `name`, or rows of it (NpzArchive::read, read_rows).
  torch::Tensor read(const std::string& name, const std::optional<detail::NpyRows>& rows);
};

NpzArchive::NpzArchive(const std::filesystem::path& path, NpzReadOptions options)
    : impl_(std::make_unique<Impl>()) {
  // Before anything opens it: a FIFO would block, a device never end.
  (void)detail::check_regular_input(path, "file");
  options.validate();
  Impl& s = *impl_;
  s.path = path;
  s.where = path.string();
  s.options = options;
  {
    detail::FileReader file(path);
    s.file_size = file.size();
    std::uint8_t start[sizeof kNpyMagic] = {};
    const std::uint64_t count = std::min<std::uint64_t>(s.file_size, sizeof start);
    file.read(start, count);
    check_zip_magic(start, count, s.where);
  }
  ZipError checked_error;
  if ((s.archive = open_archive(path, ZIP_CHECKCONS, checked_error))) {
    s.list_entries();
    return;
  }
  // libzip's consistency check failed, or the directory is unreadable. Read the entries without
  // the check, so that damage inside one is reported naming it.
  ZipError error;
  s.archive = open_archive(path, 0, error);
  if (!s.archive) throw_open_error(path, s.where, error);
  s.list_entries();
  const zip_int64_t count = zip_get_num_entries(s.archive.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    verify_entry(s.archive.get(), static_cast<std::uint64_t>(i), s.file_size,
                 s.options.max_array_bytes, s.where);
  }
  throw InputError(fmt::format(
      "{}: corrupt zip archive: a bad local header signature, a local header that disagrees with "
      "its central directory record, or stray bytes around the central directory (libzip: {})",
      s.where, libzip_text(checked_error.get())));
}

NpzArchive::~NpzArchive() = default;
NpzArchive::NpzArchive(NpzArchive&&) noexcept = default;
NpzArchive& NpzArchive::operator=(NpzArchive&&) noexcept = default;

const std::vector<std::string>& NpzArchive::names() const { return impl_->names; }

bool NpzArchive::contains(const std::string& name) const { return impl_->by_name.count(name) != 0; }

const std::filesystem::path& NpzArchive::path() const { return impl_->path; }

torch::Tensor NpzArchive::read(const std::string& name) { return impl_->read(name, std::nullopt); }

torch::Tensor NpzArchive::read_rows(const std::string& name, std::int64_t first, std::int64_t end) {
  return impl_->read(name, detail::NpyRows{first, end});
}

std::optional<NpzRowsPart> NpzArchive::read_rows_alone(const std::string& name, std::int64_t first,
                                                       std::int64_t end, bool from_start) {
  Impl& s = *impl_;
  const auto [index, stat, where] = s.entry_of(name);
  if (stat.comp_method != ZIP_CM_STORE) return std::nullopt;
  const std::string array_where = s.array_where(name);
  detail::check_array_bytes(stat.size, s.options.max_array_bytes, detail::available_memory(),
                            array_where);
  EntryReader entry(s.archive.get(), index, stat, where);
  PartReader part(entry, from_start);
  NpzRowsPart out;
  try {
    out.rows = detail::read_npy(part, stat.size, array_where, detail::NpyTrailingBytes::Refuse,
                                detail::NpyRows{first, end, /*rows_alone=*/true});
  } catch (const InputError&) {
    // As read(): a header that does not parse is most likely damage. Before a seek, libzip
    // still checks the CRC-32, so finish() reports the damage if the entry shows it.
    if (!entry.failed() && !part.seek_asked()) entry.finish();
    throw;
  }
  if (!part.seek_asked()) {
    // A Fortran-order array, read whole: its rows are not one run of bytes. Nothing was passed
    // over, so libzip still checks the CRC-32: finish() reads the rest and reports damage.
    entry.finish();
    return std::nullopt;
  }
  out.entry = entry_name(stat);
  out.begin = part.begin();
  out.end = entry.position();
  out.crc32 = part.crc32();
  out.sha256 = part.sha256();
  out.entry_crc32 = stat.crc;
  out.entry_bytes = stat.size;
  return out;
}

std::vector<std::int64_t> NpzArchive::shape(const std::string& name) {
  Impl& s = *impl_;
  const auto [index, stat, where] = s.entry_of(name);
  EntryReader entry(s.archive.get(), index, stat, where);
  return detail::read_npy_shape(entry, stat.size, s.array_where(name),
                                detail::NpyTrailingBytes::Refuse);
}

torch::Tensor NpzArchive::Impl::read(const std::string& name,
                                     const std::optional<detail::NpyRows>& rows) {
  Impl& s = *this;
  const auto [index, stat, where] = s.entry_of(name);
  const std::string array_where = s.array_where(name);
  // Before anything is inflated or allocated: the size the entry states is all read_npy may
  // allocate, since the header must describe exactly that many bytes.
  detail::check_array_bytes(stat.size, s.options.max_array_bytes, detail::available_memory(),
                            array_where);

  EntryReader entry(s.archive.get(), index, stat, where);
  torch::Tensor array;
  try {
    array = detail::read_npy(entry, stat.size, array_where, detail::NpyTrailingBytes::Refuse, rows);
  } catch (const InputError&) {
    // A header that does not parse is most likely damage: report that if the entry shows it.
    if (!entry.failed()) entry.finish();
    throw;
  }
  entry.finish();
  return array;
}

std::vector<NamedArray> load_npz(const std::filesystem::path& path, NpzReadOptions options) {
  NpzArchive archive(path, options);
  std::vector<NamedArray> arrays;
  arrays.reserve(archive.names().size());
  for (const std::string& name : archive.names()) arrays.emplace_back(name, archive.read(name));
  return arrays;
}

}  // namespace neurobench
