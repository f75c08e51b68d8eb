// Sharded parameter server: each of N workers pushes its S-byte gradient split evenly over s
// servers, then pulls the aggregate back (Li et al., OSDI'14). Push and pull are symmetric, each
// bounded by the busiest NIC on the way:
//   dedicated servers:  phase = alpha + max(G*S / B_nic, N*S/s / B_server)
//   co-located servers: phase = alpha + max(max(k_max*(N-G)*S/s, G*S*(s-k_min)/s) / B_nic,
//                                            H*S / B_intra)
// where G is the GPUs sharing one NIC (GPUs per node, or 1 with a NIC per GPU) and k_max, k_min are
// the most and fewest servers on one node; H = N/s, each server's own link into its host (the
// node's switch; with a NIC per GPU, GPU 0, whose link from the switch also carries
// (g-1)*k_max/s, g GPUs per node: H = max(N/s, (g-1)*k_max/s)), which binds inside one node.
// Every GPU's own link carries S: phase >= alpha + S / B_intra where a node holds several GPUs.
// t(S) = 2 * phase. With s = N co-located and G = 1 the
// bandwidth term is 2(N-1)/N * S/B, the same as ring allreduce but with 2 startups instead of
// 2(N-1). Contributions that cannot be summed on the way are pushed at their own size w, decoded
// and summed on the servers, and the aggregate pulled back at min(N * w, S) bytes (the union of
// sparse contributions, or the dense sum when that is smaller).
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/collectives/hops.hpp"
#include "sgdsim/core/registry.hpp"

namespace sgdsim {

class ParameterServer final : public Collective, public Gather, public TransferPrograms {
 public:
  // The topology must have at least one server. Servers add the N shards they receive, each
  // of S/s bytes, at the context's reduction cost, between push and pull.
  explicit ParameterServer(const CollectiveContext& context);

  std::string name() const override { return "parameter_server"; }
  int ranks() const override { return workers_; }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  double bytes_sent_per_rank(Bytes message) const override;
  // Workers copy to and from host memory and the servers' CPUs add: no kernel runs it.
  Time kernel_time(Bytes /*message*/) const override { return Time::zero(); }
  // Gathers always; transfer programs only when built on the full topology.
  const Gather* gather() const override { return this; }
  const TransferPrograms* programs() const override { return topology_ ? this : nullptr; }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override;
  // A server adds N worker shards of S/s one after another.
  Requantisation requantisation() const override { return {workers_, 1.0 / servers_}; }
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;

 private:
  int workers_;
  int servers_;
  Time alpha_;
  // The rate at which gradient bytes get through the busiest link of one phase (push or pull).
  Bandwidth phase_rate_;
  double reduction_ps_per_byte_;
  std::shared_ptr<const Topology> topology_;  // set when built on a full topology

  Time server_reduction(Bytes message) const;
  TransferProgram push_pull(double push_bytes, double pull_bytes, Time reduction) const;
};

// The cluster's servers from a collective's "servers", "placement" and optional
// "server_bandwidth_gbps" keys (default: the network's bandwidth), at the network's latency.
void add_servers(const Settings& settings, ClusterShape& shape);

// Refuses server_bandwidth_gbps with placement "colocated": such servers share their machines'
// NICs, so no link of their own has a rate.
std::optional<KeyProblem> check_server_keys(const Settings& settings, const ClusterShape& shape);

}  // namespace sgdsim
