// Compressed aggregation: encode + (allreduce or gather) at wire size + decode(s).
#include "sgdsim/collectives/compressed_collective.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

CompressedCollective::CompressedCollective(CompressorSpec spec, CompressionProfile profile,
                                           int bytes_per_element,
                                           std::shared_ptr<const Collective> inner)
    : spec_(spec),
      profile_(std::move(profile)),
      bytes_per_element_(bytes_per_element),
      inner_(std::move(inner)) {
  SGDSIM_ASSERT(bytes_per_element_ > 0 && inner_ != nullptr, "compressed collective without base");
  if (gathered(spec_) && inner_->gather() == nullptr) {
    throw InputError(fmt::format(
        "compressor {} aggregates by gathering contributions, which collective {} cannot do",
        compressor_label(spec_), inner_->name()));
  }
}

std::string CompressedCollective::name() const {
  return fmt::format("{} + {}", inner_->name(), compressor_label(spec_));
}

Bytes CompressedCollective::wire_bytes(Bytes message) const {
  const std::int64_t d = elements(message);
  if (d == 0) return Bytes(0);
  return Bytes((wire_bits(spec_, d) + 7) / 8);
}

Time CompressedCollective::encode(Bytes message) const {
  const std::int64_t d = elements(message);
  return d == 0 ? Time::zero() : encode_time(spec_, d, profile_);
}

Time CompressedCollective::own_decode(Bytes message) const {
  const std::int64_t d = elements(message);
  return d == 0 ? Time::zero() : decode_time(spec_, d, profile_);
}

Time CompressedCollective::decode(Bytes message) const {
  const std::int64_t d = elements(message);
  if (d == 0) return Time::zero();
  const Time one = own_decode(message);
  if (gathered(spec_)) return one * inner_->gather()->gather_decodes();
  if (summable(spec_)) return one;
  const Requantisation stages = inner_->requantisation();
  const auto chunk = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(static_cast<double>(d) * stages.chunk_fraction));
  return one + (decode_time(spec_, chunk, profile_) + encode_time(spec_, chunk, profile_)) *
                   stages.stages;
}

Time CompressedCollective::time(Bytes message) const {
  const Bytes wire = wire_bytes(message);
  const Time transfer =
      gathered(spec_) ? inner_->gather()->gather_time(wire, message) : inner_->time(wire);
  return encode(message) + transfer + decode(message);
}

Time CompressedCollective::kernel_time(Bytes message) const {
  // A worker's own encoding and decoding of the result are kernels; the transfer and what its
  // aggregation decodes and re-encodes on the way (the other contributions of a gather, the
  // stages that requantise) run where the inner collective runs, in its share of kernels (a
  // ring's GPUs, a server's CPU; a gather in that of its allreduce of the wire bytes).
  const Bytes wire = wire_bytes(message);
  const Time worker = encode(message) + own_decode(message);
  return worker +
         scaled_share(inner_->kernel_time(wire), inner_->time(wire), time(message) - worker);
}

Time CompressedCollective::overlappable(Bytes message) const {
  if (gathered(spec_)) return Collective::overlappable(message);
  return encode(message) + inner_->overlappable(wire_bytes(message));
}

Time CompressedCollective::queued_overlap(Bytes message) const {
  if (gathered(spec_)) return Time::zero();
  const Time inner = inner_->queued_overlap(wire_bytes(message));
  return inner > Time::zero() ? encode(message) + inner : Time::zero();
}

LinearCost CompressedCollective::linear_cost() const {
  return secant_cost(*this, Bytes(bytes_per_element_), Bytes::from_mib(64));
}

TransferProgram CompressedCollective::program(Bytes message) const {
  const Bytes wire = wire_bytes(message);
  const TransferPrograms& inner = *inner_->programs();
  return gathered(spec_) ? inner.gather_program(wire, message) : inner.program(wire);
}

double CompressedCollective::bytes_sent_per_rank(Bytes message) const {
  const Bytes wire = wire_bytes(message);
  return gathered(spec_) ? inner_->gather()->gather_bytes_sent_per_rank(wire)
                         : inner_->bytes_sent_per_rank(wire);
}

}  // namespace sgdsim
