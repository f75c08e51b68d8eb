// The alpha-beta (Hockney) model of one message on one path: t = alpha + bytes / bandwidth.
// A network is given either as a link (bandwidth_gbps, latency_us) or as a measured allreduce fit
// t(S) = a + b*S at some GPU count, which is turned into an equivalent link through the ring
// allreduce closed form (a = 2(N-1)alpha, b = 2(N-1)/N / bandwidth).
#pragma once

#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

struct LinkModel {
  Time alpha;  // per-message startup: software, NIC and wire latency
  Bandwidth bandwidth;

  Time message_time(Bytes bytes) const { return alpha + transfer_time(bytes, bandwidth); }
};

// An allreduce measured on `gpus` GPUs and fitted as a + b*bytes.
struct MeasuredAllreduce {
  int gpus = 0;
  Time startup;              // a
  double ps_per_byte = 0.0;  // b
};

// The link whose ring allreduce on `measurement.gpus` ranks has exactly the measured a and b.
LinkModel link_from_ring_fit(const MeasuredAllreduce& measurement);

// The measurement to use for a run on `gpus` GPUs: the one taken at that count, else the one
// at the nearest count on a log scale (ties go to the larger count). The list must not be empty.
const MeasuredAllreduce& select_measurement(const std::vector<MeasuredAllreduce>& measurements,
                                            int gpus);

}  // namespace sgdsim
