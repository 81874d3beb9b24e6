// SPDX-License-Identifier: Apache-2.0
// The one helper that quotes user text in messages: UTF-8 kept as written, control characters
// and bytes that are not UTF-8 escaped, bounded whatever the text's size; and the last guard on
// whole messages.
#include <catch2/catch.hpp>

#include <string>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

using neurobench::detail::message_text;
using neurobench::detail::path_text;
using neurobench::detail::printable;

TEST_CASE("printable keeps UTF-8 and escapes what a terminal would act on", "[util][messages]") {
  CHECK(printable("plain text") == "plain text");
  // A Persian clip path and a French word stay as written (they used to become '?').
  CHECK(printable("\xd8\xa7\xd9\x85\xdb\x8c\xd8\xaf/c_fa_000644.opus") ==
        "\xd8\xa7\xd9\x85\xdb\x8c\xd8\xaf/c_fa_000644.opus");
  CHECK(printable("aujourd\xe2\x80\x99hui") == "aujourd\xe2\x80\x99hui");
  CHECK(printable("a\x1b[31mred") == "a\\x1b[31mred");
  CHECK(printable(std::string("nul\0here", 8)) == "nul\\0here");
  CHECK(printable("tab\tline\nreturn\r.") == "tab\\tline\\nreturn\\r.");
  CHECK(printable("del\x7f") == "del\\x7f");
  CHECK(printable("c1\xc2\x9b") == "c1\\u009b");  // C1 CSI
  CHECK(printable("bidi\xe2\x80\xae"
                  "evil") == "bidi\\u202eevil");  // RIGHT-TO-LEFT OVERRIDE
  CHECK(printable("latin1 caf\xe9") == "latin1 caf\\xe9");
  CHECK(printable("cut \xe2\x82") == "cut \\xe2\\x82");  // a truncated sequence
  CHECK(printable("trailing  \n\n") == "trailing");
}

TEST_CASE("printable and path_text are bounded whatever the text's size", "[util][messages]") {
  const std::string huge(20U << 20U, 'x');  // a 20 MB path in a list file
  const std::string shown = printable(huge, 100);
  CHECK(shown == std::string(100, 'x') + "...");
  CHECK(path_text(huge).size() == neurobench::detail::kMaxPathChars + 3);
  // A cut never splits a character: 100 characters of two bytes each.
  std::string wide;
  for (int i = 0; i < 200; ++i) wide += "\xc3\xa9";
  CHECK(printable(wide, 100) == wide.substr(0, 200) + "...");
}

TEST_CASE("every error message is bounded and escaped before it is printed", "[util][messages]") {
  CHECK(message_text("two\nlines\tkept") == "two\nlines\tkept");
  CHECK(message_text("an \x1b]0;title\x07 escape") == "an \\x1b]0;title\\x07 escape");
  const std::string huge(5000, 'y');
  CHECK(message_text(huge) == std::string(4000, 'y') + "... (1000 more bytes)");
  // describe_error() hands out messages through it.
  const auto r = neurobench::describe_error(
      std::make_exception_ptr(neurobench::InputError("bad \x1b[2J" + std::string(10000, 'z'))));
  CHECK(r.message.size() < 4100);
  CHECK(r.message.rfind("bad \\x1b[2J", 0) == 0);
}
