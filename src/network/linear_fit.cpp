// Closed-form simple linear regression.
#include "sgdsim/network/linear_fit.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// Weighted least squares of t = a + b x, each point weighted by weight(point); r^2 on that scale.
template <class Weight>
LinearFit weighted_fit(const std::vector<SizeTimePoint>& points, Weight weight) {
  SGDSIM_ASSERT(points.size() >= 2, "a linear fit needs at least two points");
  double weights = 0.0;
  double mean_x = 0.0;
  double mean_y = 0.0;
  for (const SizeTimePoint& p : points) {
    const double w = weight(p);
    weights += w;
    mean_x += w * p.bytes;
    mean_y += w * p.microseconds;
  }
  mean_x /= weights;
  mean_y /= weights;
  double sxx = 0.0;
  double sxy = 0.0;
  double syy = 0.0;
  for (const SizeTimePoint& p : points) {
    const double w = weight(p);
    sxx += w * (p.bytes - mean_x) * (p.bytes - mean_x);
    sxy += w * (p.bytes - mean_x) * (p.microseconds - mean_y);
    syy += w * (p.microseconds - mean_y) * (p.microseconds - mean_y);
  }
  SGDSIM_ASSERT(sxx > 0.0, "a linear fit needs at least two distinct sizes");
  LinearFit fit;
  fit.slope_us_per_byte = sxy / sxx;
  fit.intercept_us = mean_y - fit.slope_us_per_byte * mean_x;
  const double residual = syy - fit.slope_us_per_byte * sxy;
  fit.r_squared = syy > 0.0 ? 1.0 - residual / syy : 1.0;
  return fit;
}

}  // namespace

LinearFit fit_linear(const std::vector<SizeTimePoint>& points) {
  return weighted_fit(points, [](const SizeTimePoint&) { return 1.0; });
}

LinearFit fit_linear_relative(const std::vector<SizeTimePoint>& points) {
  for (const SizeTimePoint& p : points) {
    SGDSIM_ASSERT(p.microseconds > 0.0, "a relative fit needs positive times");
  }
  return weighted_fit(
      points, [](const SizeTimePoint& p) { return 1.0 / (p.microseconds * p.microseconds); });
}

}  // namespace sgdsim
