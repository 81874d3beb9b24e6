// SPDX-License-Identifier: Apache-2.0
#include "model/model_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caffe2/serialize/read_adapter_interface.h>
#include <fmt/format.h>
#include <torch/csrc/jit/serialization/import.h>
#include <zip.h>

#include <neurobench/errors.hpp>

#include "model/module_tensors.hpp"
#include "model/nir_build.hpp"
#include "model/nir_graph.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::detail {
namespace {

std::string read_whole_file(const std::filesystem::path& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot open the model file: {}", path.string(),
                                 std::generic_category().message(errno)));
  }
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  std::string bytes;
  if (!ec) bytes.reserve(static_cast<std::size_t>(size));
  std::vector<char> piece(std::size_t{1} << 20);
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    bytes.append(piece.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error", path.string()));
  return bytes;
}

bool is_zip(const std::string& bytes) { return bytes.rfind("PK\x03\x04", 0) == 0; }

/// A record that holds a storage's bytes: `<archive>/data/<key>` or `<archive>/constants/<key>`.
bool is_tensor_record(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view folder = name.substr(0, slash);
  const std::size_t parent = folder.rfind('/');
  const std::string_view last =
      parent == std::string_view::npos ? folder : folder.substr(parent + 1);
  return last == "data" || last == "constants";
}

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};

/// Reads every entry of the archive in `bytes` to its end: libzip checks the CRC-32 there.
void check_entries(const std::string& bytes, const std::string& where) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  zip_t* opened = source != nullptr ? zip_open_from_source(source, ZIP_RDONLY, &error) : nullptr;
  if (opened == nullptr) {
    const std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    if (source != nullptr) zip_source_free(source);
    throw InputError(
        fmt::format("{}: not a TorchScript model: its zip container is truncated or corrupt ({})",
                    where, text));
  }
  zip_error_fini(&error);
  const std::unique_ptr<zip_t, ArchiveCloser> archive(opened);
  const zip_int64_t count = zip_get_num_entries(opened, 0);
  std::vector<char> scratch(std::size_t{1} << 16);
  for (zip_int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(opened, index, ZIP_FL_ENC_RAW, &stat) != 0) {
      throw InputError(
          fmt::format("{}: corrupt model file: entry {}: {}", where, i + 1, zip_strerror(opened)));
    }
    const std::string raw_name = stat.name != nullptr ? stat.name : "";
    const std::string name = printable(raw_name, 200);
    if (is_tensor_record(raw_name) && stat.comp_method != ZIP_CM_STORE) {
      throw InputError(fmt::format(
          "{}: entry '{}' is a tensor record stored compressed (method {}); torch.jit.save stores "
          "them uncompressed, and a compressed one cannot be checked against its tensors: save "
          "the model again with torch.jit.save",
          where, name, stat.comp_method));
    }
    zip_file_t* file = zip_fopen_index(opened, index, 0);
    if (file == nullptr) {
      throw InputError(
          fmt::format("{}: corrupt model file: entry '{}': {}", where, name, zip_strerror(opened)));
    }
    zip_int64_t got = 0;
    while ((got = zip_fread(file, scratch.data(), scratch.size())) > 0) {
    }
    if (got < 0) {
      zip_error_t* file_error = zip_file_get_error(file);
      const bool crc = zip_error_code_zip(file_error) == ZIP_ER_CRC;
      const std::string text = zip_error_strerror(file_error);
      zip_fclose(file);
      if (crc) {
        throw InputError(fmt::format(
            "{}: corrupt model file: entry '{}' fails its CRC-32 check (the archive states "
            "{:08x}; its {} bytes differ from what was written, or their length does)",
            where, name, stat.crc, stat.size));
      }
      throw InputError(fmt::format("{}: corrupt model file: entry '{}': {}", where, name, text));
    }
    zip_fclose(file);
  }
}

/// The file's bytes, served to LibTorch's zip reader from memory. LibTorch reads a stored record
/// straight into the buffer that becomes its storage; remembering where each read went tells
/// which record, and how many bytes of it, a storage holds.
class RecordingReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit RecordingReader(std::shared_ptr<const std::string> bytes) : bytes_(std::move(bytes)) {}

  size_t size() const override { return bytes_->size(); }

  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= bytes_->size()) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, bytes_->size() - pos));
    std::memcpy(buf, bytes_->data() + pos, n);
    reads_[buf] = RecordRead{pos, n};
    return n;
  }

  /// The read that filled the memory at `data`, if the memory still holds what it read: a
  /// buffer freed after a read (a pickle, a compressed chunk) may be reused for a tensor made
  /// at load time.
  std::optional<RecordRead> record_at(const void* data, std::uint64_t nbytes) const {
    const auto it = reads_.find(data);
    if (it == reads_.end()) return std::nullopt;
    const RecordRead& read = it->second;
    const auto compared = static_cast<std::size_t>(std::min(read.bytes, nbytes));
    if (std::memcmp(data, bytes_->data() + read.offset, compared) != 0) return std::nullopt;
    return read;
  }

 private:
  std::shared_ptr<const std::string> bytes_;
  mutable std::unordered_map<const void*, RecordRead> reads_;
};

/// A read-only stream over bytes in memory, for LibTorch's own format detection.
class MemoryBuffer final : public std::streambuf {
 public:
  explicit MemoryBuffer(const std::string& bytes) {
    char* begin = const_cast<char*>(bytes.data());
    setg(begin, begin, begin + bytes.size());
  }

 protected:
  pos_type seekoff(off_type off, std::ios_base::seekdir dir,
                   std::ios_base::openmode /*which*/) override {
    const off_type base = dir == std::ios_base::beg   ? 0
                          : dir == std::ios_base::cur ? gptr() - eback()
                                                      : egptr() - eback();
    const off_type target = base + off;
    if (target < 0 || target > egptr() - eback()) return pos_type(off_type(-1));
    setg(eback(), eback() + target, egptr());
    return pos_type(target);
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }
};

}  // namespace

CheckedModule load_checked_module(const std::filesystem::path& path, const c10::Device& device,
                                  const NirOptions& nir) {
  const std::string where = path.string();
  auto bytes = std::make_shared<const std::string>(read_whole_file(path));
  CheckedModule out;
  out.sha256 = sha256_hex(bytes->data(), bytes->size());
  const bool hdf5 = has_hdf5_signature(*bytes);
  if (path.extension() == ".nir" && !hdf5) {
    throw InputError(fmt::format("{}: not an HDF5 file, so not a NIR graph (a .nir file is HDF5, "
                                 "as nir.write makes it)",
                                 where));
  }
  if (hdf5) {
    NirBuilt built = build_nir_module(path, nir);
    out.module = std::move(built.module);
    if (!device.is_cpu()) out.module.to(device);
    out.from_nir = true;
    return out;
  }
  try {
    if (!is_zip(*bytes)) {
      // Not TorchScript's zip format: LibTorch may still know it (a flatbuffer mobile module)
      // or say what it is; there are no records to check.
      MemoryBuffer buffer(*bytes);
      std::istream in(&buffer);
      out.module = torch::jit::load(in, device);
      return out;
    }
    check_entries(*bytes, where);
    const auto reader = std::make_shared<RecordingReader>(bytes);
    out.module = torch::jit::load(reader, c10::Device(c10::kCPU));
    check_tensor_storage(
        reachable_tensors(out.module),
        [&reader](const void* data, std::uint64_t nbytes) {
          return reader->record_at(data, nbytes);
        },
        where);
    if (!device.is_cpu()) {
      // The bytes checked above, onto the device: their tensors lie within their records.
      MemoryBuffer buffer(*bytes);
      std::istream in(&buffer);
      out.module = torch::jit::load(in, device);
    }
  } catch (const c10::Error& e) {
    throw InputError(
        fmt::format("{}: not a TorchScript model ({})", where, e.what_without_backtrace()));
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not a TorchScript model ({})", where, e.what()));
  }
  return out;
}

}  // namespace neurobench::detail
