// What several seeds of one configuration say: the mean and the two-sided 95% confidence
// interval of the mean, mean +- t(0.975, n - 1) s / sqrt(n), with s the sample standard deviation
// and Student's t quantile from Boost.Math. Rankings rest on intervals: one configuration beats
// another only where its interval lies wholly below the other's.
#pragma once

#include <span>

namespace sgdsim::convergence {

struct Interval {
  int samples = 0;
  double mean = 0.0;
  double low = 0.0;  // equal to the mean where one sample gives no interval
  double high = 0.0;
  // Whether this interval lies wholly below `other` (false where either has one sample).
  bool below(const Interval& other) const {
    return samples > 1 && other.samples > 1 && high < other.low;
  }
};

// Needs at least one value.
Interval mean_interval(std::span<const double> values);

}  // namespace sgdsim::convergence
