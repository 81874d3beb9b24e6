// SPDX-License-Identifier: Apache-2.0
// The suite's statistics against SciPy and against closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <neurobench/errors.hpp>

#include "suite/statistics.hpp"

using neurobench::suite::incomplete_beta;
using neurobench::suite::student_t_cdf;
using neurobench::suite::student_t_quantile;
using neurobench::suite::summarize;
using neurobench::suite::welch_p_value;

TEST_CASE("Student's t quantile equals the closed forms for 1 and 2 degrees of freedom",
          "[suite][statistics]") {
  const double pi = std::acos(-1.0);
  for (const double p : {0.6, 0.9, 0.975, 0.995}) {
    // dof 1 is the Cauchy distribution: tan(pi (p - 1/2)).
    CHECK_THAT(student_t_quantile(p, 1), Catch::WithinRel(std::tan(pi * (p - 0.5)), 1e-13));
    // dof 2: (2p - 1) sqrt(2 / (4 p (1 - p))).
    CHECK_THAT(student_t_quantile(p, 2),
               Catch::WithinRel((2 * p - 1) * std::sqrt(2 / (4 * p * (1 - p))), 1e-13));
  }
}

TEST_CASE("Student's t quantile agrees with SciPy", "[suite][statistics]") {
  // /usr/bin/python3 -c "from scipy.stats import t; print(repr(t.ppf(P, DOF)))"
  // SciPy's own t.ppf is accurate to about 1e-11 relative (for dof 2 it gives
  // 4.302652729911275 where the closed form gives 4.302652729749461), hence 1e-9.
  struct Case {
    double p, dof, scipy;
  };
  const Case cases[] = {{0.975, 1, 12.706204736432095}, {0.975, 2, 4.302652729911275},
                        {0.975, 4, 2.7764451051977987}, {0.975, 9, 2.2621571627409915},
                        {0.975, 29, 2.045229642132703}, {0.995, 2, 9.92484320091807},
                        {0.9, 5, 1.4758840487820273},   {0.025, 3, -3.1824463052842638}};
  for (const auto& c : cases) {
    INFO("p " << c.p << ", dof " << c.dof);
    CHECK_THAT(student_t_quantile(c.p, c.dof), Catch::WithinRel(c.scipy, 1e-9));
  }
  CHECK(student_t_quantile(0.5, 7) == 0.0);
}

TEST_CASE("the t CDF and the incomplete beta agree with SciPy", "[suite][statistics]") {
  // /usr/bin/python3 -c "from scipy.stats import t; print(repr(t.cdf(1.5, 3.5)), \
  //   repr(t.cdf(-2.0, 7)))"; from scipy.special import betainc; betainc(2.5, 0.5, 0.3)
  CHECK_THAT(student_t_cdf(1.5, 3.5), Catch::WithinRel(0.8910909064923275, 1e-12));
  CHECK_THAT(student_t_cdf(-2.0, 7), Catch::WithinRel(0.04280966428148798, 1e-12));
  CHECK_THAT(incomplete_beta(2.5, 0.5, 0.3), Catch::WithinRel(0.01892712407194565, 1e-12));
  CHECK(incomplete_beta(2, 3, 0) == 0.0);
  CHECK(incomplete_beta(2, 3, 1) == 1.0);
}

TEST_CASE("arguments out of the domain are a UsageError", "[suite][statistics]") {
  CHECK_THROWS_AS(student_t_quantile(1.0, 3), neurobench::UsageError);
  CHECK_THROWS_AS(student_t_quantile(0.975, 0), neurobench::UsageError);
  CHECK_THROWS_WITH(incomplete_beta(-1, 1, 0.5), Catch::Contains("out of the domain"));
}

TEST_CASE("summarize gives mean, sample sd and the 95% t interval as SciPy does",
          "[suite][statistics]") {
  // a = np.array([1., 2., 3., 4.]); a.mean(), a.std(ddof=1),
  // t.interval(0.95, 3, loc=a.mean(), scale=a.std(ddof=1) / 2)
  const auto s = summarize({1, 2, 3, 4});
  CHECK(s.n == 4);
  CHECK(s.mean == 2.5);
  REQUIRE(s.sd);
  CHECK_THAT(*s.sd, Catch::WithinRel(1.2909944487358056, 1e-14));
  REQUIRE(s.ci95_half_width);
  CHECK_THAT(s.mean - *s.ci95_half_width, Catch::WithinRel(0.445739743239121, 1e-9));
  CHECK_THAT(s.mean + *s.ci95_half_width, Catch::WithinRel(4.5542602567608785, 1e-9));

  const auto one = summarize({7});
  CHECK(one.n == 1);
  CHECK(one.mean == 7);
  CHECK_FALSE(one.sd);
  CHECK_FALSE(one.ci95_half_width);
  CHECK(summarize({}).n == 0);
  // Equal values: no spread, an interval of width 0.
  const auto same = summarize({0.1, 0.1, 0.1});
  CHECK(*same.sd == Approx(0).margin(1e-16));
}

TEST_CASE("Welch's p-value agrees with SciPy's ttest_ind(equal_var=False)",
          "[suite][statistics]") {
  // ttest_ind([1, 2, 3, 4], [2.5, 3.5, 4.0, 5.5, 6.0], equal_var=False).pvalue
  const auto a = summarize({1, 2, 3, 4});
  const auto b = summarize({2.5, 3.5, 4.0, 5.5, 6.0});
  const auto p = welch_p_value(a, b);
  REQUIRE(p);
  CHECK_THAT(*p, Catch::WithinRel(0.08987576053258865, 1e-9));
  CHECK_FALSE(welch_p_value(summarize({1}), b));
  CHECK_FALSE(welch_p_value(summarize({1, 1}), summarize({2, 2})));
  // Rounding noise is no spread.
  CHECK_FALSE(welch_p_value(summarize({0.881, 0.881}), summarize({0.881, 0.881 + 2e-16})));
}
