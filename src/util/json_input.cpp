// SPDX-License-Identifier: Apache-2.0
#include "util/json_input.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::detail {

TextPosition position_of(std::string_view text, std::size_t offset) {
  TextPosition at;
  at.offset = std::min(offset, text.size());
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at.offset; ++i) {
    if (text[i] == '\n') {
      ++at.line;
      line_start = i + 1;
    }
  }
  at.column = at.offset - line_start + 1;
  return at;
}

bool find_too_deep(std::string_view text, std::size_t max_depth, bool comments,
                   TextPosition& where) {
  std::size_t depth = 0;
  std::size_t line = 1;
  std::size_t line_start = 0;
  const std::size_t n = text.size();
  auto newline = [&](std::size_t i) {
    ++line;
    line_start = i + 1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\n') {
      newline(i);
    } else if (c == '"') {  // a string: brackets in it do not count
      for (++i; i < n && text[i] != '"'; ++i) {
        if (text[i] == '\\') {
          ++i;
        } else if (text[i] == '\n') {
          newline(i);
        }
      }
    } else if (c == '/' && comments && i + 1 < n && text[i + 1] == '/') {
      while (i + 1 < n && text[i + 1] != '\n') ++i;  // the newline is counted above
    } else if (c == '/' && comments && i + 1 < n && text[i + 1] == '*') {
      for (i += 2; i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/'); ++i) {
        if (text[i] == '\n') newline(i);
      }
      ++i;  // past the '/' of "*/"
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        where = TextPosition{line, i - line_start + 1, i};
        return true;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

namespace {

// Builds the Json value from nlohmann's SAX events. nlohmann's own builder inserts each key of
// an ordered_json object with a search of the keys before it, which makes an object of n keys
// cost n^2/2 string comparisons (64,000 metrics: seconds); here a key is appended, and a key
// given twice is found (and refused) with a hash map once an object has more than a few keys.
class Builder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  Builder(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return put(Json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return put(Json(v)); }
  bool string(string_t& v) { return put(Json(std::move(v))); }
  bool binary(binary_t& v) { return put(Json::binary(v)); }  // not in JSON text

  bool start_object(std::size_t /*size*/) { return open(Json::object()); }
  bool start_array(std::size_t /*size*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& name) {
    // nlohmann's parser and Python's json let the last of two values win without a word: in a
    // config that silently drops a setting the user wrote, so a repeated key is refused.
    if (find_key(frames_.back(), name)) {
      throw InputError(fmt::format(
          "{}: the key \"{}\" is given twice in {}; each key may appear once in an object",
          source_, printable(name, 60), object_path()));
    }
    key_ = std::move(name);
    return true;
  }

  bool parse_error(std::size_t offset, const std::string& token, const Json::exception& e) {
    if (e.id == 406) {  // out_of_range.406: number overflow
      const std::size_t start = offset >= token.size() ? offset - token.size() : 0;
      const TextPosition at = position_of(text_, start);
      throw InputError(fmt::format(
          "{}: line {}, column {}: the number {} is beyond the range of a double (about "
          "1.8e308); JSON numbers in neurobench's files must be finite",
          source_, at.line, at.column, printable(token, 40)));
    }
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line ..."
    if (const auto end = what.find("] "); what.rfind("[json.exception.", 0) == 0 &&
                                          end != std::string::npos) {
      what.erase(0, end + 2);
    }
    throw InputError(fmt::format("{}: not valid JSON: {}", source_, printable(what, 300)));
  }

  [[nodiscard]] Json release() { return std::move(root_); }

 private:
  struct Frame {
    Json* container;
    std::string name;  // how its parent holds it: "\"key\"" or "[index]"; empty at the root
    // Its keys, made once the object has grown past kLinearKeys.
    std::unique_ptr<std::unordered_set<std::string>> keys;
  };

  static constexpr std::size_t kLinearKeys = 16;

  // Places `value` in the open container (or as the document) and returns where it is; `name`
  // is set to how the container holds it.
  Json* place(Json value, std::string* name = nullptr) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *frames_.back().container;
    if (parent.is_array()) {
      auto& array = parent.get_ref<Json::array_t&>();
      if (name != nullptr) *name = fmt::format("[{}]", array.size());
      array.push_back(std::move(value));
      return &array.back();
    }
    auto& object = parent.get_ref<Json::object_t&>();
    if (name != nullptr) *name = fmt::format("\"{}\"", printable(key_, 60));
    object.emplace_back(std::move(key_), std::move(value));  // the vector's: no key search
    return &object.back().second;
  }

  bool put(Json value) {
    place(std::move(value));
    return true;
  }

  bool open(Json container) {
    std::string name;
    Json* where = place(std::move(container), &name);
    frames_.push_back(Frame{where, std::move(name), nullptr});
    return true;
  }

  // The open object, for messages: "the top-level object" or "the object at "a" > [2]".
  [[nodiscard]] std::string object_path() const {
    if (frames_.size() <= 1) return "the top-level object";
    std::string path;
    for (std::size_t i = 1; i < frames_.size(); ++i) {
      if (i > 1) path += " > ";
      path += frames_[i].name;
    }
    return "the object at " + path;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  // Whether the frame's object has `name` among its keys so far (if not, it is recorded).
  static bool find_key(Frame& frame, const std::string& name) {
    const auto& object = frame.container->get_ref<const Json::object_t&>();
    if (!frame.keys) {
      if (object.size() < kLinearKeys) {
        return std::any_of(object.begin(), object.end(),
                           [&](const auto& entry) { return entry.first == name; });
      }
      frame.keys = std::make_unique<std::unordered_set<std::string>>();
      for (const auto& entry : object) frame.keys->insert(entry.first);
    }
    return !frame.keys->insert(name).second;
  }

  std::string_view text_;
  const std::string& source_;
  Json root_;
  std::vector<Frame> frames_;
  std::string key_;
};

}  // namespace

Json parse_user_json(std::string_view text, const std::string& source, bool comments) {
  TextPosition at;
  if (find_too_deep(text, kMaxJsonDepth, comments, at)) {
    throw InputError(fmt::format(
        "{}: line {}, column {} (byte {}): arrays and objects nested more than {} deep; "
        "neurobench reads JSON nested at most {} levels",
        source, at.line, at.column, at.offset, kMaxJsonDepth, kMaxJsonDepth));
  }
  Builder builder(text, source);
  Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                  /*strict=*/true, /*ignore_comments=*/comments);
  return builder.release();
}

}  // namespace neurobench::detail
