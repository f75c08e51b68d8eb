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
// with H the GPUs sharing one NIC (G, or 1 with a NIC per GPU), alpha_s the route latency from a
// worker to a server and sigma a server's summation rate. The first partition takes the sum of
// the stages; each further one adds the busiest resource's time per partition (the pipeline's
// period), the resources being the node's GPU links (both intra-node stages, bandwidth terms),
// the NICs on the way out, the servers' CPUs and the NICs on the way back:
//   t(S) = sum of stages(q) + (P - 1) max(2 (G-1) q / (G B_i) + (G-1) gamma q / G,
//                                        push bandwidth term, sum, pull bandwidth term)
// The cost is not linear in S (P steps up): linear_cost() is the secant from one byte to
// 64 MiB. It has no transfer programs (its pipeline overlaps stages that a lockstep program
// would serialise), so flow fidelity refuses it, and no gather: sparse contributions are not
// summed by BytePS's servers.
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"

namespace sgdsim {

struct BytePsSettings {
  Bytes partition = Bytes(4'096'000);
  Bandwidth summation;  // per server
};

class BytePs final : public Collective {
 public:
  BytePs(const CollectiveContext& context, BytePsSettings settings);

  std::string name() const override { return "byteps"; }
  int ranks() const override { return gpus_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  // Each GPU sends (G-1)/G S inside its node and its node's NIC S (H/G of it per GPU's share).
  double bytes_sent_per_rank(Bytes message) const override;
  // G-1 reduce-scatter steps on S/G, then each server's n shards of S/k: the step count and the
  // total bytes decoded, added and re-encoded, as equal chunks.
  Requantisation requantisation() const override;

  int partitions(Bytes message) const;

 private:
  int gpus_;
  int per_node_;
  int nodes_;
  int servers_;
  LinkModel intra_;
  Time server_alpha_;
  double nic_ps_per_byte_;     // NIC time per partition byte (H / G of it crosses each NIC)
  double server_ps_per_byte_;  // a server NIC's time per partition byte (n / k of it)
  double sum_ps_per_byte_;     // a server CPU's time per partition byte (n / k of it)
  double reduction_ps_per_byte_;
  BytePsSettings settings_;
};

}  // namespace sgdsim
