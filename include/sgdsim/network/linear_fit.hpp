// Ordinary least squares of t = a + b * bytes, used to calibrate alpha and beta from benchmark
// measurements (e.g. OSU allreduce latency against message size).
#pragma once

#include <vector>

namespace sgdsim {

struct SizeTimePoint {
  double bytes = 0.0;
  double microseconds = 0.0;
};

struct LinearFit {
  double intercept_us = 0.0;       // a
  double slope_us_per_byte = 0.0;  // b
  double r_squared = 0.0;          // 1 - residual / total sum of squares
};

// Needs at least two distinct sizes; throws InvariantError otherwise.
LinearFit fit_linear(const std::vector<SizeTimePoint>& points);
// The same line minimising relative errors, sum ((a + b x - t) / t)^2 (weighted least squares,
// weights 1 / t^2): over sizes spanning orders of magnitude, small messages count as much as
// large ones. r_squared is on the weighted scale. Times must be positive.
LinearFit fit_linear_relative(const std::vector<SizeTimePoint>& points);

}  // namespace sgdsim
