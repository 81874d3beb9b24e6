// SPDX-License-Identifier: Apache-2.0
#include "io/npy.hpp"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/output_file.hpp>

#include "io/byte_order.hpp"
#include "io/input_file.hpp"
#include "io/npy_header.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace detail {
namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

template <class T>
std::string to_text(const T& value) {
  std::ostringstream stream;
  stream << value;
  return stream.str();
}

void check_data_size(const NpyHeader& header, std::uint64_t found, const std::string& where) {
  if (found < header.nbytes) {
    throw InputError(fmt::format(
        "{}: truncated data: shape {} of dtype '{}' needs {} bytes, found {}", where,
        numpy_shape_string(header.shape), printable(header.descr, 40), header.nbytes, found));
  }
}

/// Lets the kernel back a large, not yet touched allocation with transparent huge pages.
///
/// Filling fresh memory otherwise costs one page fault per 4 KiB, which dominates reading a large
/// array (NumPy gives the same hint for its arrays). Only a hint: failure changes nothing.
void advise_huge_pages([[maybe_unused]] void* data, [[maybe_unused]] std::uint64_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  if (size < 2 * kHugePage) return;
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (address + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (address + size) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

/// An uninitialised C-contiguous CPU tensor.
torch::Tensor allocate_tensor(const std::vector<std::int64_t>& shape, torch::ScalarType type,
                              const std::string& where) {
  try {
    torch::Tensor tensor = torch::empty(shape, torch::TensorOptions().dtype(type));
    if (tensor.numel() > 0) advise_huge_pages(tensor.data_ptr(), tensor.nbytes());
    return tensor;
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: cannot allocate a tensor of shape {}: {}", where,
                                 numpy_shape_string(shape), e.what_without_backtrace()));
  }
}

/// An uninitialised tensor laid out as the file stores the data (reversed shape if Fortran order).
torch::Tensor allocate_for(const NpyHeader& header, const std::string& where) {
  std::vector<std::int64_t> stored_shape = header.shape;
  if (header.fortran_order) std::reverse(stored_shape.begin(), stored_shape.end());
  return allocate_tensor(stored_shape, header.dtype.scalar_type, where);
}

/// Turns the raw bytes copied into `stored` into the tensor the array describes.
torch::Tensor finish_tensor(torch::Tensor stored, const NpyHeader& header,
                            const std::string& where) {
  if (header.numel == 0) {
    return header.fortran_order ? allocate_tensor(header.shape, header.dtype.scalar_type, where)
                                : stored;
  }
  void* data = stored.data_ptr();
  if (header.dtype.byteswap) {
    swap_byte_order(data, static_cast<std::size_t>(header.numel), header.dtype.itemsize);
  }
  if (header.dtype.scalar_type == torch::kBool) {
    // A LibTorch bool must be 0 or 1; NumPy treats any other byte as True as well.
    auto* bytes = static_cast<std::uint8_t*>(data);
    for (std::uint64_t i = 0; i < header.numel; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
  }
  if (!header.fortran_order || header.shape.size() < 2) return stored;
  torch::Tensor result = allocate_tensor(header.shape, header.dtype.scalar_type, where);
  try {
    std::vector<std::int64_t> reversed(header.shape.size());
    for (std::size_t i = 0; i < reversed.size(); ++i) {
      reversed[i] = static_cast<std::int64_t>(reversed.size() - 1 - i);
    }
    result.copy_(stored.permute(reversed));
    return result;
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: cannot convert the Fortran-order array to C order: {}", where,
                                 e.what_without_backtrace()));
  }
}

}  // namespace

FileReader::FileReader(const std::filesystem::path& path) : where_(path.string()) {
  // Checked before opening: a FIFO would block the open, a device never end.
  size_ = check_regular_input(path, "file");
  errno = 0;
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(fmt::format("{}: cannot open: {}", where_, errno_text(errno)));
}

void FileReader::read(void* destination, std::uint64_t count) {
  if (count == 0) return;
  if (count > size_ - offset_) {
    throw InputError(fmt::format("{}: read of {} bytes at offset {} past the end of the file",
                                 where_, count, offset_));
  }
  in_.read(static_cast<char*>(destination), static_cast<std::streamsize>(count));
  const auto got = static_cast<std::uint64_t>(in_.gcount());
  if (!in_ || got != count) {
    throw InputError(fmt::format("{}: read error at offset {}: expected {} bytes, got {}", where_,
                                 offset_, count, got));
  }
  offset_ += count;
}

namespace {

// The next `count` bytes of `source`, read and dropped, a MiB at a time.
void skip_bytes(ByteReader& source, std::uint64_t count) {
  std::vector<std::uint8_t> scratch(
      static_cast<std::size_t>(std::min<std::uint64_t>(count, std::uint64_t{1} << 20)));
  while (count > 0) {
    const std::uint64_t piece = std::min<std::uint64_t>(count, scratch.size());
    source.read(scratch.data(), piece);
    count -= piece;
  }
}

// Rows that the array of `shape` has.
void check_rows(const std::vector<std::int64_t>& shape, const NpyRows& rows,
                const std::string& where) {
  if (shape.empty()) {
    throw InputError(fmt::format("{}: rows [{}, {}) asked for, but the array is a scalar", where,
                                 rows.first, rows.end));
  }
  if (rows.first < 0 || rows.first > rows.end || rows.end > shape.front()) {
    throw InputError(fmt::format("{}: rows [{}, {}) asked for, but the array has {} (shape {})",
                                 where, rows.first, rows.end, shape.front(),
                                 numpy_shape_string(shape)));
  }
}

// The rows of an array in C order read from `source`, positioned at its data: those before them
// read through (or passed, NpyRows::rows_alone), theirs into a new tensor, those after them read
// through (or left, rows_alone).
torch::Tensor read_rows(ByteReader& source, const NpyHeader& header, const NpyRows& rows,
                        const std::string& where) {
  const std::int64_t n = header.shape.front();
  const std::uint64_t row_bytes = n == 0 ? 0 : header.nbytes / static_cast<std::uint64_t>(n);
  NpyHeader part = header;
  part.shape.front() = rows.end - rows.first;
  part.numel = n == 0 ? 0
                      : header.numel / static_cast<std::uint64_t>(n) *
                            static_cast<std::uint64_t>(rows.end - rows.first);
  part.nbytes = row_bytes * static_cast<std::uint64_t>(rows.end - rows.first);
  const std::uint64_t before = row_bytes * static_cast<std::uint64_t>(rows.first);
  if (!rows.rows_alone || !source.seek_forward(before)) skip_bytes(source, before);
  torch::Tensor stored = allocate_for(part, where);
  source.read(part.nbytes > 0 ? stored.data_ptr() : nullptr, part.nbytes);
  if (!rows.rows_alone) skip_bytes(source, row_bytes * static_cast<std::uint64_t>(n - rows.end));
  return finish_tensor(std::move(stored), part, where);
}

// The header of the .npy array in the next `size` bytes of `source`, checked against `size`;
// `source` is left at its data.
NpyHeader read_header(ByteReader& source, std::uint64_t size, const std::string& where,
                      NpyTrailingBytes trailing) {
  std::uint8_t prefix[kNpyPrefixSize] = {};
  const std::uint64_t prefix_size = std::min<std::uint64_t>(size, kNpyPrefixSize);
  source.read(prefix, prefix_size);
  const NpyLayout layout = read_npy_prefix(prefix, size, where);
  // read_npy_prefix checked data_offset <= size, so this allocation is bounded by the file.
  std::string preamble(reinterpret_cast<const char*>(prefix),
                       static_cast<std::size_t>(std::min(prefix_size, layout.data_offset)));
  preamble.resize(static_cast<std::size_t>(layout.data_offset));
  if (layout.data_offset > prefix_size) {
    source.read(preamble.data() + prefix_size, layout.data_offset - prefix_size);
  }
  const NpyHeader header = parse_npy_header(
      std::string_view(preamble).substr(layout.header_offset, layout.header_size), where);
  check_data_size(header, size - layout.data_offset, where);
  if (trailing == NpyTrailingBytes::Refuse && size - layout.data_offset > header.nbytes) {
    throw InputError(fmt::format(
        "{}: the entry holds {} bytes, but its .npy header ({} bytes) and the data it describes "
        "(shape {} of dtype '{}': {} bytes) make {}; an .npz entry holds one array and nothing "
        "after it",
        where, size, layout.data_offset, numpy_shape_string(header.shape),
        printable(header.descr, 40), header.nbytes, layout.data_offset + header.nbytes));
  }

  // A header shorter than 2 bytes never parses, so the data start after the prefix read above.
  assert(layout.data_offset >= prefix_size);
  return header;
}

}  // namespace

torch::Tensor read_npy(ByteReader& source, std::uint64_t size, const std::string& where,
                       NpyTrailingBytes trailing, const std::optional<NpyRows>& rows) {
  const NpyHeader header = read_header(source, size, where, trailing);
  if (rows) check_rows(header.shape, *rows, where);
  // Rows of a C-order array are contiguous; a Fortran-order one is read whole, then cut.
  if (rows && !header.fortran_order) return read_rows(source, header, *rows, where);
  torch::Tensor stored = allocate_for(header, where);
  source.read(header.nbytes > 0 ? stored.data_ptr() : nullptr, header.nbytes);
  torch::Tensor array = finish_tensor(std::move(stored), header, where);
  if (!rows) return array;
  return array.narrow(0, rows->first, rows->end - rows->first).clone();
}

std::vector<std::int64_t> read_npy_shape(ByteReader& source, std::uint64_t size,
                                         const std::string& where, NpyTrailingBytes trailing) {
  return read_header(source, size, where, trailing).shape;
}

NpyBlob prepare_npy(const torch::Tensor& array, const std::string& where) {
  if (!array.defined()) {
    throw InputError(fmt::format("{}: cannot save an undefined tensor", where));
  }
  if (array.layout() != torch::kStrided) {
    throw InputError(fmt::format("{}: cannot save a {} tensor; only dense tensors are supported",
                                 where, to_text(array.layout())));
  }
  if (!array.device().is_cpu()) {
    throw InputError(fmt::format("{}: the tensor is on {}; move it to the CPU first", where,
                                 array.device().str()));
  }
  const std::optional<std::string_view> descr = npy_descr(array.scalar_type());
  if (!descr) {
    throw InputError(fmt::format("{}: cannot save dtype {} (supported: {})", where,
                                 c10::toString(array.scalar_type()), kNpySupportedDtypes));
  }
  NpyBlob blob;
  try {
    // Materialise lazy negation before reading raw memory; contiguous() keeps the bit.
    blob.data = array.resolve_neg().contiguous();
    blob.nbytes = static_cast<std::uint64_t>(blob.data.numel()) * blob.data.element_size();
    if (!kLittleEndianHost && blob.data.element_size() > 1 && blob.nbytes > 0) {
      blob.data = blob.data.clone();
      swap_byte_order(blob.data.data_ptr(), static_cast<std::size_t>(blob.data.numel()),
                      blob.data.element_size());
    }
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: cannot prepare the tensor for writing: {}", where,
                                 e.what_without_backtrace()));
  }
  blob.header = format_npy_header(*descr, blob.data.sizes());
  return blob;
}

}  // namespace detail

torch::Tensor load_npy(const std::filesystem::path& path) {
  detail::FileReader file(path);
  return detail::read_npy(file, file.size(), path.string());
}

void save_npy(const std::filesystem::path& path, const torch::Tensor& array) {
  const detail::NpyBlob blob = detail::prepare_npy(array, path.string());
  (void)check_output_file(path);  // a bad path fails before the bytes are gathered
  std::string bytes = blob.header;
  if (blob.nbytes > 0) {
    bytes.append(static_cast<const char*>(blob.data.data_ptr()),
                 static_cast<std::size_t>(blob.nbytes));
  }
  write_output_file(path, bytes);
}

}  // namespace neurobench
