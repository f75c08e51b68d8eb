// A collective carrying compressed gradients: each message is encoded, aggregated at its wire
// size, then decoded; encode and decode run on the communication stream. Aggregation is
//   summable formats (fp16, randk, ratio): the collective itself at wire size;
//   quantised formats aggregated by allreduce: the same, plus a decode-add-re-encode of a chunk
//     at each of the collective's reduction stages (ring: N-1 chunks of S/N);
//   gathered formats: the collective's gather of contributions, each decoded by every worker.
// The cost is no longer exactly linear in S (wire bits have ceil(log2 d) index terms); its
// linear_cost() is the secant between one element and 64 MiB. It composes its inner collective's
// roles: allreduce (or gather, which a gathered format requires of it) for time(), and transfer
// programs at wire size when the inner collective has them. Compressed messages are not gathered
// again, so it plays no Gather role itself.
#pragma once

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/compression/cost_model.hpp"

namespace sgdsim {

class CompressedCollective final : public Collective, public TransferPrograms {
 public:
  // `inner` may be shared with other compressors (and the uncompressed runs) of one scenario, so
  // that its topology and, at flow fidelity, its memoised prices are built once. A gathered
  // format on a collective that cannot gather is an InputError.
  CompressedCollective(CompressorSpec spec, CompressionProfile profile, int bytes_per_element,
                       std::shared_ptr<const Collective> inner);

  std::string name() const override;
  int ranks() const override { return inner_->ranks(); }
  Time time(Bytes message) const override;
  LinearCost linear_cost() const override;
  // The encoding and what the inner collective runs beside the data ahead of the wire bytes
  // (BytePS's stages pipeline compressed tensors too; for queued messages only where the inner
  // collective pipelines them). Gathered contributions: the defaults.
  Time overlappable(Bytes message) const override;
  Time queued_overlap(Bytes message) const override;
  Time kernel_time(Bytes message) const override;
  double bytes_sent_per_rank(Bytes message) const override;
  Requantisation requantisation() const override { return inner_->requantisation(); }
  // Rows gathered with allgather_gradients go through the inner collective's gather as they
  // are: Horovod's allreduce allgathers an IndexedSlices' values and indices with no compression
  // (horovod/tensorflow/__init__.py), which applies to the tensors it allreduces.
  const Gather* gather() const override { return inner_->gather(); }
  const TransferPrograms* programs() const override {
    return inner_->programs() != nullptr ? this : nullptr;
  }
  // The wire-size transfers only (encode and decode are priced by time()).
  TransferProgram program(Bytes message) const override;
  // The inner collective's gather of raw contributions (this one gathers nothing itself).
  TransferProgram gather_program(Bytes contribution, Bytes aggregate) const override {
    return inner_->programs()->gather_program(contribution, aggregate);
  }

  const CompressorSpec& spec() const { return spec_; }
  Bytes wire_bytes(Bytes message) const;
  Time encode(Bytes message) const;
  Time decode(Bytes message) const;

 private:
  // A worker's decoding of the result alone (decode() adds what its aggregation decodes and
  // re-encodes on the way).
  Time own_decode(Bytes message) const;
  std::int64_t elements(Bytes message) const { return message.count() / bytes_per_element_; }

  CompressorSpec spec_;
  CompressionProfile profile_;
  int bytes_per_element_;
  std::shared_ptr<const Collective> inner_;
};

}  // namespace sgdsim
