// SPDX-License-Identifier: Apache-2.0
// Student's t quantile through the regularised incomplete beta function: the CDF of t is
// 1 - I_{dof/(dof+t^2)}(dof/2, 1/2) / 2 for t >= 0, and the quantile is found by bisection on it.
#include "suite/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench::suite {
namespace {

// The continued fraction of I_x(a, b) (the one that converges fast for x < (a+1)/(a+b+2)),
// evaluated with the modified Lentz method.
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  const auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double result = d;
  for (int m = 1; m <= 10000; ++m) {
    const double dm = m;
    // The even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    const double even = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    result *= d * c;
    // The odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    const double odd = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double step = d * c;
    result *= step;
    if (std::fabs(step - 1.0) < kEpsilon) return result;
  }
  return result;  // not reached for the arguments the suite uses (dof up to millions)
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) {
    throw UsageError(fmt::format("incomplete_beta: a = {}, b = {}, x = {} is out of the domain "
                                 "(a > 0, b > 0, 0 <= x <= 1)",
                                 a, b, x));
  }
  if (x == 0 || x == 1) return x;
  // x^a (1-x)^b / (a B(a, b)), computed through logarithms.
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  // The fraction converges fast below (a+1)/(a+b+2); above, the symmetry
  // I_x(a, b) = 1 - I_{1-x}(b, a) brings the argument there.
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double dof) {
  if (!(dof > 0) || std::isnan(t)) {
    throw UsageError(fmt::format("student_t_cdf: t = {}, dof = {} is out of the domain", t, dof));
  }
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double dof) {
  if (!(p > 0) || !(p < 1) || !(dof > 0)) {
    throw UsageError(fmt::format(
        "student_t_quantile: p = {}, dof = {} is out of the domain (0 < p < 1, dof > 0)", p, dof));
  }
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1.0 - p, dof);
  // The upper tail 1 - p, compared with the tail from the incomplete beta directly: 1 - cdf
  // would lose digits for p close to 1.
  const double tail = 1.0 - p;
  const auto upper_tail = [dof](double t) {
    return 0.5 * incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
  };
  double low = 0.0;
  double high = 1.0;
  while (upper_tail(high) > tail) {
    low = high;
    high *= 2;
    if (high > 1e300) return std::numeric_limits<double>::infinity();
  }
  // Bisection to the last bit: the tail decreases in t.
  for (int i = 0; i < 2000 && high - low > 0; ++i) {
    const double mid = low + (high - low) / 2;
    if (mid <= low || mid >= high) break;
    if (upper_tail(mid) > tail) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low + (high - low) / 2;
}

SampleStats summarize(const std::vector<double>& values) {
  SampleStats s;
  s.n = values.size();
  if (s.n == 0) return s;
  double sum = 0;
  for (const double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  // Two passes: the sum of squared deviations from the mean, not E[x^2] - mean^2.
  double squares = 0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(squares / static_cast<double>(s.n - 1));
  s.sd = sd;
  s.ci95_half_width =
      student_t_quantile(0.975, static_cast<double>(s.n - 1)) * sd / std::sqrt(double(s.n));
  return s;
}

std::optional<double> welch_p_value(const SampleStats& a, const SampleStats& b) {
  if (!a.sd || !b.sd) return std::nullopt;
  const double va = *a.sd * *a.sd / static_cast<double>(a.n);
  const double vb = *b.sd * *b.sd / static_cast<double>(b.n);
  // A spread of rounding noise (1e-16 of the means) gives meaningless p-values such as 1e-30.
  if (std::sqrt(va + vb) <= 1e-12 * std::max(std::fabs(a.mean), std::fabs(b.mean))) {
    return std::nullopt;
  }
  const double t = (b.mean - a.mean) / std::sqrt(va + vb);
  const double na = static_cast<double>(a.n - 1);
  const double nb = static_cast<double>(b.n - 1);
  const double dof = (va + vb) * (va + vb) / (va * va / na + vb * vb / nb);
  // Two tails: I_{dof/(dof+t^2)}(dof/2, 1/2) is the probability of |T| >= |t|.
  return incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
}

}  // namespace neurobench::suite
