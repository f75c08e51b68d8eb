// BytePS (Jiang et al., "A Unified Architecture for Accelerating Distributed DNN Training in
// Heterogeneous GPU/CPU Clusters", OSDI'20; github.com/bytedance/byteps, docs/env.md): inside
// each of the n worker machines the G GPUs reduce-scatter the gradient (NCCL), each machine
// pushes its reduced copy, partitioned, to k CPU summation servers, the servers add the n
// machines' shards, the machines pull the sum back and allgather it inside. A message of S bytes
// is cut into P = ceil(S / partition) partitions of q = S / P bytes (BYTEPS_PARTITION_BYTES,
// 4,096,000 by default) that flow through those five stages as a pipeline:
//   reduce-scatter  (G-1) (alpha_i + q / (G B_i)) + (G-1) gamma q / G
//   push            alpha_s + max(H q / (G B_nic), n q / (k B_server))
//   sum             n q / (k sigma)                (a server adds n shards of q / k)
//   pull            as push
//   allgather       (G-1) (alpha_i + q / (G B_i))
// with H the GPUs sharing one NIC (G, or 1 with a NIC per GPU), alpha_s the route latency from
// where a machine pushes to a server (its host memory, the node's switch, with one NIC a node:
// no GPU's link is on the way; its GPU with a NIC per GPU) and sigma a server's summation rate. The
// first partition takes the sum of the stages; each further one adds the busiest resource's time
// per partition (the pipeline's period), the resources being the NCCL stream (both intra-node
// stages, latencies included), the NICs on the way out, the servers' CPUs and the NICs on the way
// back:
//   t(S) = sum of stages(q) + (P - 1) max(2 (G-1) (alpha_i + q / (G B_i)) + (G-1) gamma q / G,
//                                        push bandwidth term, sum, pull bandwidth term)
// (the NCCL stream's term with its ring steps' latencies: a kernel waits on them)
// With the servers on the worker machines (placement "colocated": TensorFlow's
// distributed_replicated with its parameter servers on the workers, MXNet's kvstore launched on
// the workers' hosts), round-robin, a machine holding m of the k servers sends (k - m) / k of
// each partition and takes in m (n - 1) / k through its NIC in each phase, and between
// partitions its pushes and its servers' pulls share a direction:
//   push            alpha_s + max(H (k - m_min) q / (G k B_nic), m_max (n - 1) q / (k B_nic))
//   period's NIC    max over m of (k - m) q H / (G k B_nic) + m (n - 1) q / (k B_nic)
// which for k = n is 2 (n - 1) / n of a partition, what a ring moves: dedicated servers halve
// it, the point of BytePS's design.
// That pipeline spreads each partition's server work over the k servers; a partition goes whole
// to one server, though (the keys, below). So a message alone takes at least, with q_1 the
// first partition's stages with its server terms whole (push and pull max(H q / (G B_nic),
// n q / B_s), n - 1 copies through a worker's NIC with the servers on the workers; the sum
// n q / sigma):
//   t(S) = max(pipeline above, q_1 + (ceil(P / k) - 1) k period, q_1 + (P - 1) x NCCL stage)
// (rounds of k partitions, partitions j and j + k sharing a server; the NCCL stream serving
// every partition). For P a multiple of k this exceeds the pipeline by about one partition's
// fill on one server.
// A message launched behind another (ByteScheduler's partitions in flight) runs all but its
// partitions' periods beside the data ahead: overlappable(S) = t(S) - P x period, at least the
// first partition's stages less one period; queued partitions take the servers in turn.
// The cost is not linear in S (P steps up): linear_cost() is the secant from one byte to
// 64 MiB. It has no gather: sparse contributions are not summed by BytePS's servers.
//
// On one worker machine BytePS runs no servers at all unless BYTEPS_FORCE_DISTRIBUTED=1
// (byteps/common/global.cc: a job is distributed with DMLC_NUM_WORKER > 1 or that variable;
// bytedance/byteps#26, its authors: "When DMLC_NUM_WORKER is 1, BytePS will not use PS at
// all"). Its queues then hold the reduce-scatter and the allgather alone (operations.cc: no
// copy to host memory, push, pull or copy back), both on the NCCL stream, so a message's P
// partitions take that stream one after the other:
//   t(S) = P (2 (G-1) (alpha_i + q / (G B_i)) + (G-1) gamma q / G)
// and a message queued behind another overlaps nothing of it. The shape then has no servers
// (add_byteps_servers), and the constructor takes none.
//
// With BYTEPS_PCIE_SWITCH_SIZE s below the machine's G GPUs (and dividing it), NCCL runs in
// each of the G / s groups alone (byteps/common/nccl_manager.cc) and the groups meet in host
// memory (operations.cc: COPYD2H, PCIE_REDUCE, then PUSH; after the pull COPYH2D): the G of the
// rings above is s (the NIC's share, H / G, keeps the machine's G), the rings are the group's
// (B_g), and three stages join the pipeline:
//   copy out        q / C               (the group's GPUs' shards to host memory, together C)
//   group sum       (G / s - 1) q / sigma   (the machine's CPU adds the other groups' buffers)
//   copy back       q / C
// each with a resource of its own (the copy streams each way, the CPU), so the period is also at
// least each of them. On one machine without servers the stream, the copies and the CPU then
// pipeline the partitions (the push a barrier), first + (P - 1) max(stream, q / C, group sum).
//
// At flow fidelity (StagedTransfers) the pipeline runs on the flow network instead
// (network/flow_pipeline.hpp). BytePS gives each partition a key of its own and hashes each key
// to one server (byteps/common/global.cc, EncodeDefaultKey; the djb2 hash unless
// BYTEPS_KEY_HASH_FN says otherwise), so the servers take whole partitions in turn rather than
// each 1/k of every partition; the flow level takes server j mod k for partition j, the even
// spread the hash aims at, counting on over the partitions queued behind the message (those of
// the messages that follow). FlowCollective prices a message alone and, from k and 2k
// partitions more queued behind it (each server taking one or two), what each message holds the
// pipeline in the steady state, where the partitions of queued messages take the servers in turn
// (where those runs would cost too much, the closed form's hold: its P periods). Each
// partition passes through
//   reduce-scatter  a ring in every node, G-1 steps of q/G bytes, reduction after each
//   push            every machine sends q to the partition's server
//   sum             the server adds the n machines' copies: n q / sigma
//   pull            the server sends every machine q back
//   allgather       the ring in every node, G-1 steps of q/G bytes
// A machine's pushes and pulls are its root device's: only that process pushes and pulls, out
// of and into host memory that the GPUs copied their shards to (byteps/common/global.cc builds
// the push table on the root device alone, and operations.cc queues PUSH and PULL there only;
// ps-lite binds one interface, DMLC_INTERFACE). The flow level starts them at the node's host
// memory (its switch), so they cross no GPU's link (the GPUs' copies of their q/G shards to and
// from host memory are not simulated with one group, as in the closed form); with a NIC per GPU at
// the machine's first GPU, through its own NIC (where the closed form has each GPU push its q/G
// through its own NIC, the flow level one q through one NIC). The stages run on resources that
// serve one partition at a time: the NCCL stream (both intra-node stages), and per server its
// connections from the workers (push; one TCP connection per worker and
// server delivers in order), its CPU (sum) and its connections back (pull). Partitions to
// different servers cross the NICs at once, and every flow shares its links with the others
// by max-min fairness (push against the intra-node rings on the GPUs' links, say). With groups
// per PCIe switch the groups' rings, copies and the CPU's sum are timed stages at their closed
// form's times (the flow network's GPU links carry the whole machine's ring, not a group's),
// on the NCCL stream and on three resources of their own.
#pragma once

#include <memory>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"
#include "sgdsim/core/registry.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

struct BytePsSettings {
  Bytes partition = Bytes(4'096'000);
  Bandwidth summation;  // per server, and a worker machine's CPU adding its switches' buffers
  // GPUs per NCCL group (BYTEPS_PCIE_SWITCH_SIZE, as BytePS takes it: the machine's GPUs where
  // the setting does not cut them into equal groups), and, with groups smaller than the
  // machine, what their rings reach and what a group's copies to host memory reach together
  // (zero: the intra-node link's for the rings, and each GPU copying over a PCIe link of its
  // own, 4.0 x16 or the intra-node link where slower).
  int group = 0;
  Bandwidth group_ring{};
  Bandwidth host_copy{};
};

// The GPUs per NCCL group BytePS runs with `pcie_switch_size` (BYTEPS_PCIE_SWITCH_SIZE, 8 by
// default) on machines of `gpus_per_node` (byteps/common/nccl_manager.cc): the setting where it
// cuts the machine into two or more equal groups, else the whole machine.
int byteps_group(int pcie_switch_size, int gpus_per_node);
// The same from the collective's scenario keys (its pcie_switch_size).
int byteps_group(const Settings& settings, int gpus_per_node);

// The collective's settings from its scenario keys, the groups' rings and copies from the node
// where the context describes one (byteps.cpp).
BytePsSettings byteps_settings(const CollectiveContext& context, const Settings& settings);

class BytePs final : public Collective, public StagedTransfers {
 public:
  BytePs(const CollectiveContext& context, BytePsSettings settings);

  std::string name() const override { return "byteps"; }
  int ranks() const override { return gpus_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  // The message's time alone less its partitions' periods: what a message launched behind
  // another spends while the one ahead holds the busiest resource.
  Time overlappable(Bytes message) const override;
  // BytePS's stage loops take partitions of any tensor from their queues (byteps/common/
  // core_loops.cc, one loop per stage), so tensors pipeline as one tensor's partitions do.
  Time queued_overlap(Bytes message) const override { return overlappable(message); }
  // Each GPU sends (s-1)/s S inside its group (its node's G, or a PCIe switch's s) in the
  // reduce-scatter and as much in the allgather, and its node's NIC S (H/G of it per GPU's
  // share); on one machine without servers, nothing leaves it.
  double bytes_sent_per_rank(Bytes message) const override;
  // s-1 reduce-scatter steps on S/s, across groups the CPU's sum of S a group more, then each
  // server's n shards of S/k: the step count and the total bytes decoded, added and re-encoded,
  // as equal chunks.
  Requantisation requantisation() const override;
  // The NCCL stream's P reduce-scatters and allgathers, at most the message's time: all of it on
  // one machine with one group, none with one GPU a machine (copies to host memory, the network
  // and the CPUs' sums are not kernels).
  Time kernel_time(Bytes message) const override;

  const StagedTransfers* staged() const override { return topology_ != nullptr ? this : nullptr; }
  Time staged_time(FlowNetwork& network, Bytes message) const override {
    return stream_time(network, message, 0);
  }
  // From the runs with k and 2k partitions of the messages behind it queued (each server taking
  // one or two), whose fill and drain are alike: the k more partitions of the longer one take
  // the stream k / P of a message's hold. None where the longer run costs more than 4 times the
  // message's own and over 2^14 partitions x pushes in flight (byteps.cpp). On one machine
  // without servers: its whole run with one group (the NCCL stream alone), and in groups what
  // P partitions more queued behind it add (none past 2^25 GPUs x partitions).
  std::optional<Time> staged_hold(FlowNetwork& network, Bytes message) const override;
  // When the last partition ends of an S-byte message and of `queued` more partitions of its
  // size queued behind it from the start, their keys counting on (partition j on server j mod k
  // whichever message it belongs to).
  Time stream_time(FlowNetwork& network, Bytes message, std::int64_t queued) const;

  std::int64_t partitions(Bytes message) const;
  // Whether the machines push to servers: more than one machine, or servers forced on one.
  bool distributed() const { return servers_ > 0; }

 private:
  // A message's pipeline: the first partition through every stage, then each further one's
  // period (picoseconds), over `count` partitions; and the message's time alone, at least the
  // pipeline's and at least what whole partitions on one server each take (byteps.cpp).
  struct Stages {
    Time first;
    double period = 0.0;
    double stream = 0.0;  // the NCCL stream's time per partition, its ring latencies included
    std::int64_t count = 1;
    Time total;
    Time pipelined() const;
  };
  Stages stages(Bytes message) const;
  // One partition of q bytes inside a machine, both levels' terms: its group's ring steps'
  // latency and bytes for one pass (the reduce-scatter or the allgather), the reduce-scatter's
  // sums, and across groups each direction's copies and the CPU's sum (picoseconds).
  struct PartitionTerms {
    Time ring_latency;
    double ring = 0.0;
    double reduction = 0.0;
    double copy = 0.0;
    double group_sum = 0.0;
  };
  PartitionTerms terms(double q) const;

  int gpus_;
  int per_node_;
  int group_;   // GPUs per NCCL group: the machine's, or a PCIe switch's
  int groups_;  // groups per machine
  int nodes_;
  int servers_;
  LinkModel intra_;
  Time server_alpha_;
  double nic_ps_per_byte_;  // NIC time per partition byte (H / G of it crosses each NIC)
  // A server's NIC time per partition byte: a dedicated one's n / k of it; with the servers on
  // the workers, what the machine with the most servers takes in, m_max (n - 1) / k.
  double server_ps_per_byte_;
  double sum_ps_per_byte_;  // a machine's CPU's time per partition byte (its servers' n / k)
  // One partition alone, whole on one server: a machine's NIC time per byte it pushes (H / G of
  // it crosses each NIC), the server's NIC time per byte (n copies in, or n - 1 with the servers
  // on the workers) and its CPU's (n copies added).
  double push_ps_per_byte_;
  double one_server_ps_per_byte_;
  double one_sum_ps_per_byte_;
  // The busiest NIC direction's time per partition byte between partitions: the larger of the
  // two above with dedicated servers; with servers on the workers, a machine's pushes and its
  // servers' pulls share a direction.
  double period_ps_per_byte_;
  double reduction_ps_per_byte_;
  // Across groups: each direction's copies between a group's GPUs and host memory, and the
  // machine's CPU adding the other groups' buffers to one, per partition byte (zero with one
  // group).
  double copy_ps_per_byte_ = 0.0;
  double group_sum_ps_per_byte_ = 0.0;
  BytePsSettings settings_;
  bool colocated_;                            // the servers run on the worker machines
  std::shared_ptr<const Topology> topology_;  // the full topology, where the context has it
};

}  // namespace sgdsim
