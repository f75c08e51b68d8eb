// Hop classes shared by the collectives' closed forms. A closed form reads a few representative
// routes (inside a node, between nodes, across the spine) instead of every pair, so it can run
// on a representative topology whose memory does not grow with the GPU count.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sgdsim/collectives/nccl_tuning.hpp"
#include "sgdsim/network/flow_network.hpp"
#include "sgdsim/network/link_model.hpp"
#include "sgdsim/topology/node_topology.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

// What the closed forms and the transfer programs need to know about where ranks sit.
struct CollectiveContext {
  std::shared_ptr<const Topology> topology;  // full or representative
  double reduction_ps_per_byte = 0.0;        // local reduction cost (0: free)
  std::optional<NcclProtocol> protocol;      // NCCL-style latency table (ring and tree only)
  // The node as described (cluster.node), and what its GPUs' reads of host memory reach: a
  // collective that runs NCCL on part of a node's GPUs (BytePS's groups per PCIe switch) models
  // that part's rings and copies from it. Null where the scenario names no node.
  std::shared_ptr<const NodeTopology> node = nullptr;
  double read_efficiency = host_read_efficiency;

  const ClusterShape& shape() const { return topology->shape(); }
  bool full() const { return topology->built_gpus() == topology->shape().gpus; }
};

// The route between ranks a and b, read on a representative pair of the same class (same node,
// same leaf, across the spine). Alpha is the route latency, bandwidth its slowest link.
LinkModel hop_between(const Topology& topology, int a, int b);

// The slowest of several hops: largest latency, smallest bandwidth.
LinkModel slowest(const std::vector<LinkModel>& hops);

// NVLink for intra-node links of 300 Gbps or more, else PCI (NCCL's two intra-node rows).
HardwareClass intra_node_hardware(const ClusterShape& shape);

// The hardware class of the cluster's slowest hop for the NCCL table: the network when there is
// more than one node, else NVLink for intra-node links of 300 Gbps or more, else PCI.
HardwareClass hardware_class(const ClusterShape& shape);

// A hop under the NCCL table: the table's step latency instead of the route's, the bandwidth
// scaled by the protocol's efficiency; `base` receives the once-per-collective latency.
LinkModel nccl_hop(LinkModel hop, NcclAlgorithm algorithm, const CollectiveContext& context,
                   Time& base);

// One pass round a ring (N-1 steps) by the class of hop each step stands for. A pipelined ring
// does not wait at every step for its slowest hop: a chunk's latency is the sum over the hops it
// crosses, which is how NCCL's tuning model counts it (NVIDIA NCCL, src/graph/tuning.cc,
// ncclTopoTuneModel: of a ring allreduce's 2(N-1) steps, 2(nNodes-1) are charged at the network
// latency and the rest at the intra-node one). A ring through the GPUs in rank order, over m nodes
// under L leaf switches, crosses L-1 spine hops, m-L other node boundaries and N-m intra-node hops
// per pass. Bandwidth is not summed: every step moves its chunk over all hops at once, so the
// slowest hop's bandwidth still bounds each step.
enum class HopClass { intra, inter, spine };

// The class of the hop between ranks a and b: inside a node, between nodes of one leaf (or under
// the single top switch), or across the spine.
HopClass hop_class(const ClusterShape& shape, int a, int b);

// A pair of ranks joined by a hop of class `c`: (0, 1), (0, G), (0, L x G) for G GPUs per node
// and L nodes per leaf switch. The routes of one class are alike, so this pair stands for all.
std::pair<int, int> representative_pair(const ClusterShape& shape, HopClass c);

// The hop classes the cluster has, each with its representative route and per-step latency.
struct HopClasses {
  std::array<bool, 3> present{};     // per HopClass: whether any two ranks are joined by one
  std::array<LinkModel, 3> route{};  // per present HopClass
  std::array<Time, 3> latency{};     // per present HopClass (zero elsewhere)
};

// Latencies are the routes', or NCCL's per-step latency for `algorithm` under `protocol` (the
// NVLink or PCI row inside a node, the network row between nodes).
HopClasses hop_classes(const Topology& topology, NcclAlgorithm algorithm,
                       std::optional<NcclProtocol> protocol);

struct RingPass {
  std::array<int, 3> steps{};        // per HopClass
  std::array<Time, 3> latency{};     // per HopClass, for each step of that class
  std::array<LinkModel, 3> route{};  // per HopClass with steps: its representative route

  Time total() const;  // the pass's latency: sum of steps x latency
  int count() const;   // its steps (N-1 for a ring of N)
  // The slowest route among the classes with steps (largest latency, smallest bandwidth): what
  // bounds every step's bandwidth. A pass without steps: a link of unbounded bandwidth.
  LinkModel slowest_route() const;
};

// The pass of the ring through every GPU in rank order, each class at its route's latency, or at
// NCCL's per-step latency for the ring algorithm under `protocol` (intra-node steps at the NVLink
// or PCI row, node crossings at the network row).
RingPass gpu_ring_pass(const Topology& topology, std::optional<NcclProtocol> protocol = {});

// A bare ring of `ranks` whose every hop is `hop`.
RingPass uniform_ring_pass(int ranks, LinkModel hop);

// Every GPU of the topology in rank order: the ring that ring allreduce and the gathers use.
std::vector<Topology::Vertex> gpu_ring(const Topology& topology);

// The allgather of contributions that the allreduce algorithms fall back on for messages that
// cannot be summed on the way: one pass round the GPU ring, each rank forwarding one
// contribution per step.
TransferProgram ring_gather_program(const Topology& topology, Bytes contribution);

// One pass of lockstep steps in which each ring[i] sends `bytes` to ring[i + 1] (cyclically),
// `compute` after each step: one TransferStep per hop class of `pass`, repeated as often as the
// class has steps and starting its transfers after the class's latency (TransferStep::latency),
// so that the flow level charges latency as the closed forms do. Several rings step together
// (one flow per ring member per step).
void append_ring_pass(TransferProgram& program,
                      const std::vector<std::vector<Topology::Vertex>>& rings, double bytes,
                      const RingPass& pass, Time compute);

// Reduction time of `bytes` at `ps_per_byte`, rounded to the picosecond.
Time reduction_time(double bytes, double ps_per_byte);

}  // namespace sgdsim
