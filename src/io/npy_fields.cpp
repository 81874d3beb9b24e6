// SPDX-License-Identifier: Apache-2.0
// Structured .npy arrays (named fields) as one tensor per field.
#include <neurobench/io/npy_fields.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "io/byte_order.hpp"
#include "io/npy.hpp"
#include "io/npy_header.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

// The header dict of the .npy file `reader` is at the start of, and where its data start.
struct Preamble {
  std::string dict;
  std::uint64_t data_offset = 0;
};

Preamble read_preamble(detail::FileReader& reader, const std::string& where) {
  std::uint8_t prefix[detail::kNpyPrefixSize] = {};
  const std::uint64_t prefix_size = std::min<std::uint64_t>(reader.size(), sizeof prefix);
  reader.read(prefix, prefix_size);
  const detail::NpyLayout layout = detail::read_npy_prefix(prefix, reader.size(), where);
  std::string preamble(reinterpret_cast<const char*>(prefix),
                       static_cast<std::size_t>(std::min(prefix_size, layout.data_offset)));
  preamble.resize(static_cast<std::size_t>(layout.data_offset));
  if (layout.data_offset > prefix_size) {
    reader.read(preamble.data() + prefix_size, layout.data_offset - prefix_size);
  }
  return {preamble.substr(layout.header_offset, layout.header_size), layout.data_offset};
}

template <class From, class To>
void widen(const std::uint8_t* item, To* out) {
  From value;
  std::memcpy(&value, item, sizeof value);
  *out = static_cast<To>(value);
}

}  // namespace

bool is_structured_npy(const std::filesystem::path& path) {
  const std::string where = path.string();
  detail::FileReader reader(path);
  const Preamble preamble = read_preamble(reader, where);
  return detail::is_struct_npy_header(preamble.dict, where);
}

std::vector<NamedArray> load_npy_fields(const std::filesystem::path& path) {
  const std::string where = path.string();
  detail::FileReader reader(path);
  const Preamble preamble = read_preamble(reader, where);
  const detail::NpyStructHeader header = detail::parse_npy_struct_header(preamble.dict, where);
  const std::uint64_t found = reader.size() - preamble.data_offset;
  if (found < header.nbytes) {
    throw InputError(fmt::format(
        "{}: truncated data: shape {} of {}-byte items needs {} bytes, found {}", where,
        detail::numpy_shape_string(header.shape), header.itemsize, header.nbytes, found));
  }
  std::string data(static_cast<std::size_t>(header.nbytes), '\0');
  reader.read(data.data(), header.nbytes);

  std::vector<std::int64_t> stored_shape = header.shape;
  if (header.fortran_order) std::reverse(stored_shape.begin(), stored_shape.end());
  std::vector<NamedArray> columns;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  for (const detail::NpyField& field : header.fields) {
    torch::Tensor column;
    try {
      column = torch::empty(stored_shape, torch::TensorOptions().dtype(field.dtype.scalar_type));
    } catch (const c10::Error& e) {
      throw InputError(fmt::format("{}: field '{}': cannot allocate its tensor: {}", where,
                                   field.name, e.what_without_backtrace()));
    }
    auto* out = static_cast<std::uint8_t*>(column.data_ptr());
    const std::size_t out_size = column.element_size();
    for (std::uint64_t i = 0; i < header.numel; ++i) {
      const std::uint8_t* item = bytes + i * header.itemsize + field.offset;
      std::uint8_t value[8];
      std::memcpy(value, item, field.stored_itemsize);
      if (field.dtype.byteswap) detail::swap_byte_order(value, 1, field.stored_itemsize);
      std::uint8_t* to = out + i * out_size;
      std::uint64_t big = 0;
      if (field.unsigned_64) std::memcpy(&big, value, sizeof big);  // native order by now
      if (big >> 63 != 0) {
        throw InputError(fmt::format(
            "{}: field '{}': item {} is {}, beyond int64 (uint64 values are read as int64)", where,
            field.name, i, big));
      }
      if (field.stored_itemsize == out_size) {
        std::memcpy(to, value, out_size);
        if (field.dtype.scalar_type == torch::kBool) *to = *to != 0 ? 1 : 0;
      } else if (field.stored_itemsize == 2) {
        widen<std::uint16_t>(value, reinterpret_cast<std::int32_t*>(to));
      } else {
        widen<std::uint32_t>(value, reinterpret_cast<std::int64_t*>(to));
      }
    }
    if (header.fortran_order && header.shape.size() > 1) {
      std::vector<std::int64_t> reversed(header.shape.size());
      for (std::size_t d = 0; d < reversed.size(); ++d) {
        reversed[d] = static_cast<std::int64_t>(reversed.size() - 1 - d);
      }
      column = column.permute(reversed).contiguous();
    }
    columns.emplace_back(field.name, std::move(column));
  }
  return columns;
}

}  // namespace neurobench
