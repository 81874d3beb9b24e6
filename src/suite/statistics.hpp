// SPDX-License-Identifier: Apache-2.0
// Statistics of a suite's repeats: mean, sample standard deviation and a confidence interval of
// the mean with Student's t quantile (docs/suites.md, "Summary"). Private to `neurobench suite`.
#pragma once

#include <optional>
#include <vector>

namespace neurobench::suite {

/// The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1, to about
/// 1e-14 relative. Throws UsageError for arguments out of that domain.
[[nodiscard]] double incomplete_beta(double a, double b, double x);

/// The cumulative distribution function of Student's t with `dof` degrees of freedom (> 0) at
/// `t`. Throws UsageError for dof <= 0 or a t that is NaN.
[[nodiscard]] double student_t_cdf(double t, double dof);

/// The quantile (inverse CDF) of Student's t with `dof` degrees of freedom (> 0) at probability
/// `p`, 0 < p < 1: `student_t_quantile(0.975, 2)` is 4.302652729911275. Throws UsageError for
/// arguments out of that domain.
[[nodiscard]] double student_t_quantile(double p, double dof);

/// What summarize() makes of a sample.
struct SampleStats {
  std::size_t n = 0;  ///< Values.
  double mean = 0;    ///< Arithmetic mean (0 when n is 0).
  /// Sample standard deviation (divisor n - 1); unset when n < 2.
  std::optional<double> sd;
  /// Half the width of the 95% confidence interval of the mean, t(0.975, n - 1) * sd / sqrt(n);
  /// unset when n < 2.
  std::optional<double> ci95_half_width;
};

/// Mean, sample standard deviation and 95% confidence interval of `values` (finite numbers).
[[nodiscard]] SampleStats summarize(const std::vector<double>& values);

/// The two-sided p-value of Welch's t-test that `a` and `b` have the same mean: t = (mean_b -
/// mean_a) / sqrt(sd_a^2/n_a + sd_b^2/n_b) with the Welch-Satterthwaite degrees of freedom.
/// Unset when either has fewer than 2 values, or the spread sqrt(sd_a^2/n_a + sd_b^2/n_b) is at
/// most 1e-12 of the larger |mean| (no spread but rounding noise).
[[nodiscard]] std::optional<double> welch_p_value(const SampleStats& a, const SampleStats& b);

}  // namespace neurobench::suite
