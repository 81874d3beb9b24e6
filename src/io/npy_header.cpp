// SPDX-License-Identifier: Apache-2.0
#include "io/npy_header.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/byte_order.hpp"
#include "io/npy_literal.hpp"
#include "util/text.hpp"

namespace neurobench::detail {
namespace {

std::string dtype_kind_name(char kind, std::size_t itemsize) {
  switch (kind) {
    case 'c':
      return "complex";
    case 'U':
      return "unicode string";
    case 'S':
    case 'a':
      return "byte string";
    case 'O':
      return "Python object";
    case 'V':
      return "void/structured";
    case 'M':
      return "datetime";
    case 'm':
      return "timedelta";
    case 'f':
      return itemsize > 0 ? fmt::format("float{}", itemsize * 8) : "";
    case 'i':
      return itemsize > 0 ? fmt::format("int{}", itemsize * 8) : "";
    default:
      return "";
  }
}

/// Maps a NumPy type string such as `<f4` to a LibTorch dtype, or throws naming it.
NpyDtype parse_descr(const std::string& descr, const std::string& where) {
  std::string_view rest = descr;
  char order = '=';
  if (!rest.empty() && std::strchr("<>|=", rest.front()) != nullptr && rest.front() != '\0') {
    order = rest.front();
    rest.remove_prefix(1);
  }
  char kind = '\0';
  std::size_t itemsize = 0;
  if (!rest.empty()) kind = rest.front();
  bool well_formed = rest.size() >= 2 && rest.size() <= 4;
  if (well_formed) {
    for (const char c : rest.substr(1)) {
      if (c < '0' || c > '9') {
        well_formed = false;
        break;
      }
      itemsize = itemsize * 10 + static_cast<std::size_t>(c - '0');
    }
  }
  const std::optional<c10::ScalarType> scalar_type = [&]() -> std::optional<c10::ScalarType> {
    if (!well_formed) return std::nullopt;
    if (kind == 'f' && itemsize == 2) return c10::kHalf;
    if (kind == 'f' && itemsize == 4) return c10::kFloat;
    if (kind == 'f' && itemsize == 8) return c10::kDouble;
    if (kind == 'i' && itemsize == 1) return c10::kChar;
    if (kind == 'i' && itemsize == 2) return c10::kShort;
    if (kind == 'i' && itemsize == 4) return c10::kInt;
    if (kind == 'i' && itemsize == 8) return c10::kLong;
    if (kind == 'u' && itemsize == 1) return c10::kByte;
    if (kind == 'b' && itemsize == 1) return c10::kBool;
    return std::nullopt;
  }();
  if (!scalar_type) {
    if (well_formed && kind == 'u') {
      throw InputError(fmt::format(
          "{}: unsupported dtype '{}' (uint{}): LibTorch 1.13 has no uint{} tensor type; convert "
          "the array to a signed integer type such as int64 in NumPy first",
          where, printable(descr, 40), itemsize * 8, itemsize * 8));
    }
    const std::string kind_name = dtype_kind_name(kind, well_formed ? itemsize : 0);
    throw InputError(
        fmt::format("{}: unsupported dtype '{}'{} (supported: {})", where, printable(descr, 40),
                    kind_name.empty() ? "" : fmt::format(" ({})", kind_name), kNpySupportedDtypes));
  }
  NpyDtype dtype;
  dtype.scalar_type = *scalar_type;
  dtype.itemsize = itemsize;
  const bool little = kLittleEndianHost;
  dtype.byteswap = itemsize > 1 && ((order == '>' && little) || (order == '<' && !little));
  return dtype;
}

/// The values of the three keys a .npy header dict must have.
struct HeaderKeys {
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
};

HeaderKeys find_header_keys(const Literal& dict, std::string_view text, const std::string& where) {
  HeaderKeys keys;
  // Later duplicates win, as in Python.
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const Literal& key = dict.items[i];
    if (key.kind == Literal::Kind::String && key.text == "descr") {
      keys.descr = &dict.items[i + 1];
    } else if (key.kind == Literal::Kind::String && key.text == "fortran_order") {
      keys.fortran_order = &dict.items[i + 1];
    } else if (key.kind == Literal::Kind::String && key.text == "shape") {
      keys.shape = &dict.items[i + 1];
    } else {
      // NumPy refuses any other key ("Header does not contain the correct keys").
      throw InputError(fmt::format(
          "{}: malformed .npy header: key {} is not one of 'descr', 'fortran_order' and 'shape', "
          "the only keys NumPy writes and reads, in \"{}\"",
          where, printable(key.source, 40), printable(text)));
    }
  }
  for (const auto& [name, literal] :
       {std::pair{"descr", keys.descr}, std::pair{"fortran_order", keys.fortran_order},
        std::pair{"shape", keys.shape}}) {
    if (literal == nullptr) {
      throw InputError(fmt::format("{}: malformed .npy header: no '{}' key in \"{}\"", where, name,
                                   printable(text)));
    }
  }
  return keys;
}

/// Sets the shape, element count and byte count of `header` (whose dtype is set) from `shape`.
void read_shape(const Literal& shape, const std::string& where, NpyHeader& header) {
  const bool shape_ok = shape.kind == Literal::Kind::Tuple &&
                        std::all_of(shape.items.begin(), shape.items.end(), [](const Literal& dim) {
                          return dim.kind == Literal::Kind::Integer && dim.integer >= 0;
                        });
  if (!shape_ok) {
    throw InputError(fmt::format(
        "{}: malformed .npy header: 'shape' must be a tuple of non-negative integers, found {}",
        where, printable(shape.source, 80)));
  }
  const auto too_large = [&] {
    return InputError(
        fmt::format("{}: array of shape {} is too large", where, printable(shape.source, 80)));
  };
  for (const Literal& dim : shape.items) {
    const auto extent = static_cast<std::uint64_t>(dim.integer);
    if (extent != 0 && header.numel > std::numeric_limits<std::uint64_t>::max() / extent) {
      throw too_large();
    }
    header.numel *= extent;
    header.shape.push_back(dim.integer);
  }
  if (header.numel > std::numeric_limits<std::uint64_t>::max() / header.dtype.itemsize ||
      header.numel > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw too_large();
  }
  header.nbytes = header.numel * header.dtype.itemsize;
}

std::uint16_t get_u16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

void put_u16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8);
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((v >> shift) & 0xff);
}

}  // namespace

bool starts_with_bytes(const std::uint8_t* data, std::uint64_t size, std::string_view expected) {
  return size >= expected.size() && std::memcmp(data, expected.data(), expected.size()) == 0;
}

NpyLayout read_npy_prefix(const std::uint8_t* prefix, std::uint64_t total,
                          const std::string& where) {
  const std::uint64_t available = std::min<std::uint64_t>(total, kNpyPrefixSize);
  if (available < sizeof kNpyMagic || std::memcmp(prefix, kNpyMagic, sizeof kNpyMagic) != 0) {
    std::string found;
    if (total == 0) {
      found = "an empty file";
    } else if (starts_with_bytes(prefix, available, "PK\x03\x04") ||
               starts_with_bytes(prefix, available, std::string_view("PK\x05\x06", 4))) {
      found = "a zip archive (an .npz file? read it with load_npz)";
    } else {
      found = "bytes";
      for (std::uint64_t i = 0; i < std::min<std::uint64_t>(available, 8); ++i) {
        found += fmt::format(" {:02x}", prefix[i]);
      }
    }
    throw InputError(
        fmt::format("{}: not a NumPy .npy file (expected the magic string \\x93NUMPY, found {})",
                    where, found));
  }
  if (available < 8) {
    throw InputError(fmt::format("{}: truncated .npy header: expected at least 10 bytes, found {}",
                                 where, total));
  }
  const int major = prefix[6];
  const int minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0) {
    throw InputError(
        fmt::format("{}: unsupported .npy format version {}.{} (expected 1.0, 2.0 or 3.0)", where,
                    major, minor));
  }
  const std::size_t length_size = major == 1 ? 2 : 4;
  if (available < 8 + length_size) {
    throw InputError(fmt::format("{}: truncated .npy header: expected at least {} bytes, found {}",
                                 where, 8 + length_size, total));
  }
  NpyLayout layout;
  layout.header_offset = 8 + length_size;
  layout.header_size = major == 1 ? get_u16(prefix + 8) : get_u32(prefix + 8);
  layout.data_offset = layout.header_offset + static_cast<std::uint64_t>(layout.header_size);
  if (layout.data_offset > total) {
    throw InputError(fmt::format("{}: truncated .npy header: expected {} bytes, found {}", where,
                                 layout.data_offset, total));
  }
  return layout;
}

NpyHeader parse_npy_header(std::string_view text, const std::string& where) {
  const Literal dict = parse_npy_literal(text, where);
  if (dict.kind != Literal::Kind::Dict) {
    throw InputError(fmt::format("{}: malformed .npy header: expected a dictionary, found \"{}\"",
                                 where, printable(text)));
  }
  const HeaderKeys keys = find_header_keys(dict, text, where);
  NpyHeader header;
  if (keys.descr->kind != Literal::Kind::String) {
    throw InputError(
        fmt::format("{}: unsupported dtype {} (structured and subarray dtypes are not supported; "
                    "supported: {})",
                    where, printable(keys.descr->source, 80), kNpySupportedDtypes));
  }
  header.descr = keys.descr->text;
  header.dtype = parse_descr(keys.descr->text, where);

  if (keys.fortran_order->kind != Literal::Kind::Boolean) {
    throw InputError(
        fmt::format("{}: malformed .npy header: 'fortran_order' must be True or False, found {}",
                    where, printable(keys.fortran_order->source, 40)));
  }
  header.fortran_order = keys.fortran_order->boolean;
  read_shape(*keys.shape, where, header);
  return header;
}

bool is_struct_npy_header(std::string_view text, const std::string& where) {
  const Literal dict = parse_npy_literal(text, where);
  if (dict.kind != Literal::Kind::Dict) {
    throw InputError(fmt::format("{}: malformed .npy header: expected a dictionary, found \"{}\"",
                                 where, printable(text)));
  }
  return find_header_keys(dict, text, where).descr->kind == Literal::Kind::List;
}

NpyStructHeader parse_npy_struct_header(std::string_view text, const std::string& where) {
  const Literal dict = parse_npy_literal(text, where);
  if (dict.kind != Literal::Kind::Dict) {
    throw InputError(fmt::format("{}: malformed .npy header: expected a dictionary, found \"{}\"",
                                 where, printable(text)));
  }
  const HeaderKeys keys = find_header_keys(dict, text, where);
  if (keys.descr->kind != Literal::Kind::List) {
    throw InputError(fmt::format(
        "{}: not a structured array: its dtype is {}, expected a list of named fields such as "
        "[('x', '<i2'), ('t', '<i8')]",
        where, printable(keys.descr->source, 80)));
  }
  NpyStructHeader header;
  for (const Literal& item : keys.descr->items) {
    const bool pair = item.kind == Literal::Kind::Tuple && item.items.size() >= 2 &&
                      item.items[0].kind == Literal::Kind::String;
    if (!pair) {
      throw InputError(fmt::format(
          "{}: malformed structured dtype: expected (name, dtype) pairs, found {}", where,
          printable(item.source, 80)));
    }
    const std::string& name = item.items[0].text;
    const Literal& type = item.items[1];
    if (type.kind != Literal::Kind::String) {
      throw InputError(fmt::format(
          "{}: field '{}': unsupported dtype {} (nested structured fields are not supported)",
          where, printable(name, 40), printable(type.source, 80)));
    }
    if (item.items.size() > 2) {
      throw InputError(fmt::format(
          "{}: field '{}': unsupported subarray field of shape {} (one value per item expected)",
          where, printable(name, 40), printable(item.items[2].source, 40)));
    }
    const std::string field_where = fmt::format("{}: field '{}'", where, printable(name, 40));
    std::string_view code = type.text;
    if (!code.empty() && std::strchr("<>|=", code.front()) != nullptr) code.remove_prefix(1);
    if (name.empty() && !code.empty() && code.front() == 'V') {
      // Unnamed padding NumPy writes for aligned dtypes: its bytes are skipped.
      std::size_t bytes = 0;
      for (const char c : code.substr(1)) {
        if (c < '0' || c > '9' || bytes > 1000000) {
          throw InputError(fmt::format("{}: malformed padding dtype '{}'", field_where,
                                       printable(type.text, 20)));
        }
        bytes = bytes * 10 + static_cast<std::size_t>(c - '0');
      }
      header.itemsize += bytes;
      continue;
    }
    if (name.empty()) {
      throw InputError(fmt::format("{}: a field without a name", field_where));
    }
    for (const NpyField& other : header.fields) {
      if (other.name == name) throw InputError(field_where + ": two fields of this name");
    }
    NpyField field;
    field.name = name;
    field.descr = type.text;
    field.offset = header.itemsize;
    if (code == "u2" || code == "u4" || code == "u8") {
      // No unsigned 16-, 32- or 64-bit tensors in LibTorch 1.13: widened to the next signed
      // type; uint64 is read as int64 and a value beyond it refused (npy_fields.cpp).
      const char order = type.text.front();
      field.stored_itemsize = code == "u2" ? 2 : code == "u4" ? 4 : 8;
      field.dtype.scalar_type = code == "u2" ? c10::kInt : c10::kLong;
      field.unsigned_64 = code == "u8";
      field.dtype.itemsize = field.stored_itemsize;
      const bool little = kLittleEndianHost;
      field.dtype.byteswap = (order == '>' && little) || (order == '<' && !little);
    } else {
      field.dtype = parse_descr(type.text, field_where);
      field.stored_itemsize = field.dtype.itemsize;
    }
    header.itemsize += field.stored_itemsize;
    header.fields.push_back(std::move(field));
  }
  if (header.fields.empty()) {
    throw InputError(fmt::format("{}: the structured dtype {} has no named fields", where,
                                 printable(keys.descr->source, 80)));
  }
  if (keys.fortran_order->kind != Literal::Kind::Boolean) {
    throw InputError(
        fmt::format("{}: malformed .npy header: 'fortran_order' must be True or False, found {}",
                    where, printable(keys.fortran_order->source, 40)));
  }
  header.fortran_order = keys.fortran_order->boolean;
  NpyHeader sizes;
  sizes.dtype.itemsize = header.itemsize;
  read_shape(*keys.shape, where, sizes);
  header.shape = std::move(sizes.shape);
  header.numel = sizes.numel;
  header.nbytes = sizes.nbytes;
  return header;
}

std::optional<std::string_view> npy_descr(c10::ScalarType type) {
  switch (type) {
    case c10::kHalf:
      return "<f2";
    case c10::kFloat:
      return "<f4";
    case c10::kDouble:
      return "<f8";
    case c10::kChar:
      return "|i1";
    case c10::kShort:
      return "<i2";
    case c10::kInt:
      return "<i4";
    case c10::kLong:
      return "<i8";
    case c10::kByte:
      return "|u1";
    case c10::kBool:
      return "|b1";
    default:
      return std::nullopt;
  }
}

std::string format_npy_header(std::string_view descr, c10::IntArrayRef shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr,
                                 numpy_shape_string(shape));
  // NumPy pads with spaces and ends with a newline so that the data start 64-byte aligned.
  constexpr std::size_t kAlignment = 64;
  auto padded_length = [&](std::size_t prefix_size) {
    const std::size_t unpadded = prefix_size + dict.size() + 1;
    return dict.size() + 1 + (kAlignment - unpadded % kAlignment) % kAlignment;
  };
  const bool version1 = padded_length(sizeof kNpyMagic + 4) <= 0xffff;
  const std::size_t length = padded_length(sizeof kNpyMagic + (version1 ? 4 : 6));
  dict.resize(length - 1, ' ');
  dict += '\n';

  std::string header(reinterpret_cast<const char*>(kNpyMagic), sizeof kNpyMagic);
  header += static_cast<char>(version1 ? 1 : 2);
  header += '\0';
  if (version1) {
    put_u16(header, static_cast<std::uint16_t>(dict.size()));
  } else {
    put_u32(header, static_cast<std::uint32_t>(dict.size()));
  }
  return header + dict;
}

}  // namespace neurobench::detail
