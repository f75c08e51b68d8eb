// The seam between training and communication, in three roles:
//   Collective        aggregates one gradient message of S bytes across all workers (allreduce
//                     or its equivalent), with its closed-form time; every collective has it;
//   Gather            aggregates contributions that cannot be summed on the way (sparse or
//                     quantised messages), for compressors that need it;
//   Shards            the two halves of an allreduce as operations of their own, reduce-scatter
//                     and allgather, for sharded data parallelism (ZeRO, FSDP);
//   TransferPrograms  the same operations as steps of point-to-point transfers on the full
//                     topology, for flow fidelity (network/flow_network.hpp);
//   StagedTransfers   the allreduce as overlapping stages that run themselves on the flow
//                     network, for flow fidelity where one lockstep program cannot say it.
// A collective implements only the roles it can play and answers null for the others; the
// wrappers compose them: CompressedCollective (compression) uses its inner collective's
// allreduce or gather, FlowCollective (flow fidelity) prices the inner one's programs. Each
// algorithm lives in its own file and registers itself (collective_registry.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/network/flow_network.hpp"

namespace sgdsim {

// t(S) = startup + ps_per_byte * S: what merge policies such as MG-WFBP reason with.
struct LinearCost {
  Time startup;
  double ps_per_byte = 0.0;
};

// Aggregation of contributions that cannot be summed on the way (sparse or quantised messages
// of `contribution` bytes each; `aggregate` is the dense size of the sum): the time, the bytes
// each rank sends, and how many contributions each rank (or server) must decode.
class Gather {
 public:
  virtual ~Gather() = default;
  virtual Time gather_time(Bytes contribution, Bytes aggregate) const = 0;
  virtual double gather_bytes_sent_per_rank(Bytes contribution) const = 0;
  virtual int gather_decodes() const = 0;
};

// The halves of an allreduce of an S-byte buffer over N ranks: a reduce-scatter leaves each rank
// the sum of its own S/N bytes; an allgather starts from each rank's S/N bytes and leaves all S
// on every rank. An allreduce is a reduce-scatter followed by an allgather (Rabenseifner 2004;
// NCCL's ring allreduce runs exactly these two passes), so each family that splits that way
// plays this role with the halves of its own allreduce.
enum class ShardOp { reduce_scatter, allgather };
std::string_view shard_op_name(ShardOp op);

class Shards {
 public:
  virtual ~Shards() = default;
  virtual Time shard_time(ShardOp op, Bytes buffer) const = 0;
  // Bytes each rank sends for one S-byte buffer.
  virtual double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const = 0;
};

// The collective's operations as steps of point-to-point transfers on the full topology.
class TransferPrograms {
 public:
  virtual ~TransferPrograms() = default;
  virtual TransferProgram program(Bytes message) const = 0;
  // Asked only of a collective that also plays the Gather role.
  virtual TransferProgram gather_program(Bytes contribution, Bytes aggregate) const = 0;
  // Asked only of a collective that also plays the Shards role.
  virtual TransferProgram shard_program(ShardOp op, Bytes buffer) const;
};

// An allreduce whose parts overlap instead of running as lockstep steps (BytePS's partitions,
// pipelined through stages on resources of their own: network/flow_pipeline.hpp). It runs itself
// on a flow network, where a TransferPrograms collective hands over one program.
class StagedTransfers {
 public:
  virtual ~StagedTransfers() = default;
  // The allreduce of an S-byte message alone on `network` (every flow counted once per copy the
  // network runs, and every piece of local work shared by as many copies).
  virtual Time staged_time(FlowNetwork& network, Bytes message) const = 0;
  // What an S-byte message queued behind others holds the stream in the steady state, the rest
  // of its time alone running beside the message ahead (the runtime pipelines queued tensors);
  // none where simulating that would cost too much.
  virtual std::optional<Time> staged_hold(FlowNetwork& network, Bytes message) const = 0;
};

class Collective {
 public:
  virtual ~Collective() = default;
  virtual std::string name() const = 0;
  virtual int ranks() const = 0;
  // Time for all ranks to hold the aggregate of an S-byte message.
  virtual Time time(Bytes message) const = 0;
  // The same time as startup + slope (exact for the alpha-beta forms used so far).
  virtual LinearCost linear_cost() const = 0;
  // Bytes each rank sends on the network for one S-byte message.
  virtual double bytes_sent_per_rank(Bytes message) const = 0;

  // Summing quantised messages on the way: each of `stages` sequential reduction steps decodes,
  // adds and re-encodes a chunk of `chunk_fraction` of the message.
  struct Requantisation {
    int stages = 0;
    double chunk_fraction = 1.0;
  };
  virtual Requantisation requantisation() const = 0;

  // The part of time(message) that this message, launched right behind another, can spend while
  // the one ahead still moves its data (ByteScheduler's partitions in flight): by default its
  // startup, min(linear_cost().startup, time(message)); a pipeline of stages (BytePS) all but
  // its partitions' periods at its busiest stage.
  virtual Time overlappable(Bytes message) const;
  // The part of time(message) that a message queued behind another on the merge policies' FIFO
  // stream runs beside it: none for NCCL's kind, whose kernels on one stream run one after
  // another; overlappable(message) for a pipeline whose runtime queues every tensor's partitions
  // through its stages (BytePS).
  virtual Time queued_overlap(Bytes /*message*/) const { return Time::zero(); }
  // The part of time(message) that kernels on the GPUs run it: what slows the compute beside it
  // (an unstated compute.overlap_slowdown is Lee et al.'s slowdown beside NCCL's kernels over
  // their share of the communication stream's time, scenario_run.cpp). All of it for NCCL's
  // kind; none for parameter servers, whose copy engines and CPUs do the work; BytePS's NCCL
  // stream's partitions.
  virtual Time kernel_time(Bytes message) const { return time(message); }

  // The other roles, or null where this collective cannot play them (a collective priced on a
  // representative topology has no transfer programs; one built by hand may have neither).
  virtual const Gather* gather() const { return nullptr; }
  virtual const Shards* shards() const { return nullptr; }
  virtual const TransferPrograms* programs() const { return nullptr; }
  virtual const StagedTransfers* staged() const { return nullptr; }
};

using CollectivePtr = std::unique_ptr<const Collective>;

// A wrapper's kernel time: the inner collective's share, part / of, of the wrapper's `whole`
// (whole itself where the inner collective is all kernels, none where it has none).
Time scaled_share(Time part, Time of, Time whole);

// The secant of a cost that is not exactly linear in S, between messages of `small` and
// `large` bytes: the linear cost that merge policies are given for it.
LinearCost secant_cost(const Collective& collective, Bytes small, Bytes large);

}  // namespace sgdsim
