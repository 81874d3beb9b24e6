// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/format.hpp>

#include <catch2/catch.hpp>

#include "reporters/report_support.hpp"

TEST_CASE("numbers are shown as integers, 6 digits, or scientific with 3 digits", "[report]") {
  REQUIRE(neurobench::format_number(0) == "0");
  REQUIRE(neurobench::format_number(-0.0) == "0");
  REQUIRE(neurobench::format_number(828712) == "828712");
  REQUIRE(neurobench::format_number(0.9153) == "0.9153");
  REQUIRE(neurobench::format_number(612843.7) == "612844");
  REQUIRE(neurobench::format_number(1.9e6) == "1.9e6");
  REQUIRE(neurobench::format_number(3252224) == "3.25e6");
  REQUIRE(neurobench::format_number(0.000289) == "2.89e-4");
  REQUIRE(neurobench::format_number(-1.5e-5) == "-1.5e-5");
}
