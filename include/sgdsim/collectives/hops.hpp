// Hop classes shared by the collectives' closed forms. A closed form reads a few representative
// routes (inside a node, between nodes, across the spine) instead of every pair, so it can run
// on a representative topology whose memory does not grow with the GPU count.
#pragma once

#include <memory>
#include <vector>

#include "sgdsim/collectives/nccl_tuning.hpp"
#include "sgdsim/network/flow_network.hpp"
#include "sgdsim/network/link_model.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

// What the closed forms and the transfer programs need to know about where ranks sit.
struct CollectiveContext {
  std::shared_ptr<const Topology> topology;  // full or representative
  double reduction_ps_per_byte = 0.0;        // local reduction cost (0: free)
  std::optional<NcclProtocol> protocol;      // NCCL-style latency table (ring and tree only)

  const ClusterShape& shape() const { return topology->shape(); }
  bool full() const { return topology->built_gpus() == topology->shape().gpus; }
};

// The route between ranks a and b, read on a representative pair of the same class (same node,
// same leaf, across the spine). Alpha is the route latency, bandwidth its slowest link.
LinkModel hop_between(const Topology& topology, int a, int b);

// The slowest of several hops: largest latency, smallest bandwidth.
LinkModel slowest(const std::vector<LinkModel>& hops);

// The hardware class of the cluster's slowest hop for the NCCL table: the network when there is
// more than one node, else NVLink for intra-node links of 300 Gbps or more, else PCI.
HardwareClass hardware_class(const ClusterShape& shape);

// A hop under the NCCL table: the table's step latency instead of the route's, the bandwidth
// scaled by the protocol's efficiency; `base` receives the once-per-collective latency.
LinkModel nccl_hop(LinkModel hop, NcclAlgorithm algorithm, const CollectiveContext& context,
                   Time& base);

// Every GPU of the topology in rank order: the ring that ring allreduce and the gathers use.
std::vector<Topology::Vertex> gpu_ring(const Topology& topology);

// The allgather of contributions that the allreduce algorithms fall back on for messages that
// cannot be summed on the way: N-1 ring steps, each rank forwarding one contribution.
TransferProgram ring_gather_program(const Topology& topology, Bytes contribution);

// `rounds` lockstep steps in which each ring[i] sends `bytes` to ring[i + 1] (cyclically);
// `compute` after each step.
void append_ring_steps(TransferProgram& program, const std::vector<Topology::Vertex>& ring,
                       double bytes, int rounds, Time compute);
// Several rings stepping together (one flow per ring member per step).
void append_ring_steps(TransferProgram& program,
                       const std::vector<std::vector<Topology::Vertex>>& rings, double bytes,
                       int rounds, Time compute);

// Reduction time of `bytes` at `ps_per_byte`, rounded to the picosecond.
Time reduction_time(double bytes, double ps_per_byte);

}  // namespace sgdsim
