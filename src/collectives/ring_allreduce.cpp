// Ring allreduce closed form, its hop from the topology, and its transfer program.
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/collectives/collective_registry.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim {

RingAllreduce::RingAllreduce(int ranks, LinkModel ring_hop, double reduction_ps_per_byte)
    : RingAllreduce(ranks, ring_hop, uniform_ring_pass(ranks, ring_hop), Time::zero(),
                    reduction_ps_per_byte) {}

RingAllreduce::RingAllreduce(int ranks, LinkModel ring_hop, RingPass pass, Time base_latency,
                             double reduction_ps_per_byte)
    : ranks_(ranks),
      hop_(ring_hop),
      pass_(pass),
      reduction_ps_per_byte_(reduction_ps_per_byte),
      base_latency_(base_latency) {
  SGDSIM_ASSERT(ranks >= 1, "a ring needs at least one rank");
  SGDSIM_ASSERT(pass.count() == ranks - 1, "a ring pass of N-1 steps");
}

RingAllreduce RingAllreduce::on(const CollectiveContext& context) {
  const ClusterShape& shape = context.shape();
  const Topology& topology = *context.topology;
  // By symmetry a few hops represent the whole ring: inside a node, between nodes, and across
  // the spine between leaves (hops.hpp, RingPass). The slowest one's bandwidth bounds every step.
  const RingPass pass = gpu_ring_pass(topology, context.protocol);
  Time base;
  const LinkModel hop = nccl_hop(pass.slowest_route(), NcclAlgorithm::ring, context, base);
  RingAllreduce ring(shape.gpus, hop, pass, base, context.reduction_ps_per_byte);
  if (context.full()) ring.topology_ = context.topology;
  return ring;
}

Time RingAllreduce::time(Bytes message) const {
  if (ranks_ == 1) return Time::zero();
  const double n = ranks_;
  const double chunk = static_cast<double>(message.count()) / n;
  return base_latency_ + pass_.total() * 2 +
         transfer_time(message, hop_.bandwidth, 2.0 * (n - 1.0) / n) +
         reduction_time(chunk, reduction_ps_per_byte_) * (ranks_ - 1);
}

LinearCost RingAllreduce::linear_cost() const {
  if (ranks_ == 1) return LinearCost{};
  const double n = ranks_;
  return LinearCost{
      base_latency_ + pass_.total() * 2,
      2.0 * (n - 1.0) / n * hop_.bandwidth.ps_per_byte() + (n - 1.0) / n * reduction_ps_per_byte_};
}

double RingAllreduce::bytes_sent_per_rank(Bytes message) const {
  const double n = ranks_;
  return 2.0 * (n - 1.0) / n * static_cast<double>(message.count());
}

Time RingAllreduce::gather_time(Bytes contribution, Bytes /*aggregate*/) const {
  if (ranks_ == 1) return Time::zero();
  return base_latency_ + pass_.total() + transfer_time(contribution, hop_.bandwidth, ranks_ - 1.0);
}

double RingAllreduce::gather_bytes_sent_per_rank(Bytes contribution) const {
  return (ranks_ - 1.0) * static_cast<double>(contribution.count());
}

Time RingAllreduce::shard_time(ShardOp op, Bytes buffer) const {
  if (ranks_ == 1) return Time::zero();
  const double n = ranks_;
  const Time reduction =
      op == ShardOp::reduce_scatter
          ? reduction_time(static_cast<double>(buffer.count()) / n, reduction_ps_per_byte_) *
                (ranks_ - 1)
          : Time::zero();
  return base_latency_ + pass_.total() + transfer_time(buffer, hop_.bandwidth, (n - 1.0) / n) +
         reduction;
}

double RingAllreduce::shard_bytes_sent_per_rank(ShardOp /*op*/, Bytes buffer) const {
  const double n = ranks_;
  return (n - 1.0) / n * static_cast<double>(buffer.count());
}

TransferProgram RingAllreduce::program(Bytes message) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferProgram program;
  const double chunk = static_cast<double>(message.count()) / ranks_;
  const std::vector<std::vector<Topology::Vertex>> ring{gpu_ring(*topology_)};
  append_ring_pass(program, ring, chunk, pass_, reduction_time(chunk, reduction_ps_per_byte_));
  append_ring_pass(program, ring, chunk, pass_, Time::zero());
  return program;
}

TransferProgram RingAllreduce::gather_program(Bytes contribution, Bytes /*aggregate*/) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  return ring_gather_program(*topology_, contribution);
}

TransferProgram RingAllreduce::shard_program(ShardOp op, Bytes buffer) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferProgram program;
  const double chunk = static_cast<double>(buffer.count()) / ranks_;
  const std::vector<std::vector<Topology::Vertex>> ring{gpu_ring(*topology_)};
  append_ring_pass(
      program, ring, chunk, pass_,
      op == ShardOp::reduce_scatter ? reduction_time(chunk, reduction_ps_per_byte_) : Time::zero());
  return program;
}

CollectiveEntry ring_allreduce_collective() {
  CollectiveEntry entry;
  entry.name = "ring_allreduce";
  entry.shards = true;
  entry.description = "ring allreduce: reduce-scatter then allgather around one ring";
  entry.keys = {KeySpec::optional_choice(
      "nccl_protocol", "NCCL latency table for the closed form (auto: the fastest per message)",
      {"ll", "ll128", "simple", "auto"})};
  entry.make = [](const CollectiveContext& context, const Settings&) -> CollectivePtr {
    return std::make_unique<RingAllreduce>(RingAllreduce::on(context));
  };
  return entry;
}

}  // namespace sgdsim
