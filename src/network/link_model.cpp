// Inverting the ring allreduce closed form to recover a link from a measured fit.
#include "sgdsim/network/link_model.hpp"

#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

LinkModel link_from_ring_fit(const MeasuredAllreduce& measurement) {
  SGDSIM_ASSERT(measurement.gpus >= 2, "an allreduce fit needs at least two GPUs");
  SGDSIM_ASSERT(measurement.ps_per_byte > 0.0, "an allreduce fit needs a positive slope");
  const double n = measurement.gpus;
  // a = 2(N-1) alpha  =>  alpha = a / (2(N-1))
  const Time alpha =
      Time::rounded_ps(static_cast<double>(measurement.startup.ps()) / (2.0 * (n - 1.0)));
  // b = 2(N-1)/N * ps_per_byte(link)  =>  ps_per_byte(link) = b * N / (2(N-1))
  const double link_ps_per_byte = measurement.ps_per_byte * n / (2.0 * (n - 1.0));
  return LinkModel{alpha, Bandwidth::from_bits_per_second(8e12 / link_ps_per_byte)};
}

LinkModel hop_from_ring_fit(const MeasuredAllreduce& measurement, Time intra_node_hop) {
  SGDSIM_ASSERT(measurement.gpus_per_node >= 1 && measurement.gpus % measurement.gpus_per_node == 0,
                "a measurement's GPUs fill whole nodes");
  const LinkModel uniform = link_from_ring_fit(measurement);
  const int nodes = measurement.nodes();
  if (nodes == 1) return uniform;
  const double intra_steps = 2.0 * (measurement.gpus - nodes);
  const double alpha_ps = (static_cast<double>(measurement.startup.ps()) -
                           intra_steps * static_cast<double>(intra_node_hop.ps())) /
                          (2.0 * (nodes - 1.0));
  return LinkModel{Time::rounded_ps(alpha_ps), uniform.bandwidth};
}

const MeasuredAllreduce& select_measurement(const std::vector<MeasuredAllreduce>& measurements,
                                            int gpus) {
  SGDSIM_ASSERT(!measurements.empty(), "no allreduce measurements to choose from");
  const MeasuredAllreduce* best = &measurements.front();
  double best_distance = std::fabs(std::log2(static_cast<double>(best->gpus) / gpus));
  for (const MeasuredAllreduce& candidate : measurements) {
    const double distance = std::fabs(std::log2(static_cast<double>(candidate.gpus) / gpus));
    if (distance < best_distance || (distance == best_distance && candidate.gpus > best->gpus)) {
      best = &candidate;
      best_distance = distance;
    }
  }
  return *best;
}

}  // namespace sgdsim
