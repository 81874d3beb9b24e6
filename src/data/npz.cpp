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
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <zip.h>
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

void put_u16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8);
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((v >> shift) & 0xff);
}


// ---------------------------------------------------------------------------------------------
// Reading bytes.

/// Bytes to read an array from, in order: a file or an .npz entry; every read is exact or throws.
class ByteReader {
 public:
  virtual ~ByteReader() = default;
  /// Copies the next `count` bytes to `destination`.
  virtual void read(void* destination, std::uint64_t count) = 0;
};

/// A binary input file, read straight into the caller's memory.
class FileReader final : public ByteReader {
 public:
  explicit FileReader(const std::filesystem::path& path) : where_(path.string()) {
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

  [[nodiscard]] std::uint64_t size() const { return size_; }

  void read(void* destination, std::uint64_t count) override {
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

 private:
  std::string where_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
  std::ifstream in_;
};

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

/// Reads the .npy array held in the next `size` bytes of `source`.
///
/// Reads no further than the data the header describes: bytes after them are left unread.
torch::Tensor read_npy(ByteReader& source, std::uint64_t size, const std::string& where) {
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

  // A header shorter than 2 bytes never parses, so the data start after the prefix read above.
  assert(layout.data_offset >= prefix_size);
  torch::Tensor stored = allocate_for(header, where);
  source.read(header.nbytes > 0 ? stored.data_ptr() : nullptr, header.nbytes);
  return finish_tensor(std::move(stored), header, where);
}

// ---------------------------------------------------------------------------------------------
// Reading .npz (zip) archives, through libzip.

/// Closes a libzip archive opened for reading, or discards one being written.
struct ArchiveDiscarder {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using Archive = std::unique_ptr<zip_t, ArchiveDiscarder>;

/// libzip's own words for an error, e.g. "Read error: No such file or directory".
std::string libzip_text(zip_error_t* error) { return zip_error_strerror(error); }

/// Throws unless the file starts like a zip archive, saying what it looks like instead.
void check_zip_magic(const std::uint8_t* start, std::uint64_t count, const std::string& where) {
  if (starts_with_bytes(start, count, "PK\x03\x04") ||
      starts_with_bytes(start, count, std::string_view("PK\x05\x06", 4))) {
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
Archive open_archive(const std::filesystem::path& path, int flags, zip_error_t& error) {
  zip_source_t* source = zip_source_file_create(path.c_str(), 0, -1, &error);
  if (source == nullptr) return nullptr;
  zip_t* archive = zip_open_from_source(source, ZIP_RDONLY | flags, &error);
  if (archive == nullptr) zip_source_free(source);
  return Archive(archive);
}

/// The InputError for a central directory that libzip refused.
[[noreturn]] void throw_open_error(const std::string& where, zip_error_t& error) {
  switch (zip_error_code_zip(&error)) {
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
    case ZIP_ER_OPEN:
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
    case ZIP_ER_TELL:
      throw InputError(fmt::format("{}: cannot read: {}", where, libzip_text(&error)));
    default:
      throw InputError(fmt::format("{}: corrupt zip archive: {}", where, libzip_text(&error)));
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
    throw InputError(fmt::format(
        "{}: corrupt entry: stored with {} bytes but states an uncompressed size of {}", where,
        stat.comp_size, stat.size));
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
      : size_(stat.size), crc_(stat.crc), where_(std::move(where)) {
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
              "{}: corrupt entry: inflates to {} bytes, but its directory record states {}",
              where_, position_, size_));
        }
        throw InputError(fmt::format(
            "{}: corrupt entry: CRC-32 mismatch (directory states {:08x}, the data differ)",
            where_, crc_));
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
  std::string where_;
  std::uint64_t position_ = 0;
  bool failed_ = false;
};

/// The array in entry `index`, after checking its method, sizes, length and CRC-32.
NamedArray read_entry(zip_t* archive, std::uint64_t index, std::uint64_t file_size,
                      const std::string& archive_name) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, ZIP_FL_ENC_RAW, &stat) != 0) {
    throw InputError(fmt::format("{}: corrupt zip archive: entry {}: {}", archive_name, index + 1,
                                 zip_strerror(archive)));
  }
  // Names are taken as stored (NumPy writes UTF-8), without libzip's CP437 guess.
  std::string name = stat.name != nullptr ? stat.name : "";
  const std::string where = fmt::format("{}: entry '{}'", archive_name, printable(name, 200));
  check_entry(stat, file_size, where);
  constexpr std::string_view kSuffix = ".npy";
  if (name.size() >= kSuffix.size() &&
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    name.resize(name.size() - kSuffix.size());
  }
  const std::string array_where =
      fmt::format("{}: array '{}'", archive_name, printable(name, 200));

  EntryReader entry(archive, index, stat, where);
  torch::Tensor array;
  try {
    array = read_npy(entry, stat.size, array_where);
  } catch (const InputError&) {
    // A header that does not parse is most likely damage: report that if the entry shows it.
    if (!entry.failed()) entry.finish();
    throw;
  }
  entry.finish();
  return {std::move(name), std::move(array)};
}

std::vector<NamedArray> read_entries(zip_t* archive, std::uint64_t file_size,
                                     const std::string& where) {
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  std::vector<NamedArray> arrays;
  arrays.reserve(static_cast<std::size_t>(std::max<zip_int64_t>(count, 0)));
  for (zip_int64_t i = 0; i < count; ++i) {
    arrays.push_back(read_entry(archive, static_cast<std::uint64_t>(i), file_size, where));
  }
  return arrays;
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

constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // fixed: reproducible files
constexpr std::uint32_t kUnixFileMode = 0100644u << 16;

/// Writes `bytes` to `path` through a temporary file beside it, renamed over it when complete.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  std::random_device random;
  std::filesystem::path temporary = path;
  temporary += fmt::format(".{:08x}{:08x}.tmp", random(), random());
  errno = 0;
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw InputError(
        fmt::format("{}: cannot open for writing: {}", path.string(), errno_text(errno)));
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  std::string failure = !out ? errno_text(errno) : "";
  std::error_code ec;
  if (out) std::filesystem::rename(temporary, path, ec);
  if (ec) failure = ec.message();
  if (!failure.empty()) {
    std::filesystem::remove(temporary, ec);
    throw InputError(fmt::format("{}: write failed: {}", path.string(), failure));
  }
}

/// Adds one stored entry whose bytes are the blob's header and data, read by libzip at close.
void add_entry(zip_t* archive, const std::string& name, const NpyBlob& blob,
               const std::string& where) {
  zip_buffer_fragment_t fragments[2] = {
      {reinterpret_cast<zip_uint8_t*>(const_cast<char*>(blob.header.data())), blob.header.size()},
      {blob.nbytes > 0 ? static_cast<zip_uint8_t*>(blob.data.data_ptr()) : nullptr, blob.nbytes}};
  zip_source_t* source = zip_source_buffer_fragment(archive, fragments, blob.nbytes > 0 ? 2 : 1, 0);
  if (source == nullptr) {
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
  const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(source);
    if (zip_error_code_zip(zip_get_error(archive)) == ZIP_ER_INVAL) {
      throw InputError(fmt::format("{}: the name is not valid UTF-8", where));
    }
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
  const auto entry = static_cast<zip_uint64_t>(index);
  if (zip_set_file_compression(archive, entry, ZIP_CM_STORE, 0) != 0 ||
      zip_file_set_dostime(archive, entry, 0, kDosDate1980, 0) != 0 ||
      zip_file_set_external_attributes(archive, entry, 0, ZIP_OPSYS_UNIX, kUnixFileMode) != 0) {
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
}

/// Writes the archive: libzip writes a temporary file beside `path` and renames it when complete.
void close_archive(Archive archive, const std::string& where) {
  if (zip_close(archive.get()) == 0) {
    (void)archive.release();  // zip_close freed it
    return;
  }
  zip_error_t* error = zip_get_error(archive.get());
  switch (zip_error_code_zip(error)) {
    case ZIP_ER_TMPOPEN:
    case ZIP_ER_OPEN:
      throw InputError(fmt::format("{}: cannot open for writing: {}", where, libzip_text(error)));
    default:
      throw InputError(fmt::format("{}: write failed: {}", where, libzip_text(error)));
  }
}

}  // namespace

torch::Tensor load_npy(const std::filesystem::path& path) {
  FileReader file(path);
  return read_npy(file, file.size(), path.string());
}

std::vector<NamedArray> load_npz(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::uint64_t file_size = 0;
  {
    FileReader file(path);
    file_size = file.size();
    std::uint8_t start[sizeof kNpyMagic] = {};
    const std::uint64_t count = std::min<std::uint64_t>(file_size, sizeof start);
    file.read(start, count);
    check_zip_magic(start, count, where);
  }
  zip_error_t error;
  zip_error_init(&error);
  std::unique_ptr<zip_error_t, void (*)(zip_error_t*)> error_guard(&error, zip_error_fini);
  if (const Archive archive = open_archive(path, ZIP_CHECKCONS, error)) {
    return read_entries(archive.get(), file_size, where);
  }
  // libzip's consistency check failed, or the directory is unreadable. Read the entries without
  // the check, so that damage inside one is reported naming it.
  const std::string strict_error = libzip_text(&error);
  zip_error_fini(&error);
  zip_error_init(&error);
  const Archive archive = open_archive(path, 0, error);
  if (!archive) throw_open_error(where, error);
  (void)read_entries(archive.get(), file_size, where);
  throw InputError(fmt::format(
      "{}: corrupt zip archive: a bad local header signature, a local header that disagrees with "
      "its central directory record, or stray bytes around the central directory (libzip: {})",
      where, strict_error));
}

void save_npy(const std::filesystem::path& path, const torch::Tensor& array) {
  const NpyBlob blob = prepare_npy(array, path.string());
  OutputFile file(path);
  file.write(blob.header);
  if (blob.nbytes > 0) file.write(blob.data.data_ptr(), blob.nbytes);
  file.close();
}

void save_npz(const std::filesystem::path& path, const std::vector<NamedArray>& arrays) {
  const std::string where = path.string();
  // Check every array before creating the file, so a rejected array leaves nothing behind.
  std::vector<NpyBlob> blobs;
  blobs.reserve(arrays.size());
  std::unordered_set<std::string> names;
  for (const auto& [name, array] : arrays) {
    const std::string array_where = fmt::format("{}: array '{}'", where, printable(name, 200));
    if (!names.insert(name).second) {
      throw InputError(fmt::format("{}: the name is used more than once", array_where));
    }
    if (name.size() + 4 > 0xffff) {
      throw InputError(fmt::format("{}: the name is longer than 65531 bytes", array_where));
    }
    if (name.find('\0') != std::string::npos) {
      throw InputError(fmt::format("{}: the name holds a NUL byte", array_where));
    }
    blobs.push_back(prepare_npy(array, array_where));
  }
  if (arrays.empty()) {
    // libzip deletes an archive left without entries; NumPy's empty archive is its end record.
    write_file_atomically(path, std::string_view("PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 22));
    return;
  }
  zip_error_t error;
  zip_error_init(&error);
  std::unique_ptr<zip_error_t, void (*)(zip_error_t*)> error_guard(&error, zip_error_fini);
  zip_source_t* file = zip_source_file_create(path.c_str(), 0, -1, &error);
  zip_t* opened = file != nullptr ? zip_open_from_source(file, ZIP_CREATE | ZIP_TRUNCATE, &error)
                                  : nullptr;
  if (opened == nullptr) {
    zip_source_free(file);
    throw InputError(fmt::format("{}: cannot open for writing: {}", where, libzip_text(&error)));
  }
  Archive archive(opened);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    add_entry(archive.get(), arrays[i].first + ".npy", blobs[i],
              fmt::format("{}: array '{}'", where, printable(arrays[i].first, 200)));
  }
  close_archive(std::move(archive), where);
}

}  // namespace neurobench
