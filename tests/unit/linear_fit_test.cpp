// Tests for network/linear_fit.hpp.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"
#include "sgdsim/network/linear_fit.hpp"

using namespace sgdsim;

TEST_CASE("points on a line give back its intercept and slope with r^2 = 1") {
  // t = 100 us + 0.002 us/B * bytes at 1, 2 and 4 KiB.
  const LinearFit fit = fit_linear({{1024, 102.048}, {2048, 104.096}, {4096, 108.192}});
  CHECK(fit.intercept_us == doctest::Approx(100.0));
  CHECK(fit.slope_us_per_byte == doctest::Approx(0.002));
  CHECK(fit.r_squared == doctest::Approx(1.0));
}

TEST_CASE("scattered points lower r^2") {
  // Means 1.5 and 1.5; Sxx = 5, Sxy = 4 * 0.75 = 3, Syy = 5: slope 3/5 = 0.6 and
  // r^2 = Sxy^2 / (Sxx * Syy) = 9 / 25 = 0.36.
  const LinearFit fit = fit_linear({{0, 1}, {1, 0}, {2, 3}, {3, 2}});
  CHECK(fit.slope_us_per_byte == doctest::Approx(0.6));
  CHECK(fit.r_squared == doctest::Approx(0.36));
}

TEST_CASE("a single size cannot be fitted") {
  CHECK_THROWS_AS(fit_linear({{10, 1}, {10, 2}}), InvariantError);
}

TEST_CASE("the relative fit recovers a line exactly and weighs small sizes as much as large") {
  const LinearFit exact = fit_linear_relative({{1024, 102.048}, {2048, 104.096}, {4096, 108.192}});
  CHECK(exact.intercept_us == doctest::Approx(100.0));
  CHECK(exact.slope_us_per_byte == doctest::Approx(0.002));
  // Off a line, it minimises sum ((a + b x - t) / t)^2, so its weighted residual is at most the
  // ordinary fit's; here the ordinary fit misses the 10 us point by far more.
  const std::vector<SizeTimePoint> points{{8, 10}, {1e6, 1000}, {1e8, 80000}};
  const LinearFit relative = fit_linear_relative(points);
  const LinearFit ordinary = fit_linear(points);
  auto weighted = [&](const LinearFit& f) {
    double sum = 0.0;
    for (const SizeTimePoint& p : points) {
      const double r = (f.intercept_us + f.slope_us_per_byte * p.bytes - p.microseconds);
      sum += r * r / (p.microseconds * p.microseconds);
    }
    return sum;
  };
  CHECK(weighted(relative) <= weighted(ordinary));
  auto error_at_8 = [](const LinearFit& f) {
    return std::abs(f.intercept_us + f.slope_us_per_byte * 8 - 10) / 10;
  };
  CHECK(error_at_8(relative) < error_at_8(ordinary));
}
