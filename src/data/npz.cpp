// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/npz.hpp>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <zlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <neurobench/errors.hpp>

namespace neurobench {
namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers: message text, byte order, checked arithmetic.

constexpr std::string_view kSupportedDtypes =
    "float16, float32, float64, int8, int16, int32, int64, uint8, bool";

/// Renders untrusted bytes (header text, zip entry names) printable and short for a message.
std::string printable(std::string_view text, std::size_t max_chars = 160) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  std::string out;
  for (const char c : text.substr(0, max_chars)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (text.size() > max_chars) out += "...";
  return out;
}

/// Formats a shape the way NumPy prints it: `()`, `(3,)`, `(2, 3)`.
std::string python_shape(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ',';
  return out + ')';
}

template <class T>
std::string to_text(const T& value) {
  std::ostringstream stream;
  stream << value;
  return stream.str();
}

std::string errno_text(int error) { return std::generic_category().message(error); }

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  std::uint8_t first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

template <std::size_t N>
void reverse_each(std::uint8_t* data, std::size_t count) {
  // With N a constant the compiler turns this into one bswap per element.
  for (std::size_t i = 0; i < count; ++i, data += N) std::reverse(data, data + N);
}

void swap_byte_order(void* data, std::size_t count, std::size_t itemsize) {
  auto* bytes = static_cast<std::uint8_t*>(data);
  switch (itemsize) {
    case 2:
      reverse_each<2>(bytes, count);
      break;
    case 4:
      reverse_each<4>(bytes, count);
      break;
    case 8:
      reverse_each<8>(bytes, count);
      break;
    default:
      break;
  }
}

std::uint16_t get_u16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

std::uint64_t get_u64(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(get_u32(p)) |
         (static_cast<std::uint64_t>(get_u32(p + 4)) << 32);
}

void put_u16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8);
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((v >> shift) & 0xff);
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) out += static_cast<char>((v >> shift) & 0xff);
}

/// True when `[offset, offset + length)` lies inside a buffer of `size` bytes.
bool in_bounds(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

// CRC-32 over buffers larger than zlib's uInt, in chunks.
std::uint32_t crc32_update(std::uint32_t crc, const void* data, std::uint64_t size) {
  const auto* bytes = static_cast<const Bytef*>(data);
  uLong value = crc;
  while (size > 0) {
    const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(size, 1u << 30));
    value = crc32(value, bytes, chunk);
    bytes += chunk;
    size -= chunk;
  }
  return static_cast<std::uint32_t>(value);
}

// ---------------------------------------------------------------------------------------------
// Reading bytes.

/// Bytes to read an array from: a file, or a deflated .npz entry; every read is exact or throws.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// Copies `count` bytes at `offset` to `destination`.
  virtual void read(std::uint64_t offset, void* destination, std::uint64_t count) = 0;
};

/// A binary input file, read with positioned reads straight into the caller's memory.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& path) : where_(path.string()) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw InputError(fmt::format("{}: no such file", where_));
    if (std::filesystem::is_directory(status)) {
      throw InputError(fmt::format("{}: is a directory, expected a file", where_));
    }
    size_ = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(fmt::format("{}: cannot read: {}", where_, ec.message()));
    errno = 0;
    in_.open(path, std::ios::binary);
    if (!in_) throw InputError(fmt::format("{}: cannot open: {}", where_, errno_text(errno)));
  }

  [[nodiscard]] std::uint64_t size() const override { return size_; }

  void read(std::uint64_t offset, void* destination, std::uint64_t count) override {
    if (count == 0) return;
    if (!in_bounds(offset, count, size_)) {
      throw InputError(fmt::format("{}: read of {} bytes at offset {} past the end of the file",
                                   where_, count, offset));
    }
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(static_cast<char*>(destination), static_cast<std::streamsize>(count));
    const auto got = static_cast<std::uint64_t>(in_.gcount());
    if (!in_ || got != count) {
      throw InputError(fmt::format("{}: read error at offset {}: expected {} bytes, got {}", where_,
                                   offset, count, got));
    }
  }

 private:
  std::string where_;
  std::uint64_t size_ = 0;
  std::ifstream in_;
};

/// CRC-32 of `count` bytes at `offset` of `source`, read in pieces.
std::uint32_t crc32_of(ByteSource& source, std::uint64_t offset, std::uint64_t count,
                       std::uint32_t crc = 0) {
  constexpr std::uint64_t kPiece = 1 << 20;
  std::vector<std::uint8_t> piece(static_cast<std::size_t>(std::min(count, kPiece)));
  while (count > 0) {
    const std::uint64_t n = std::min(count, kPiece);
    source.read(offset, piece.data(), n);
    crc = crc32_update(crc, piece.data(), n);
    offset += n;
    count -= n;
  }
  return crc;
}

/// The CRC-32 an .npz entry must have, and the message prefix naming the entry.
struct CrcCheck {
  std::uint32_t expected = 0;
  std::string where;
};

[[noreturn]] void throw_crc_mismatch(const CrcCheck& check, std::uint32_t actual) {
  throw InputError(
      fmt::format("{}: corrupt entry: CRC-32 mismatch (directory states {:08x}, data give {:08x})",
                  check.where, check.expected, actual));
}

// ---------------------------------------------------------------------------------------------
// The .npy header: a Python dict literal.

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

/// The element type of a .npy array as LibTorch sees it.
struct Dtype {
  torch::ScalarType scalar_type = torch::kFloat;
  std::size_t itemsize = 0;
  bool byteswap = false;  ///< Stored in the other byte order than this machine's.
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
Dtype parse_descr(const std::string& descr, const std::string& where) {
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
  const std::optional<torch::ScalarType> scalar_type = [&]() -> std::optional<torch::ScalarType> {
    if (!well_formed) return std::nullopt;
    if (kind == 'f' && itemsize == 2) return torch::kHalf;
    if (kind == 'f' && itemsize == 4) return torch::kFloat;
    if (kind == 'f' && itemsize == 8) return torch::kDouble;
    if (kind == 'i' && itemsize == 1) return torch::kChar;
    if (kind == 'i' && itemsize == 2) return torch::kShort;
    if (kind == 'i' && itemsize == 4) return torch::kInt;
    if (kind == 'i' && itemsize == 8) return torch::kLong;
    if (kind == 'u' && itemsize == 1) return torch::kByte;
    if (kind == 'b' && itemsize == 1) return torch::kBool;
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
                    kind_name.empty() ? "" : fmt::format(" ({})", kind_name), kSupportedDtypes));
  }
  Dtype dtype;
  dtype.scalar_type = *scalar_type;
  dtype.itemsize = itemsize;
  const bool little = host_is_little_endian();
  dtype.byteswap = itemsize > 1 && ((order == '>' && little) || (order == '<' && !little));
  return dtype;
}

/// Where the header and the data of a .npy blob are.
struct NpyLayout {
  std::size_t header_offset = 0;
  std::size_t header_size = 0;
  std::uint64_t data_offset = 0;
};

constexpr std::uint8_t kNpyMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kNpyPrefixSize = 12;  // magic, version, and up to a 4-byte header length

bool starts_with_bytes(const std::uint8_t* data, std::uint64_t size, std::string_view expected) {
  return size >= expected.size() && std::memcmp(data, expected.data(), expected.size()) == 0;
}

/// Checks the magic string and version in the first `min(total, 12)` bytes and finds the header.
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

/// What a .npy header says about its array.
struct NpyHeader {
  std::string descr;
  Dtype dtype;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::uint64_t numel = 1;
  std::uint64_t nbytes = 0;
};

NpyHeader parse_npy_header(std::string_view text, const std::string& where) {
  const Literal dict = LiteralParser(text, where).parse_document();
  if (dict.kind != Literal::Kind::Dict) {
    throw InputError(fmt::format("{}: malformed .npy header: expected a dictionary, found \"{}\"",
                                 where, printable(text)));
  }
  // Later duplicates win, as in Python.
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const Literal& key = dict.items[i];
    if (key.kind != Literal::Kind::String) continue;
    if (key.text == "descr") descr = &dict.items[i + 1];
    if (key.text == "fortran_order") fortran_order = &dict.items[i + 1];
    if (key.text == "shape") shape = &dict.items[i + 1];
  }
  for (const auto& [name, literal] :
       {std::pair{"descr", descr}, std::pair{"fortran_order", fortran_order},
        std::pair{"shape", shape}}) {
    if (literal == nullptr) {
      throw InputError(fmt::format("{}: malformed .npy header: no '{}' key in \"{}\"", where, name,
                                   printable(text)));
    }
  }

  NpyHeader header;
  if (descr->kind != Literal::Kind::String) {
    throw InputError(
        fmt::format("{}: unsupported dtype {} (structured and subarray dtypes are not supported; "
                    "supported: {})",
                    where, printable(descr->source, 80), kSupportedDtypes));
  }
  header.descr = descr->text;
  header.dtype = parse_descr(descr->text, where);

  if (fortran_order->kind != Literal::Kind::Boolean) {
    throw InputError(
        fmt::format("{}: malformed .npy header: 'fortran_order' must be True or False, found {}",
                    where, printable(fortran_order->source, 40)));
  }
  header.fortran_order = fortran_order->boolean;

  const bool shape_ok =
      shape->kind == Literal::Kind::Tuple &&
      std::all_of(shape->items.begin(), shape->items.end(), [](const Literal& dim) {
        return dim.kind == Literal::Kind::Integer && dim.integer >= 0;
      });
  if (!shape_ok) {
    throw InputError(fmt::format(
        "{}: malformed .npy header: 'shape' must be a tuple of non-negative integers, found {}",
        where, printable(shape->source, 80)));
  }
  for (const Literal& dim : shape->items) {
    const auto extent = static_cast<std::uint64_t>(dim.integer);
    if (extent != 0 && header.numel > std::numeric_limits<std::uint64_t>::max() / extent) {
      throw InputError(
          fmt::format("{}: array of shape {} is too large", where, printable(shape->source, 80)));
    }
    header.numel *= extent;
    header.shape.push_back(dim.integer);
  }
  if (header.numel > std::numeric_limits<std::uint64_t>::max() / header.dtype.itemsize ||
      header.numel > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw InputError(
        fmt::format("{}: array of shape {} is too large", where, printable(shape->source, 80)));
  }
  header.nbytes = header.numel * header.dtype.itemsize;
  return header;
}

void check_data_size(const NpyHeader& header, std::uint64_t found, const std::string& where) {
  if (found < header.nbytes) {
    throw InputError(
        fmt::format("{}: truncated data: shape {} of dtype '{}' needs {} bytes, found {}", where,
                    python_shape(header.shape), printable(header.descr, 40), header.nbytes, found));
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
                                 python_shape(shape), e.what_without_backtrace()));
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
    swap_byte_order(data, header.numel, header.dtype.itemsize);
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

/// Reads the .npy array in bytes `[offset, offset + size)` of `source`.
///
/// With `crc`, those bytes must have that CRC-32 (a stored .npz entry): the data are checked in
/// the tensor's own memory before they are interpreted, and a header that fails to parse is
/// reported as a CRC-32 mismatch when that is the cause.
torch::Tensor read_npy(ByteSource& source, std::uint64_t offset, std::uint64_t size,
                       const std::string& where, const std::optional<CrcCheck>& crc) {
  std::uint8_t prefix[kNpyPrefixSize] = {};
  const std::uint64_t prefix_size = std::min<std::uint64_t>(size, kNpyPrefixSize);
  source.read(offset, prefix, prefix_size);

  std::string preamble;  // bytes [0, data_offset): magic, version, length, header
  NpyHeader header;
  NpyLayout layout;
  try {
    layout = read_npy_prefix(prefix, size, where);
    // read_npy_prefix checked data_offset <= size, so this allocation is bounded by the file.
    preamble.assign(reinterpret_cast<const char*>(prefix),
                    static_cast<std::size_t>(std::min(prefix_size, layout.data_offset)));
    preamble.resize(static_cast<std::size_t>(layout.data_offset));
    if (layout.data_offset > prefix_size) {
      source.read(offset + prefix_size, preamble.data() + prefix_size,
                  layout.data_offset - prefix_size);
    }
    header = parse_npy_header(
        std::string_view(preamble).substr(layout.header_offset, layout.header_size), where);
    check_data_size(header, size - layout.data_offset, where);
  } catch (const InputError&) {
    if (crc) {
      const std::uint32_t actual = crc32_of(source, offset, size);
      if (actual != crc->expected) throw_crc_mismatch(*crc, actual);
    }
    throw;
  }

  // A header shorter than 2 bytes never parses, so the data start after the prefix read above.
  assert(layout.data_offset >= prefix_size);
  torch::Tensor stored = allocate_for(header, where);
  void* data = header.nbytes > 0 ? stored.data_ptr() : nullptr;
  source.read(offset + layout.data_offset, data, header.nbytes);
  if (crc) {
    std::uint32_t actual = crc32_update(0, preamble.data(), preamble.size());
    actual = crc32_update(actual, data, header.nbytes);
    const std::uint64_t trailing = size - layout.data_offset - header.nbytes;
    actual = crc32_of(source, offset + layout.data_offset + header.nbytes, trailing, actual);
    if (actual != crc->expected) throw_crc_mismatch(*crc, actual);
  }
  return finish_tensor(std::move(stored), header, where);
}

// ---------------------------------------------------------------------------------------------
// Reading .npz (zip) archives.

constexpr std::uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr std::uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kMaxCommentSize = 0xffff;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::uint32_t kZip32Max = 0xffffffff;
constexpr std::uint16_t kMethodStored = 0;
constexpr std::uint16_t kMethodDeflate = 8;
constexpr std::uint16_t kFlagEncrypted = 0x0001;
constexpr std::uint16_t kFlagUtf8 = 0x0800;

/// One file of the archive, from its central directory record.
struct ZipEntry {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
};

/// Throws unless the file starts like a zip archive, saying what it looks like instead.
void check_zip_magic(ByteSource& file, const std::string& where) {
  std::uint8_t start[sizeof kNpyMagic] = {};
  const std::uint64_t count = std::min<std::uint64_t>(file.size(), sizeof start);
  file.read(0, start, count);
  if (starts_with_bytes(start, count, "PK\x03\x04") ||
      starts_with_bytes(start, count, std::string_view("PK\x05\x06", 4))) {
    return;
  }
  std::string found = count == 0 ? "an empty file" : "other bytes";
  if (count == sizeof kNpyMagic && std::memcmp(start, kNpyMagic, sizeof kNpyMagic) == 0) {
    found = "a .npy file (read it with load_npy)";
  }
  throw InputError(fmt::format(
      "{}: not a NumPy .npz file (expected a zip archive starting with \"PK\", found {})", where,
      found));
}

/// Where the central directory is and how many entries it holds.
struct CentralDirectory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

CentralDirectory find_central_directory(ByteSource& file, const std::string& where) {
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes; a ZIP64 locator
  // would sit in the 20 bytes before it.
  const std::uint64_t size = file.size();
  const std::uint64_t tail_size =
      std::min<std::uint64_t>(size, kZip64LocatorSize + kMaxCommentSize + kEndSize);
  const std::uint64_t tail_offset = size - tail_size;
  std::vector<std::uint8_t> tail(static_cast<std::size_t>(tail_size));
  file.read(tail_offset, tail.data(), tail_size);

  std::optional<std::uint64_t> found;  // offset in `tail`
  for (std::uint64_t pos = tail_size >= kEndSize ? tail_size - kEndSize + 1 : 0; pos-- > 0;) {
    if (get_u32(&tail[pos]) == kEndSignature &&
        pos + kEndSize + get_u16(&tail[pos + 20]) <= tail_size) {
      found = pos;
      break;
    }
  }
  if (!found) {
    throw InputError(fmt::format(
        "{}: truncated or corrupt zip archive: no end-of-central-directory record found", where));
  }
  const std::uint8_t* end = &tail[*found];
  CentralDirectory directory;
  bool multi_disk =
      get_u16(end + 4) != 0 || get_u16(end + 6) != 0 || get_u16(end + 8) != get_u16(end + 10);
  directory.entries = get_u16(end + 10);
  directory.size = get_u32(end + 12);
  directory.offset = get_u32(end + 16);
  std::uint64_t limit = tail_offset + *found;  // the directory must end before this

  if (*found >= kZip64LocatorSize && get_u32(end - kZip64LocatorSize) == kZip64LocatorSignature) {
    const std::uint8_t* locator = end - kZip64LocatorSize;
    const std::uint64_t record_offset = get_u64(locator + 8);
    if (!in_bounds(record_offset, kZip64EndSize, limit - kZip64LocatorSize)) {
      throw InputError(fmt::format(
          "{}: corrupt zip archive: the ZIP64 end-of-central-directory record at offset {} lies "
          "outside the file",
          where, record_offset));
    }
    std::uint8_t record[kZip64EndSize];
    file.read(record_offset, record, kZip64EndSize);
    if (get_u32(record) != kZip64EndSignature) {
      throw InputError(fmt::format(
          "{}: corrupt zip archive: bad ZIP64 end-of-central-directory signature at offset {}",
          where, record_offset));
    }
    multi_disk = get_u32(locator + 4) != 0 || get_u32(locator + 16) > 1 ||
                 get_u32(record + 16) != 0 || get_u32(record + 20) != 0 ||
                 get_u64(record + 24) != get_u64(record + 32);
    directory.entries = get_u64(record + 32);
    directory.size = get_u64(record + 40);
    directory.offset = get_u64(record + 48);
    limit = record_offset;
  }
  if (multi_disk) {
    throw InputError(fmt::format("{}: multi-disk (split) zip archives are not supported", where));
  }
  if (!in_bounds(directory.offset, directory.size, limit)) {
    throw InputError(fmt::format(
        "{}: truncated or corrupt zip archive: the central directory ({} bytes at offset {}) runs "
        "past its end record at offset {}",
        where, directory.size, directory.offset, limit));
  }
  if (directory.entries > directory.size / kCentralHeaderSize) {
    throw InputError(fmt::format(
        "{}: corrupt zip archive: {} entries cannot fit in a central directory of {} bytes", where,
        directory.entries, directory.size));
  }
  return directory;
}

/// Replaces the saturated (0xffffffff) fields of `entry` with those of its ZIP64 extra field.
void apply_zip64_extra(const std::uint8_t* extra, std::size_t extra_size, bool offset_in_extra,
                       ZipEntry& entry, const std::string& where) {
  std::size_t pos = 0;
  while (extra_size - pos >= 4) {
    const std::uint16_t id = get_u16(extra + pos);
    const std::uint16_t length = get_u16(extra + pos + 2);
    const std::size_t body = pos + 4;
    if (length > extra_size - body) {
      throw InputError(
          fmt::format("{}: corrupt zip archive: extra field overruns its record", where));
    }
    if (id == kZip64ExtraId) {
      // Only the fields saturated in the fixed record are present, in this order.
      std::size_t field = body;
      auto next = [&](std::uint64_t& value) {
        if (body + length - field < 8) {
          throw InputError(
              fmt::format("{}: corrupt zip archive: ZIP64 extra field too short", where));
        }
        value = get_u64(extra + field);
        field += 8;
      };
      if (entry.uncompressed_size == kZip32Max) next(entry.uncompressed_size);
      if (entry.compressed_size == kZip32Max) next(entry.compressed_size);
      if (offset_in_extra) next(entry.local_header_offset);
      return;
    }
    pos = body + length;
  }
}

std::vector<ZipEntry> read_central_directory(ByteSource& file, const CentralDirectory& directory,
                                             const std::string& where) {
  // find_central_directory checked the directory lies inside the file.
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(directory.size));
  file.read(directory.offset, bytes.data(), directory.size);
  std::vector<ZipEntry> entries;
  entries.reserve(static_cast<std::size_t>(directory.entries));
  std::size_t pos = 0;
  for (std::uint64_t i = 0; i < directory.entries; ++i) {
    const std::uint8_t* record = bytes.data() + pos;
    if (!in_bounds(pos, kCentralHeaderSize, bytes.size()) ||
        get_u32(record) != kCentralHeaderSignature) {
      throw InputError(fmt::format(
          "{}: corrupt zip archive: bad central directory signature at offset {} (entry {} of {})",
          where, directory.offset + pos, i + 1, directory.entries));
    }
    const std::size_t name_size = get_u16(record + 28);
    const std::size_t extra_size = get_u16(record + 30);
    const std::size_t comment_size = get_u16(record + 32);
    const std::size_t record_size = kCentralHeaderSize + name_size + extra_size + comment_size;
    if (!in_bounds(pos, record_size, bytes.size())) {
      throw InputError(fmt::format(
          "{}: corrupt zip archive: central directory record at offset {} (entry {} of {}) runs "
          "past the end of the central directory",
          where, directory.offset + pos, i + 1, directory.entries));
    }
    ZipEntry entry;
    entry.flags = get_u16(record + 8);
    entry.method = get_u16(record + 10);
    entry.crc = get_u32(record + 16);
    entry.compressed_size = get_u32(record + 20);
    entry.uncompressed_size = get_u32(record + 24);
    entry.local_header_offset = get_u32(record + 42);
    entry.name.assign(reinterpret_cast<const char*>(record + kCentralHeaderSize), name_size);
    apply_zip64_extra(record + kCentralHeaderSize + name_size, extra_size,
                      entry.local_header_offset == kZip32Max, entry,
                      fmt::format("{}: entry '{}'", where, printable(entry.name, 200)));
    entries.push_back(std::move(entry));
    pos += record_size;
  }
  return entries;
}

std::string method_name(std::uint16_t method) {
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

/// The inflated bytes of a deflated entry, produced in order as they are read, so that the
/// array data are inflated straight into the tensor. Reads must be sequential from offset 0.
class InflateSource final : public ByteSource {
 public:
  InflateSource(ByteSource& file, std::uint64_t offset, std::uint64_t compressed_size,
                std::uint64_t size, std::string where)
      : file_(file),
        input_offset_(offset),
        input_left_(compressed_size),
        size_(size),
        where_(std::move(where)) {
    if (inflateInit2(&stream_, -MAX_WBITS) != Z_OK) {
      throw InputError(fmt::format("{}: cannot initialise zlib", where_));
    }
  }
  InflateSource(const InflateSource&) = delete;
  InflateSource& operator=(const InflateSource&) = delete;
  ~InflateSource() override { inflateEnd(&stream_); }

  [[nodiscard]] std::uint64_t size() const override { return size_; }

  void read([[maybe_unused]] std::uint64_t offset, void* destination,
            std::uint64_t count) override {
    assert(offset == produced_ && in_bounds(offset, count, size_));
    failed_ = true;  // until this read completes
    auto* out = static_cast<std::uint8_t*>(destination);
    std::uint64_t left = count;
    while (left > 0) {
      if (ended_) {
        throw InputError(fmt::format(
            "{}: corrupt entry: inflates to {} bytes, but its directory record states {}", where_,
            produced_ + (count - left), size_));
      }
      const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(left, kChunk));
      stream_.next_out = out;
      stream_.avail_out = chunk;
      while (stream_.avail_out > 0 && !ended_) step();
      const std::uint64_t done = chunk - stream_.avail_out;
      out += done;
      left -= done;
    }
    crc_ = crc32_update(crc_, destination, count);
    produced_ += count;
    failed_ = false;
  }

  /// True when a read threw: the stream is unusable and its error already reported.
  [[nodiscard]] bool failed() const { return failed_; }

  /// Inflates what the reader left, then checks the stream ends at size() with this CRC-32.
  void finish(std::uint32_t expected_crc) {
    std::vector<std::uint8_t> scratch(
        static_cast<std::size_t>(std::min(size_ - produced_, kPiece)));
    while (produced_ < size_) read(produced_, scratch.data(), std::min(size_ - produced_, kPiece));
    if (!ended_) {
      std::uint8_t spare = 0;
      stream_.next_out = &spare;
      stream_.avail_out = 1;
      while (stream_.avail_out > 0 && !ended_) step();
      if (stream_.avail_out == 0) {
        throw InputError(fmt::format(
            "{}: corrupt entry: inflates to more than the {} bytes its directory record states",
            where_, size_));
      }
    }
    if (crc_ != expected_crc) throw_crc_mismatch(CrcCheck{expected_crc, where_}, crc_);
  }

 private:
  static constexpr std::uint64_t kChunk = 1u << 30;  // avail_in/avail_out are 32-bit
  static constexpr std::uint64_t kPiece = 1u << 20;  // compressed bytes read at a time

  // One inflate call; each either makes progress or throws, so callers' loops end.
  void step() {
    if (stream_.avail_in == 0 && input_left_ > 0) {
      const std::uint64_t n = std::min(input_left_, kPiece);
      input_.resize(static_cast<std::size_t>(n));
      file_.read(input_offset_, input_.data(), n);
      input_offset_ += n;
      input_left_ -= n;
      stream_.next_in = input_.data();
      stream_.avail_in = static_cast<uInt>(n);
    }
    const int status = inflate(&stream_, Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      ended_ = true;
    } else if (status == Z_BUF_ERROR && stream_.avail_in == 0 && input_left_ == 0) {
      throw InputError(fmt::format(
          "{}: truncated or corrupt entry: the compressed data end before the deflate stream does",
          where_));
    } else if (status != Z_OK) {
      throw InputError(fmt::format("{}: corrupt entry: deflate data error: {}", where_,
                                   stream_.msg != nullptr ? stream_.msg : "unknown zlib error"));
    }
  }

  ByteSource& file_;
  std::uint64_t input_offset_;
  std::uint64_t input_left_;
  std::uint64_t size_;
  std::string where_;
  z_stream stream_{};
  std::vector<std::uint8_t> input_;
  std::uint64_t produced_ = 0;
  std::uint32_t crc_ = 0;
  bool ended_ = false;
  bool failed_ = false;
};

/// The array in one archive entry, after checking its local header, size, method and CRC-32.
torch::Tensor read_entry(ByteSource& file, const ZipEntry& entry, const std::string& archive,
                         const std::string& array_name) {
  const std::string where = fmt::format("{}: entry '{}'", archive, printable(entry.name, 200));
  const std::string array_where =
      fmt::format("{}: array '{}'", archive, printable(array_name, 200));
  if ((entry.flags & kFlagEncrypted) != 0) {
    throw InputError(fmt::format("{} is encrypted; encrypted archives are not supported", where));
  }
  if (entry.method != kMethodStored && entry.method != kMethodDeflate) {
    throw InputError(fmt::format(
        "{} uses compression method {}{}; only 0 (stored) and 8 (deflate) are supported", where,
        entry.method, method_name(entry.method)));
  }
  const std::uint64_t local = entry.local_header_offset;
  std::uint8_t header[kLocalHeaderSize] = {};
  const bool header_in_file = in_bounds(local, kLocalHeaderSize, file.size());
  if (header_in_file) file.read(local, header, kLocalHeaderSize);
  if (!header_in_file || get_u32(header) != kLocalHeaderSignature) {
    throw InputError(
        fmt::format("{}: truncated or corrupt zip archive: bad local header signature at offset {}",
                    where, local));
  }
  // The local sizes may be 0xffffffff placeholders (NumPy writes ZIP64 entries); the central
  // directory's are authoritative, so only the name and extra lengths are taken from here.
  const std::uint64_t data_offset =
      local + kLocalHeaderSize + get_u16(header + 26) + get_u16(header + 28);
  if (!in_bounds(data_offset, entry.compressed_size, file.size())) {
    throw InputError(fmt::format(
        "{}: truncated or corrupt zip archive: its data ({} bytes at offset {}) run past the end "
        "of the file ({} bytes)",
        where, entry.compressed_size, data_offset, file.size()));
  }

  if (entry.method == kMethodStored) {
    if (entry.compressed_size != entry.uncompressed_size) {
      throw InputError(fmt::format(
          "{}: corrupt entry: stored with {} bytes but states an uncompressed size of {}", where,
          entry.compressed_size, entry.uncompressed_size));
    }
    return read_npy(file, data_offset, entry.compressed_size, array_where,
                    CrcCheck{entry.crc, where});
  }

  // DEFLATE cannot expand more than about 1032:1; a larger claim would only waste memory.
  if (entry.uncompressed_size / 1032 > entry.compressed_size + 1) {
    throw InputError(
        fmt::format("{}: corrupt entry: {} compressed bytes cannot inflate to the {} bytes stated",
                    where, entry.compressed_size, entry.uncompressed_size));
  }
  InflateSource inflated(file, data_offset, entry.compressed_size, entry.uncompressed_size, where);
  torch::Tensor array;
  try {
    array = read_npy(inflated, 0, entry.uncompressed_size, array_where, std::nullopt);
  } catch (const InputError&) {
    // A header that does not parse is most likely damage: report that if the stream shows it.
    if (!inflated.failed()) inflated.finish(entry.crc);
    throw;
  }
  inflated.finish(entry.crc);
  return array;
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// A tensor ready to be written as .npy: its header and its contiguous little-endian data.
struct NpyBlob {
  std::string header;  ///< Magic string, version, length and padded dict.
  torch::Tensor data;  ///< Contiguous, on the CPU, in little-endian byte order.
  std::uint64_t nbytes = 0;
};

std::optional<std::string_view> descr_for(torch::ScalarType type) {
  switch (type) {
    case torch::kHalf:
      return "<f2";
    case torch::kFloat:
      return "<f4";
    case torch::kDouble:
      return "<f8";
    case torch::kChar:
      return "|i1";
    case torch::kShort:
      return "<i2";
    case torch::kInt:
      return "<i4";
    case torch::kLong:
      return "<i8";
    case torch::kByte:
      return "|u1";
    case torch::kBool:
      return "|b1";
    default:
      return std::nullopt;
  }
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
  const std::optional<std::string_view> descr = descr_for(array.scalar_type());
  if (!descr) {
    throw InputError(fmt::format("{}: cannot save dtype {} (supported: {})", where,
                                 c10::toString(array.scalar_type()), kSupportedDtypes));
  }
  NpyBlob blob;
  std::vector<std::int64_t> shape;
  try {
    // Materialise lazy negation before reading raw memory; contiguous() keeps the bit.
    blob.data = array.resolve_neg().contiguous();
    shape = blob.data.sizes().vec();
    blob.nbytes = static_cast<std::uint64_t>(blob.data.numel()) * blob.data.element_size();
    if (!host_is_little_endian() && blob.data.element_size() > 1 && blob.nbytes > 0) {
      blob.data = blob.data.clone();
      swap_byte_order(blob.data.data_ptr(), static_cast<std::size_t>(blob.data.numel()),
                      blob.data.element_size());
    }
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: cannot prepare the tensor for writing: {}", where,
                                 e.what_without_backtrace()));
  }

  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", *descr,
                                 python_shape(shape));
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

  blob.header.assign(reinterpret_cast<const char*>(kNpyMagic), sizeof kNpyMagic);
  blob.header += static_cast<char>(version1 ? 1 : 2);
  blob.header += '\0';
  if (version1) {
    put_u16(blob.header, static_cast<std::uint16_t>(dict.size()));
  } else {
    put_u32(blob.header, static_cast<std::uint32_t>(dict.size()));
  }
  blob.header += dict;
  return blob;
}

/// A binary output file; every failure throws naming the path.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path) : where_(path.string()) {
    errno = 0;
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) {
      throw InputError(fmt::format("{}: cannot open for writing: {}", where_, errno_text(errno)));
    }
  }

  void write(const void* data, std::uint64_t size) {
    if (size == 0) return;
    errno = 0;
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out_) throw InputError(fmt::format("{}: write failed: {}", where_, errno_text(errno)));
    offset_ += size;
  }
  void write(const std::string& bytes) { write(bytes.data(), bytes.size()); }

  void close() {
    errno = 0;
    out_.close();
    if (!out_) throw InputError(fmt::format("{}: write failed: {}", where_, errno_text(errno)));
  }

  [[nodiscard]] std::uint64_t offset() const { return offset_; }

 private:
  std::string where_;
  std::ofstream out_;
  std::uint64_t offset_ = 0;
};

// Beyond 2 GiB, use ZIP64 fields: some readers treat the 32-bit ones as signed.
constexpr std::uint64_t kZip32Limit = 0x7fffffff;
constexpr std::uint16_t kVersionMadeBy = (3 << 8) | 45;  // Unix, zip 4.5
constexpr std::uint16_t kVersionNeeded = 20;
constexpr std::uint16_t kVersionNeededZip64 = 45;
constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // fixed: reproducible files
constexpr std::uint32_t kUnixFileMode = 0100644u << 16;

/// Writes a stored (uncompressed) zip archive entry by entry.
class ZipWriter {
 public:
  explicit ZipWriter(const std::filesystem::path& path) : file_(path) {}

  void add(const std::string& name, const NpyBlob& blob) {
    Entry entry;
    entry.name = name;
    entry.size = blob.header.size() + blob.nbytes;
    entry.offset = file_.offset();
    entry.crc = crc32_update(crc32_update(0, blob.header.data(), blob.header.size()),
                             blob.nbytes > 0 ? blob.data.data_ptr() : nullptr, blob.nbytes);
    entry.utf8 = std::any_of(name.begin(), name.end(),
                             [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    const bool zip64 = entry.size > kZip32Limit;

    std::string local;
    put_u32(local, kLocalHeaderSignature);
    put_u16(local, zip64 ? kVersionNeededZip64 : kVersionNeeded);
    put_u16(local, entry.utf8 ? kFlagUtf8 : 0);
    put_u16(local, kMethodStored);
    put_u16(local, 0);  // time 00:00:00
    put_u16(local, kDosDate1980);
    put_u32(local, entry.crc);
    put_u32(local, zip64 ? kZip32Max : static_cast<std::uint32_t>(entry.size));
    put_u32(local, zip64 ? kZip32Max : static_cast<std::uint32_t>(entry.size));
    put_u16(local, static_cast<std::uint16_t>(name.size()));
    put_u16(local, zip64 ? 20 : 0);
    local += name;
    if (zip64) {
      put_u16(local, kZip64ExtraId);
      put_u16(local, 16);
      put_u64(local, entry.size);
      put_u64(local, entry.size);
    }
    file_.write(local);
    file_.write(blob.header);
    if (blob.nbytes > 0) file_.write(blob.data.data_ptr(), blob.nbytes);
    entries_.push_back(std::move(entry));
  }

  void finish() {
    const std::uint64_t directory_offset = file_.offset();
    for (const Entry& entry : entries_) {
      const bool big_size = entry.size > kZip32Limit;
      const bool big_offset = entry.offset > kZip32Limit;
      std::string extra;
      if (big_size || big_offset) {
        put_u16(extra, kZip64ExtraId);
        put_u16(extra, static_cast<std::uint16_t>((big_size ? 16 : 0) + (big_offset ? 8 : 0)));
        if (big_size) {
          put_u64(extra, entry.size);
          put_u64(extra, entry.size);
        }
        if (big_offset) put_u64(extra, entry.offset);
      }
      std::string record;
      put_u32(record, kCentralHeaderSignature);
      put_u16(record, kVersionMadeBy);
      put_u16(record, extra.empty() ? kVersionNeeded : kVersionNeededZip64);
      put_u16(record, entry.utf8 ? kFlagUtf8 : 0);
      put_u16(record, kMethodStored);
      put_u16(record, 0);
      put_u16(record, kDosDate1980);
      put_u32(record, entry.crc);
      put_u32(record, big_size ? kZip32Max : static_cast<std::uint32_t>(entry.size));
      put_u32(record, big_size ? kZip32Max : static_cast<std::uint32_t>(entry.size));
      put_u16(record, static_cast<std::uint16_t>(entry.name.size()));
      put_u16(record, static_cast<std::uint16_t>(extra.size()));
      put_u16(record, 0);  // comment length
      put_u16(record, 0);  // disk number
      put_u16(record, 0);  // internal attributes
      put_u32(record, kUnixFileMode);
      put_u32(record, big_offset ? kZip32Max : static_cast<std::uint32_t>(entry.offset));
      record += entry.name;
      record += extra;
      file_.write(record);
    }
    const std::uint64_t directory_end = file_.offset();
    const std::uint64_t directory_size = directory_end - directory_offset;
    const std::uint64_t count = entries_.size();
    const bool zip64 =
        count >= 0xffff || directory_offset > kZip32Limit || directory_size > kZip32Limit;

    std::string tail;
    if (zip64) {
      put_u32(tail, kZip64EndSignature);
      put_u64(tail, kZip64EndSize - 12);  // size of the rest of this record
      put_u16(tail, kVersionMadeBy);
      put_u16(tail, kVersionNeededZip64);
      put_u32(tail, 0);  // this disk
      put_u32(tail, 0);  // disk with the central directory
      put_u64(tail, count);
      put_u64(tail, count);
      put_u64(tail, directory_size);
      put_u64(tail, directory_offset);
      put_u32(tail, kZip64LocatorSignature);
      put_u32(tail, 0);  // disk with the ZIP64 end record
      put_u64(tail, directory_end);
      put_u32(tail, 1);  // total disks
    }
    put_u32(tail, kEndSignature);
    put_u16(tail, 0);
    put_u16(tail, 0);
    put_u16(tail, zip64 ? 0xffff : static_cast<std::uint16_t>(count));
    put_u16(tail, zip64 ? 0xffff : static_cast<std::uint16_t>(count));
    put_u32(tail, zip64 ? kZip32Max : static_cast<std::uint32_t>(directory_size));
    put_u32(tail, zip64 ? kZip32Max : static_cast<std::uint32_t>(directory_offset));
    put_u16(tail, 0);  // comment length
    file_.write(tail);
    file_.close();
  }

 private:
  struct Entry {
    std::string name;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;
    std::uint32_t crc = 0;
    bool utf8 = false;
  };

  OutputFile file_;
  std::vector<Entry> entries_;
};

}  // namespace

torch::Tensor load_npy(const std::filesystem::path& path) {
  FileSource file(path);
  return read_npy(file, 0, file.size(), path.string(), std::nullopt);
}

std::vector<NamedArray> load_npz(const std::filesystem::path& path) {
  const std::string where = path.string();
  FileSource file(path);
  check_zip_magic(file, where);
  const CentralDirectory directory = find_central_directory(file, where);
  const std::vector<ZipEntry> entries = read_central_directory(file, directory, where);
  std::vector<NamedArray> arrays;
  arrays.reserve(entries.size());
  constexpr std::string_view kSuffix = ".npy";
  for (const ZipEntry& entry : entries) {
    std::string name = entry.name;
    if (name.size() >= kSuffix.size() &&
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
      name.resize(name.size() - kSuffix.size());
    }
    torch::Tensor array = read_entry(file, entry, where, name);
    arrays.emplace_back(std::move(name), std::move(array));
  }
  return arrays;
}

void save_npy(const std::filesystem::path& path, const torch::Tensor& array) {
  const NpyBlob blob = prepare_npy(array, path.string());
  OutputFile file(path);
  file.write(blob.header);
  if (blob.nbytes > 0) file.write(blob.data.data_ptr(), blob.nbytes);
  file.close();
}

void save_npz(const std::filesystem::path& path, const std::vector<NamedArray>& arrays) {
  // Check every array before creating the file, so a rejected array leaves nothing behind.
  std::vector<NpyBlob> blobs;
  blobs.reserve(arrays.size());
  std::unordered_set<std::string> names;
  for (const auto& [name, array] : arrays) {
    const std::string where = fmt::format("{}: array '{}'", path.string(), printable(name, 200));
    if (!names.insert(name).second) {
      throw InputError(fmt::format("{}: the name is used more than once", where));
    }
    if (name.size() + 4 > 0xffff) {
      throw InputError(fmt::format("{}: the name is longer than 65531 bytes", where));
    }
    blobs.push_back(prepare_npy(array, where));
  }
  ZipWriter writer(path);
  for (std::size_t i = 0; i < arrays.size(); ++i) writer.add(arrays[i].first + ".npy", blobs[i]);
  writer.finish();
}

}  // namespace neurobench
