// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/idx.hpp>

#include <torch/script.h>
#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/byte_order.hpp"
#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

struct DtypeInfo {
  std::uint8_t code;
  torch::ScalarType type;
  std::size_t size;
  const char* name;
};

constexpr DtypeInfo kDtypes[] = {
    {0x08, torch::kUInt8, 1, "unsigned byte"}, {0x09, torch::kInt8, 1, "signed byte"},
    {0x0B, torch::kInt16, 2, "short"},         {0x0C, torch::kInt32, 4, "int"},
    {0x0D, torch::kFloat32, 4, "float"},       {0x0E, torch::kFloat64, 8, "double"},
};

const DtypeInfo* find_dtype(std::uint8_t code) {
  for (const DtypeInfo& d : kDtypes) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

// The whole file, decompressed when it is gzip. zlib's gz* functions read plain files as they
// are ("transparent" mode), so one path serves both.
std::vector<std::uint8_t> read_all(const std::filesystem::path& path) {
  // Checked before opening: a FIFO would block the open, a device never end.
  (void)detail::check_regular_input(path, "file");
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  gzbuffer(file, 1U << 17);
  std::vector<std::uint8_t> bytes;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (;;) {
    const std::size_t old = bytes.size();
    bytes.resize(old + kChunk);
    const int got = gzread(file, bytes.data() + old, static_cast<unsigned>(kChunk));
    if (got < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose_r(file);
      throw InputError(fmt::format("{}: corrupt gzip data: {}", path.string(), message));
    }
    bytes.resize(old + static_cast<std::size_t>(got));
    if (got == 0) break;
  }
  // A gzip stream that stops early reads as a short file; zlib reports it only here.
  int code = 0;
  const std::string message = gzerror(file, &code);
  const int closed = gzclose_r(file);
  if (code != Z_OK || closed != Z_OK) {
    throw InputError(fmt::format("{}: truncated or corrupt gzip data: {}", path.string(),
                                 code != Z_OK ? message : zError(closed)));
  }
  return bytes;
}

std::uint32_t big_endian_u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

/// What the header of an IDX file says: the element type, the dimensions, where the data start.
struct IdxHeader {
  const DtypeInfo* dtype = nullptr;
  std::vector<std::int64_t> dims;
  std::uint64_t count = 1;  ///< Elements, when not too_large.
  bool too_large = false;   ///< More elements than any file could hold.
  std::size_t size = 0;     ///< Bytes of the magic number and the dimensions.
};

IdxHeader read_idx_header(const std::vector<std::uint8_t>& bytes, const std::string& where) {
  if (bytes.size() < 4) {
    throw InputError(
        fmt::format("{}: truncated: {} bytes, too short for an IDX magic number (4 bytes)", where,
                    bytes.size()));
  }
  const std::uint32_t magic = big_endian_u32(bytes.data());
  if (bytes[0] != 0 || bytes[1] != 0) {
    throw InputError(fmt::format(
        "{}: not an IDX file: bad magic number 0x{:08X} (expected 0x0000TTNN: 2 zero bytes, "
        "dtype, number of dimensions)",
        where, magic));
  }
  IdxHeader header;
  header.dtype = find_dtype(bytes[2]);
  if (header.dtype == nullptr) {
    throw InputError(fmt::format(
        "{}: bad magic number 0x{:08X}: unknown IDX dtype 0x{:02X} (known: 0x08 unsigned byte, "
        "0x09 signed byte, 0x0B short, 0x0C int, 0x0D float, 0x0E double)",
        where, magic, bytes[2]));
  }
  const std::size_t ndims = bytes[3];
  if (ndims == 0) {
    throw InputError(fmt::format("{}: bad magic number 0x{:08X}: no dimensions", where, magic));
  }
  header.size = 4 + 4 * ndims;
  if (bytes.size() < header.size) {
    throw InputError(
        fmt::format("{}: truncated: the header needs {} bytes for {} dimensions, the file holds {}",
                    where, header.size, ndims, bytes.size()));
  }
  // Every dimension is below 2^32, so the element count fits in 64 bits until it passes
  // 2^62 / element size; beyond that no file could hold the data anyway.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::uint32_t d = big_endian_u32(bytes.data() + 4 + 4 * i);
    header.dims.push_back(static_cast<std::int64_t>(d));
    if (d != 0 && header.count > kLimit / d) header.too_large = true;
    if (!header.too_large) header.count *= d;
  }
  if (header.count > kLimit / header.dtype->size) header.too_large = true;
  return header;
}

/// Throws unless the file holds exactly the data bytes its header promises.
void check_data_size(const IdxHeader& header, std::uint64_t available, const std::string& where) {
  const std::string elements =
      fmt::format("{} {} elements", detail::numpy_shape_string(header.dims), header.dtype->name);
  if (header.too_large) {
    throw InputError(fmt::format(
        "{}: truncated: the header promises {}, far more than the {} data bytes the file holds",
        where, elements, available));
  }
  const std::uint64_t expected = header.count * header.dtype->size;
  if (available < expected) {
    throw InputError(fmt::format(
        "{}: truncated: the header promises {} ({} bytes), the file holds {} data bytes", where,
        elements, expected, available));
  }
  if (available > expected) {
    throw InputError(fmt::format(
        "{}: {} bytes after the data: the header promises {} ({} bytes), the file holds {} data "
        "bytes",
        where, available - expected, elements, expected, available));
  }
}

}  // namespace

torch::Tensor load_idx(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = read_all(path);
  const std::string where = path.string();
  const IdxHeader header = read_idx_header(bytes, where);
  check_data_size(header, bytes.size() - header.size, where);
  torch::Tensor out = torch::empty(header.dims, torch::TensorOptions().dtype(header.dtype->type));
  const std::uint64_t nbytes = header.count * header.dtype->size;
  if (nbytes > 0) {
    std::memcpy(out.data_ptr(), bytes.data() + header.size, static_cast<std::size_t>(nbytes));
    if (detail::kLittleEndianHost) {
      detail::swap_byte_order(out.data_ptr(), static_cast<std::size_t>(header.count),
                              header.dtype->size);
    }
  }
  return out;
}

}  // namespace neurobench
