// Confidence intervals over seeds (the header gives the formula).
#include "sgdsim/convergence/statistics.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <numeric>

#include "sgdsim/core/error.hpp"

namespace sgdsim::convergence {

Interval mean_interval(std::span<const double> values) {
  SGDSIM_ASSERT(!values.empty(), "an interval needs a value");
  const auto n = static_cast<double>(values.size());
  Interval interval;
  interval.samples = static_cast<int>(values.size());
  interval.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  interval.low = interval.high = interval.mean;
  if (values.size() < 2) return interval;
  double squares = 0.0;
  for (const double v : values) squares += (v - interval.mean) * (v - interval.mean);
  const double deviation = std::sqrt(squares / (n - 1.0));
  const boost::math::students_t_distribution<double> t(n - 1.0);
  const double half = boost::math::quantile(t, 0.975) * deviation / std::sqrt(n);
  interval.low = interval.mean - half;
  interval.high = interval.mean + half;
  return interval;
}

}  // namespace sgdsim::convergence
