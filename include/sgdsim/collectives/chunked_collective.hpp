// A collective run in chunks one after another, as ASTRA-sim's system layer runs a collective
// split into preferred-dataset-splits chunks with one active chunk per dimension: the message of
// S bytes becomes C chunks (S mod C of them one byte larger than the rest) and each chunk is a
// whole collective of its own, so every chunk pays every step's latency:
//   t_C(S) = sum over chunks k of t(S_k)  =  C * startup + slope * S  for a linear t.
// Where the runtime pipelines queued messages (BytePS: Collective::queued_overlap), each chunk
// but the first runs that overlap beside the chunk ahead, as queued messages do on the merge
// policies' stream: t_C(S) = sum of t(S_k) - sum over k > 1 of oc(S_k).
// NCCL pipelines its chunks instead (the next chunk enters the ring while the previous one is
// still on it), which is what the inner collectives' closed forms already describe: chunks = 1.
// At flow fidelity the inner collective is the flow-level one, so each chunk is simulated (and
// memoised per size) on its own; since a chunk starts on an idle network, the sum is exact.
// Gathers are chunked the same way (contribution and aggregate split into as many parts), and so
// are reduce-scatters and allgathers.
#pragma once

#include "sgdsim/collectives/collective.hpp"

namespace sgdsim {

// communication.collective.chunks at most.
inline constexpr std::int64_t max_collective_chunks = 4096;

class ChunkedCollective final : public Collective,
                                public Gather,
                                public Shards,
                                public TransferPrograms {
 public:
  ChunkedCollective(std::shared_ptr<const Collective> inner, int chunks);

  std::string name() const override { return inner_->name(); }
  int ranks() const override { return inner_->ranks(); }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  // The first chunk's: only it can run beside the message ahead (chunks follow one another).
  Time overlappable(Bytes message) const override;
  Time queued_overlap(Bytes message) const override;
  Time kernel_time(Bytes message) const override;
  double bytes_sent_per_rank(Bytes message) const override;
  // Each chunk goes through the inner collective's reduction stages on its own.
  Requantisation requantisation() const override;
  const Gather* gather() const override { return inner_->gather() ? this : nullptr; }
  const Shards* shards() const override { return inner_->shards() ? this : nullptr; }
  const TransferPrograms* programs() const override { return inner_->programs() ? this : nullptr; }
  Time gather_time(Bytes contribution, Bytes aggregate) const override;
  double gather_bytes_sent_per_rank(Bytes contribution) const override;
  int gather_decodes() const override { return inner_->gather()->gather_decodes(); }
  Time shard_time(ShardOp op, Bytes buffer) const override;
  double shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const override;
  // The chunks' programs one after another.
  TransferProgram program(Bytes message) const override;
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override;
  TransferProgram shard_program(ShardOp op, Bytes buffer) const override;

 private:
  // The C chunk sizes of S as (size, how many): S mod C chunks of floor(S/C) + 1 bytes and the
  // rest of floor(S/C); a message smaller than C bytes has only S chunks, of one byte each.
  struct Split {
    std::int64_t small = 0;  // bytes of the smaller chunks
    std::int64_t smalls = 0;
    std::int64_t larges = 0;  // chunks of small + 1 bytes

    std::int64_t count() const { return smalls + larges; }
    Bytes first() const { return Bytes(smalls > 0 ? small : small + 1); }  // sent first

    // Sum of one(bytes) over the chunks.
    template <class T, class F>
    T sum(const F& one) const {
      T total = one(small) * smalls;
      if (larges > 0) total += one(small + 1) * larges;
      return total;
    }
    // The chunks' programs (one(bytes)) one after another.
    template <class F>
    TransferProgram concatenated(const F& one) const {
      TransferProgram program;
      const auto append = [&](std::int64_t bytes, std::int64_t times) {
        const TransferProgram chunk = one(bytes);
        for (std::int64_t k = 0; k < times; ++k) {
          program.insert(program.end(), chunk.begin(), chunk.end());
        }
      };
      append(small, smalls);
      if (larges > 0) append(small + 1, larges);
      return program;
    }
  };
  Split split(Bytes message) const;

  std::shared_ptr<const Collective> inner_;
  int chunks_;
};

}  // namespace sgdsim
