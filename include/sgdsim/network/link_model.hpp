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

// An allreduce measured on `gpus` GPUs, `gpus_per_node` to a node, and fitted as a + b*bytes.
// gpus_per_node == gpus: a run inside one node.
struct MeasuredAllreduce {
  int gpus = 0;
  Time startup;              // a
  double ps_per_byte = 0.0;  // b
  int gpus_per_node = 1;

  int nodes() const { return gpus / gpus_per_node; }
  bool inside_one_node() const { return gpus_per_node == gpus; }
};

// The link whose ring allreduce on `measurement.gpus` ranks has exactly the measured a and b.
LinkModel link_from_ring_fit(const MeasuredAllreduce& measurement);

// The hop a measured ring allreduce implies, when its ring runs on m = gpus / gpus_per_node
// nodes: a ring pays 2(N-m) intra-node and 2(m-1) inter-node step latencies and moves
// 2(N-1)/N of the message over its slowest hop (collectives/hops.hpp, RingPass), so
//   inside one node (m = 1):  alpha_i = a / 2(N-1)
//   across m > 1 nodes:       alpha_n = (a - 2(N-m) alpha_i) / 2(m-1), given alpha_i
// and in both 1/B = b N / 2(N-1). alpha_n may come out negative when the intra-node latency
// given is larger than the fit allows; callers refuse that.
LinkModel hop_from_ring_fit(const MeasuredAllreduce& measurement, Time intra_node_hop);

// The measurement to use for a run on `gpus` GPUs: the one taken at that count, else the one
// at the nearest count on a log scale (ties go to the larger count). The list must not be empty.
const MeasuredAllreduce& select_measurement(const std::vector<MeasuredAllreduce>& measurements,
                                            int gpus);

}  // namespace sgdsim
