// SPDX-License-Identifier: Apache-2.0
#include "io/npy_header.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/byte_order.hpp"
#include "util/text.hpp"

namespace neurobench::detail {
namespace {

/// A parsed Python literal; only the kinds a .npy header can contain.
struct Literal {
  enum class Kind { Dict, Tuple, List, String, Integer, Boolean, None };
  Kind kind = Kind::None;
  std::string text;            ///< String: the decoded characters.
  std::int64_t integer = 0;    ///< Integer.
  bool boolean = false;        ///< Boolean.
  std::vector<Literal> items;  ///< Tuple, List; Dict as key, value, key, value, ...
  std::string_view source;     ///< The literal as written, for messages.
};

/// Parses the subset of Python literal syntax NumPy writes (and older writers wrote: `3L`, u'').
class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  Literal parse_document() {
    Literal result = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dictionary");
    return result;
  }

 private:
  static constexpr int kMaxDepth = 16;

  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(fmt::format("{}: malformed .npy header: {} at offset {} in \"{}\"", where_,
                                 what, pos_, printable(text_)));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::strchr(" \t\n\r\f\v", text_[pos_]) != nullptr &&
           text_[pos_] != '\0') {
      ++pos_;
    }
  }

  [[nodiscard]] bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_name_char(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  Literal value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of header");
    const std::size_t start = pos_;
    Literal result;
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      result.kind = Literal::Kind::Dict;
      dict_items(result.items, depth);
    } else if (c == '(' || c == '[') {
      ++pos_;
      bool saw_comma = false;
      sequence_items(c == '(' ? ')' : ']', result.items, saw_comma, depth);
      if (c == '(' && result.items.size() == 1 && !saw_comma) {
        // `(3)` is a parenthesised 3 in Python, not a tuple.
        Literal inner = std::move(result.items.front());
        inner.source = text_.substr(start, pos_ - start);
        return inner;
      }
      result.kind = c == '(' ? Literal::Kind::Tuple : Literal::Kind::List;
    } else if (c == '\'' || c == '"') {
      result.kind = Literal::Kind::String;
      result.text = string_body();
    } else if (is_digit(c) || c == '-' || c == '+') {
      result.kind = Literal::Kind::Integer;
      result.integer = integer_body();
    } else if (is_name_char(c)) {
      std::size_t end = pos_;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      const std::string_view name = text_.substr(pos_, end - pos_);
      const bool prefixed_string = end < text_.size() &&
                                   (text_[end] == '\'' || text_[end] == '"') &&
                                   (name == "u" || name == "U" || name == "b" || name == "B");
      pos_ = end;
      if (prefixed_string) {
        result.kind = Literal::Kind::String;
        result.text = string_body();
      } else if (name == "True" || name == "False") {
        result.kind = Literal::Kind::Boolean;
        result.boolean = name == "True";
      } else if (name == "None") {
        result.kind = Literal::Kind::None;
      } else {
        pos_ = start;
        fail(fmt::format("unexpected name '{}'", printable(name, 40)));
      }
    } else {
      fail(fmt::format("unexpected character '{}'", printable(std::string_view(&c, 1))));
    }
    result.source = text_.substr(start, pos_ - start);
    return result;
  }

  void dict_items(std::vector<Literal>& items, int depth) {
    for (;;) {
      skip_space();
      if (at('}')) {
        ++pos_;
        return;
      }
      items.push_back(value(depth + 1));
      skip_space();
      if (!at(':')) fail("expected ':' after a dictionary key");
      ++pos_;
      items.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        ++pos_;
      } else if (!at('}')) {
        fail("expected ',' or '}' in the dictionary");
      }
    }
  }

  void sequence_items(char close, std::vector<Literal>& items, bool& saw_comma, int depth) {
    for (;;) {
      skip_space();
      if (at(close)) {
        ++pos_;
        return;
      }
      items.push_back(value(depth + 1));
      skip_space();
      if (at(',')) {
        ++pos_;
        saw_comma = true;
      } else if (!at(close)) {
        fail(fmt::format("expected ',' or '{}'", close));
      }
    }
  }

  std::string string_body() {
    const char quote = text_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated string");
      const char escaped = text_[pos_++];
      switch (escaped) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '\\':
        case '\'':
        case '"':
          out += escaped;
          break;
        default:  // Python keeps unknown escapes verbatim.
          out += '\\';
          out += escaped;
          break;
      }
    }
  }

  std::int64_t integer_body() {
    bool negative = false;
    if (at('-') || at('+')) negative = text_[pos_++] == '-';
    skip_space();
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) fail("expected digits");
    constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
    std::uint64_t magnitude = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (magnitude > (kMaxMagnitude - digit) / 10) fail("integer out of range");
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    // Python 2 wrote long integers as `3L`; NumPy still reads such headers.
    if (at('L') || at('l')) ++pos_;
    if (pos_ < text_.size() && (is_name_char(text_[pos_]) || text_[pos_] == '.')) {
      fail("expected an integer");
    }
    if (!negative && magnitude == kMaxMagnitude) fail("integer out of range");
    if (negative)
      return magnitude == kMaxMagnitude ? std::numeric_limits<std::int64_t>::min()
                                        : -static_cast<std::int64_t>(magnitude);
    return static_cast<std::int64_t>(magnitude);
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

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
    if (key.kind != Literal::Kind::String) continue;
    if (key.text == "descr") keys.descr = &dict.items[i + 1];
    if (key.text == "fortran_order") keys.fortran_order = &dict.items[i + 1];
    if (key.text == "shape") keys.shape = &dict.items[i + 1];
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
  const Literal dict = LiteralParser(text, where).parse_document();
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
  const Literal dict = LiteralParser(text, where).parse_document();
  if (dict.kind != Literal::Kind::Dict) {
    throw InputError(fmt::format("{}: malformed .npy header: expected a dictionary, found \"{}\"",
                                 where, printable(text)));
  }
  return find_header_keys(dict, text, where).descr->kind == Literal::Kind::List;
}

NpyStructHeader parse_npy_struct_header(std::string_view text, const std::string& where) {
  const Literal dict = LiteralParser(text, where).parse_document();
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
    if (code == "u2" || code == "u4") {
      // No unsigned 16- or 32-bit tensors in LibTorch 1.13: widened to the next signed type.
      const char order = type.text.front();
      field.stored_itemsize = code == "u2" ? 2 : 4;
      field.dtype.scalar_type = code == "u2" ? c10::kInt : c10::kLong;
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
