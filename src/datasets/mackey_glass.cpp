// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/mackey_glass.hpp>

#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

// The generator uses only +, -, * and / (no libm), so that IEEE-754 arithmetic fixes every bit
// of the series; a fused multiply-add would change the last bits, and chaos amplifies them
// (docs/mackey-glass.md). Forbid contraction wherever the compiler would otherwise use FMA.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "util/text.hpp"

namespace neurobench::datasets {

using detail::shape_string;

namespace {

// NeuroBench's mackey_glass_parameters.csv: tau, Lyapunov time, constant past.
struct TauRow {
  int tau;
  double lyaptime;
  double constant_past;
};
constexpr std::array<TauRow, 14> kTauTable{{
    {17, 197, 0.7206597},
    {18, 138, 0.7744313},
    {19, 315, 0.7783468},
    {20, 131, 0.9225991},
    {21, 191, 0.9479431},
    {22, 119, 0.5455960},
    {23, 106, 0.8622247},
    {24, 97, 0.3259660},
    {25, 98, 0.8297825},
    {26, 104, 1.0033490},
    {27, 112, 0.6491406},
    {28, 119, 1.0957495},
    {29, 131, 0.9256179},
    {30, 139, 0.2713639},
}};

// Propagations of the initial derivative discontinuity that the integrator lands on: at k tau
// the solution's derivative of order k + 1 jumps; from the fifth derivative on, a jump inside
// a step no longer lowers the order of classical Runge-Kutta.
constexpr int kBreakpoints = 5;


[[noreturn]] void bad_option(const char* field, const std::string& expected, double got) {
  throw UsageError(fmt::format("MackeyGlassOptions.{} must be {}, got {}", field, expected, got));
}

// Python's round(): to the nearest integer, ties to even (std::nearbyint in the default
// rounding mode).
int64_t python_round(double v) { return static_cast<int64_t>(std::nearbyint(v)); }

double power(double x, int n) {
  double result = 1.0;
  double base = x;
  for (unsigned e = static_cast<unsigned>(n); e != 0; e >>= 1) {
    if ((e & 1U) != 0) result *= base;
    base *= base;
  }
  return result;
}

// The solution so far: nodes (t, x, dx/dt) in increasing t. Queries come in non-decreasing
// order, so a cursor replaces a search and nodes behind it are dropped now and then.
class History {
 public:
  explicit History(double past) : past_(past) {}

  void push(double t, double x, double dx) {
    t_.push_back(t);
    x_.push_back(x);
    f_.push_back(dx);
  }

  // x(s) by cubic Hermite interpolation between the two nodes around s; the constant past
  // for s <= 0 (the right-hand derivative stored at t = 0 belongs to the solution, not to
  // the past, so the jump of dx/dt at 0 never enters an interpolation).
  double at(double s) {
    if (s <= 0.0) return past_;
    assert(!t_.empty() && s <= t_.back());
    while (cursor_ + 2 < t_.size() && t_[cursor_ + 1] < s) ++cursor_;
    const std::size_t i = cursor_;
    const double h = t_[i + 1] - t_[i];
    const double u = (s - t_[i]) / h;
    const double v = 1.0 - u;
    const double h00 = (1.0 + 2.0 * u) * v * v;
    const double h10 = u * v * v;
    const double h01 = u * u * (3.0 - 2.0 * u);
    const double h11 = -u * u * v;
    return h00 * x_[i] + h10 * h * f_[i] + h01 * x_[i + 1] + h11 * h * f_[i + 1];
  }

  void forget_behind_cursor() {
    if (cursor_ < 65536 || cursor_ * 2 < t_.size()) return;
    const auto n = static_cast<std::ptrdiff_t>(cursor_);
    t_.erase(t_.begin(), t_.begin() + n);
    x_.erase(x_.begin(), x_.begin() + n);
    f_.erase(f_.begin(), f_.begin() + n);
    cursor_ = 0;
  }

 private:
  double past_;
  std::vector<double> t_, x_, f_;
  std::size_t cursor_ = 0;
};

class Integrator {
 public:
  explicit Integrator(const MackeyGlassOptions& o)
      : tau_(o.tau), beta_(o.beta), gamma_(o.gamma), n_(o.exponent), history_(o.constant_past) {
    x_ = o.constant_past;
    history_.push(0.0, x_, rhs(x_, o.constant_past));
  }

  double x() const { return x_; }

  // One classical Runge-Kutta step from t to t_next; x(t - tau) from the history.
  void step(double t, double t_next) {
    const double h = t_next - t;
    const double xd0 = history_.at(t - tau_);
    const double xdm = history_.at((t + 0.5 * h) - tau_);
    const double xd1 = history_.at(t_next - tau_);
    const double k1 = rhs(x_, xd0);
    const double k2 = rhs(x_ + 0.5 * h * k1, xdm);
    const double k3 = rhs(x_ + 0.5 * h * k2, xdm);
    const double k4 = rhs(x_ + h * k3, xd1);
    // Compensated (Kahan) summation of the increments: x is O(1), an increment O(h), so plain
    // addition would lose the increment's low bits at every one of ~10^6 steps.
    const double increment = h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4) - carry_;
    const double next = x_ + increment;
    carry_ = (next - x_) - increment;
    x_ = next;
    history_.push(t_next, x_, rhs(x_, xd1));
    history_.forget_behind_cursor();
  }

 private:
  double rhs(double x, double xd) const { return beta_ * xd / (1.0 + power(xd, n_)) - gamma_ * x; }

  double tau_, beta_, gamma_;
  int n_;
  History history_;
  double x_ = 0.0;
  double carry_ = 0.0;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Options

void MackeyGlassOptions::validate() const {
  const auto positive = [](const char* field, double v) {
    if (!std::isfinite(v) || v <= 0.0) bad_option(field, "a finite number > 0", v);
  };
  const auto finite = [](const char* field, double v) {
    if (!std::isfinite(v)) bad_option(field, "a finite number", v);
  };
  positive("tau", tau);
  positive("lyaptime", lyaptime);
  finite("constant_past", constant_past);
  finite("beta", beta);
  finite("gamma", gamma);
  if (exponent < 1) bad_option("exponent", "an integer >= 1", exponent);
  if (pts_per_lyaptime < 1) {
    bad_option("pts_per_lyaptime", "an integer >= 1", static_cast<double>(pts_per_lyaptime));
  }
  positive("traintime", traintime);
  positive("testtime", testtime);
  if (train_points() < 1) {
    bad_option("traintime", "long enough for one sample (traintime * pts_per_lyaptime >= 0.5)",
               traintime);
  }
  if (test_points() < 1) {
    bad_option("testtime", "long enough for one sample (testtime * pts_per_lyaptime >= 0.5)",
               testtime);
  }
  if (!std::isfinite(start_offset) || start_offset < 0.0 || start_offset > 1e12) {
    bad_option("start_offset", "a number of sampling steps in [0, 1e12]", start_offset);
  }
  if (bin_window < 1) bad_option("bin_window", "an integer >= 1", static_cast<double>(bin_window));
  if (integration_steps < 1) {
    bad_option("integration_steps", "an integer >= 1", static_cast<double>(integration_steps));
  }
  const double h = sampling_interval() / static_cast<double>(integration_steps);
  if (!(h < tau)) {
    throw UsageError(fmt::format(
        "MackeyGlassOptions.integration_steps must make the step (sampling interval {} / {} = {}) "
        "shorter than tau = {}",
        sampling_interval(), integration_steps, h, tau));
  }
}

MackeyGlassOptions MackeyGlassOptions::for_tau(int tau) {
  for (const TauRow& row : kTauTable) {
    if (row.tau != tau) continue;
    MackeyGlassOptions o;
    o.tau = row.tau;
    o.lyaptime = row.lyaptime;
    o.constant_past = row.constant_past;
    return o;
  }
  throw UsageError(fmt::format(
      "MackeyGlassOptions::for_tau: the reference has settings for tau 17..30, not {}", tau));
}

int64_t MackeyGlassOptions::train_points() const {
  return python_round(traintime * static_cast<double>(pts_per_lyaptime));
}

int64_t MackeyGlassOptions::test_points() const {
  return python_round(testtime * static_cast<double>(pts_per_lyaptime));
}

int64_t MackeyGlassOptions::total_points() const { return train_points() + test_points() + 1; }

double MackeyGlassOptions::sampling_interval() const {
  return lyaptime / static_cast<double>(pts_per_lyaptime);
}

int64_t MackeyGlassOptions::offset_points() const {
  return static_cast<int64_t>(std::trunc(start_offset));
}

// ---------------------------------------------------------------------------------------------
// Generator

torch::Tensor mackey_glass_trajectory(const MackeyGlassOptions& options, int64_t num_points) {
  options.validate();
  if (num_points < 0) {
    throw UsageError(
        fmt::format("mackey_glass_trajectory: num_points must be >= 0, got {}", num_points));
  }
  torch::Tensor out = torch::empty({num_points}, torch::kDouble);
  if (num_points == 0) return out;
  double* samples = out.data_ptr<double>();

  const double tau = options.tau;
  const double dt = options.sampling_interval();
  const int64_t k = options.integration_steps;
  const double h = dt / static_cast<double>(k);
  Integrator integrator(options);

  // From t = 0 to tau: equal steps no longer than h, ending exactly on tau, where the first
  // propagation of the discontinuity at 0 lies. Sampling starts there, as in the reference,
  // whose jitcdde `step_on_discontinuities()` (one propagation by default) integrates up to
  // the largest delay before the first sample is taken.
  const auto first_steps = static_cast<int64_t>(std::ceil(tau / h));
  double t = 0.0;
  for (int64_t i = 1; i <= first_steps; ++i) {
    const double next =
        i == first_steps ? tau : tau * static_cast<double>(i) / static_cast<double>(first_steps);
    integrator.step(t, next);
    t = next;
  }
  samples[0] = integrator.x();

  // Then the grid tau + q dt + r h (sample q after every k steps). A breakpoint m tau that
  // falls inside a step splits it, so that no step straddles one.
  std::array<double, kBreakpoints - 1> breakpoints{};
  for (int m = 2; m <= kBreakpoints; ++m) breakpoints[m - 2] = tau * m;
  std::size_t next_break = 0;
  const double margin = 1e-9 * h;
  for (int64_t q = 0; q + 1 < num_points; ++q) {
    const double base = tau + static_cast<double>(q) * dt;
    for (int64_t r = 1; r <= k; ++r) {
      const double next =
          r == k ? tau + static_cast<double>(q + 1) * dt : base + static_cast<double>(r) * h;
      while (next_break < breakpoints.size() && breakpoints[next_break] <= t + margin) {
        ++next_break;
      }
      if (next_break < breakpoints.size() && breakpoints[next_break] < next - margin) {
        integrator.step(t, breakpoints[next_break]);
        t = breakpoints[next_break];
        ++next_break;
      }
      integrator.step(t, next);
      t = next;
    }
    samples[q + 1] = integrator.x();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Data set

namespace {
torch::Tensor generate_for(const MackeyGlassOptions& options) {
  options.validate();
  return mackey_glass_trajectory(options, options.offset_points() + options.total_points());
}
}  // namespace

MackeyGlass::MackeyGlass(const MackeyGlassOptions& options)
    : MackeyGlass(generate_for(options), options,
                  fmt::format("Mackey-Glass tau={} (generated, {} RK4 steps per sample)",
                              options.tau, options.integration_steps)) {}

MackeyGlass::MackeyGlass(const torch::Tensor& trajectory, const MackeyGlassOptions& options,
                         std::string source)
    : options_(options), source_(std::move(source)) {
  options_.validate();
  if (!trajectory.defined() || trajectory.dim() != 1) {
    throw InputError(fmt::format("{}: expected a 1-D array of floats (the series), got shape {}",
                                 source_,
                                 trajectory.defined() ? shape_string(trajectory) : "(undefined)"));
  }
  if (!trajectory.is_floating_point()) {
    throw InputError(fmt::format("{}: expected a 1-D array of floats (the series), got dtype {}",
                                 source_, c10::toString(trajectory.scalar_type())));
  }
  const int64_t begin = options_.offset_points();
  const int64_t needed = begin + options_.total_points();
  if (trajectory.size(0) < needed) {
    throw InputError(fmt::format(
        "{}: the series has {} points, but start_offset {} needs {} (offset {} + {} train + {} "
        "test + 1)",
        source_, trajectory.size(0), options_.start_offset, needed, begin, options_.train_points(),
        options_.test_points()));
  }
  const torch::Tensor used =
      trajectory.slice(0, begin, needed).to(torch::kCPU, torch::kDouble).contiguous();
  const torch::Tensor finite = torch::isfinite(used);
  if (!finite.all().item<bool>()) {
    const int64_t bad = (~finite).nonzero().min().item<int64_t>();
    throw InputError(fmt::format("{}: point {} of the series is not finite ({})", source_,
                                 begin + bad, used[bad].item<double>()));
  }
  series_ =
      torch::cat({torch::zeros({options_.bin_window - 1}, torch::kDouble), used}).reshape({-1, 1});
}

MackeyGlass MackeyGlass::from_npy(const std::filesystem::path& path,
                                  const MackeyGlassOptions& options) {
  return MackeyGlass(load_npy(path), options, path.string());
}

TensorDataset MackeyGlass::samples(int64_t begin, int64_t end) const {
  const int64_t count = options_.train_points() + options_.test_points();
  if (begin < 0 || end < begin || end > count) {
    throw UsageError(fmt::format("{}: samples [{}, {}) are outside the data set's {} samples",
                                 source_, begin, end, count));
  }
  const int64_t window = options_.bin_window;
  const torch::Tensor flat = series_.reshape({-1});
  torch::Tensor data = flat.unfold(0, window, 1).slice(0, begin, end).unsqueeze(-1).clone();
  torch::Tensor targets = series_.slice(0, begin + window, end + window).clone();
  return TensorDataset(std::move(data), std::move(targets), {},
                       fmt::format("{} samples [{}, {})", source_, begin, end));
}

TensorDataset MackeyGlass::train() const { return samples(0, options_.train_points()); }

TensorDataset MackeyGlass::test() const {
  return samples(options_.train_points(), options_.train_points() + options_.test_points());
}

}  // namespace neurobench::datasets
