// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/idx.hpp>

#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::datasets {

using detail::numpy_shape_string;

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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw InputError(fmt::format("{}: no such file", path.string()));
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(fmt::format("{}: not a regular file", path.string()));
  }
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

constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

template <class Word>
void swap_words(void* data, std::size_t count) {
  auto* p = static_cast<Word*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (sizeof(Word) == 2) {
      p[i] = __builtin_bswap16(p[i]);
    } else if constexpr (sizeof(Word) == 4) {
      p[i] = __builtin_bswap32(p[i]);
    } else {
      p[i] = __builtin_bswap64(p[i]);
    }
  }
}

std::uint32_t big_endian_u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

const char* split_prefix(FashionMnistSplit split) {
  return split == FashionMnistSplit::Train ? "train" : "t10k";
}

// The plain file when present, else its gzip twin.
std::filesystem::path find_file(const std::filesystem::path& folder, const std::string& name) {
  std::error_code ec;
  const std::filesystem::path plain = folder / name;
  if (std::filesystem::exists(plain, ec)) return plain;
  const std::filesystem::path gz = folder / (name + ".gz");
  if (std::filesystem::exists(gz, ec)) return gz;
  throw InputError(fmt::format(
      "{}[.gz]: no such file; Fashion-MNIST comes with Debian's dataset-fashion-mnist package "
      "(apt-get install dataset-fashion-mnist puts it in {})",
      plain.string(), kFashionMnistFolder));
}


}  // namespace

torch::Tensor load_idx(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = read_all(path);
  const std::string where = path.string();
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
  const DtypeInfo* dtype = find_dtype(bytes[2]);
  if (dtype == nullptr) {
    throw InputError(fmt::format(
        "{}: bad magic number 0x{:08X}: unknown IDX dtype 0x{:02X} (known: 0x08 unsigned byte, "
        "0x09 signed byte, 0x0B short, 0x0C int, 0x0D float, 0x0E double)",
        where, magic, bytes[2]));
  }
  const std::size_t ndims = bytes[3];
  if (ndims == 0) {
    throw InputError(fmt::format("{}: bad magic number 0x{:08X}: no dimensions", where, magic));
  }
  const std::size_t header = 4 + 4 * ndims;
  if (bytes.size() < header) {
    throw InputError(
        fmt::format("{}: truncated: the header needs {} bytes for {} dimensions, the file holds {}",
                    where, header, ndims, bytes.size()));
  }
  std::vector<int64_t> dims(ndims);
  // Every dimension is below 2^32, so the element count fits in 64 bits until it passes
  // 2^62 / element size; beyond that no file could hold the data anyway.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  std::uint64_t count = 1;
  bool too_large = false;
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::uint32_t d = big_endian_u32(bytes.data() + 4 + 4 * i);
    dims[i] = static_cast<int64_t>(d);
    if (d != 0 && count > kLimit / d) too_large = true;
    if (!too_large) count *= d;
  }
  const std::size_t available = bytes.size() - header;
  const auto dims_text = [&] { return fmt::format("({})", fmt::join(dims, ", ")); };
  if (too_large || count * dtype->size > kLimit) {
    throw InputError(fmt::format(
        "{}: truncated: the header promises {} {} elements, far more than the {} data bytes "
        "the file holds",
        where, dims_text(), dtype->name, available));
  }
  const std::uint64_t expected = count * dtype->size;
  if (available < expected) {
    throw InputError(fmt::format(
        "{}: truncated: the header promises {} {} elements ({} bytes), the file holds {} data "
        "bytes",
        where, dims_text(), dtype->name, expected, available));
  }
  if (available > expected) {
    throw InputError(fmt::format(
        "{}: {} bytes after the data: the header promises {} {} elements ({} bytes), the file "
        "holds {} data bytes",
        where, available - expected, dims_text(), dtype->name, expected, available));
  }

  torch::Tensor out = torch::empty(dims, torch::TensorOptions().dtype(dtype->type));
  if (expected > 0) {
    std::memcpy(out.data_ptr(), bytes.data() + header, static_cast<std::size_t>(expected));
    if (kLittleEndianHost) {
      switch (dtype->size) {
        case 2:
          swap_words<std::uint16_t>(out.data_ptr(), count);
          break;
        case 4:
          swap_words<std::uint32_t>(out.data_ptr(), count);
          break;
        case 8:
          swap_words<std::uint64_t>(out.data_ptr(), count);
          break;
        default:
          break;
      }
    }
  }
  return out;
}

TensorDataset fashion_mnist(const std::filesystem::path& folder, FashionMnistSplit split) {
  const std::string prefix = split_prefix(split);
  const std::filesystem::path image_file = find_file(folder, prefix + "-images-idx3-ubyte");
  const std::filesystem::path label_file = find_file(folder, prefix + "-labels-idx1-ubyte");
  const torch::Tensor images = load_idx(image_file);
  const torch::Tensor labels = load_idx(label_file);

  if (images.scalar_type() != torch::kUInt8 || images.dim() != 3 || images.size(1) != 28 ||
      images.size(2) != 28) {
    throw InputError(fmt::format(
        "{}: expected unsigned byte images shaped (N, 28, 28), found {} {}", image_file.string(),
        c10::toString(images.scalar_type()), numpy_shape_string(images.sizes())));
  }
  if (labels.scalar_type() != torch::kUInt8 || labels.dim() != 1) {
    throw InputError(fmt::format("{}: expected unsigned byte labels shaped (N), found {} {}",
                                 label_file.string(), c10::toString(labels.scalar_type()),
                                 numpy_shape_string(labels.sizes())));
  }
  if (images.size(0) != labels.size(0)) {
    throw InputError(fmt::format("{} holds {} images but {} holds {} labels", image_file.string(),
                                 images.size(0), label_file.string(), labels.size(0)));
  }
  if (labels.numel() > 0) {
    const int64_t top = labels.max().item<int64_t>();
    if (top > 9) {
      throw InputError(
          fmt::format("{}: label {} found, expected classes 0..9", label_file.string(), top));
    }
  }
  torch::Tensor data = images.to(torch::kFloat32).div_(255.0F).unsqueeze(1).contiguous();
  torch::Tensor targets = labels.to(torch::kInt64);
  return TensorDataset(
      std::move(data), std::move(targets), {},
      fmt::format("Fashion-MNIST {} split ({})",
                  split == FashionMnistSplit::Train ? "training" : "test", folder.string()));
}

TensorDataset fashion_mnist(FashionMnistSplit split) {
  return fashion_mnist(std::filesystem::path(kFashionMnistFolder), split);
}

}  // namespace neurobench::datasets
