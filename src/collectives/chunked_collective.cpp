// A collective run in chunks one after another.
#include "sgdsim/collectives/chunked_collective.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

ChunkedCollective::ChunkedCollective(std::shared_ptr<const Collective> inner, int chunks)
    : inner_(std::move(inner)), chunks_(chunks) {
  SGDSIM_ASSERT(inner_ != nullptr && chunks_ >= 1, "a chunked collective needs >= 1 chunk");
}

ChunkedCollective::Split ChunkedCollective::split(Bytes message) const {
  const std::int64_t bytes = message.count();
  const std::int64_t count = std::max<std::int64_t>(1, std::min<std::int64_t>(chunks_, bytes));
  const std::int64_t larges = bytes % count;
  return Split{bytes / count, count - larges, larges};
}

Time ChunkedCollective::time(Bytes message) const {
  // Queued behind one another, each chunk but the first runs its queued overlap beside the one
  // ahead, as on the merge policies' stream (none for NCCL's kind; BytePS pipelines its queued
  // tensors). The chunks differ by a byte at most, so each ends after what the next runs beside
  // it, and the stream's rule max(t, end + t - overlap) is the sum.
  const Split s = split(message);
  return s.sum<Time>([&](std::int64_t bytes) {
    return inner_->time(Bytes(bytes)) - inner_->queued_overlap(Bytes(bytes));
  }) + inner_->queued_overlap(s.first());
}

LinearCost ChunkedCollective::linear_cost() const {
  LinearCost cost = inner_->linear_cost();
  cost.startup = cost.startup * std::int64_t{chunks_};
  return cost;
}

Time ChunkedCollective::overlappable(Bytes message) const {
  return inner_->overlappable(split(message).first());
}

Time ChunkedCollective::queued_overlap(Bytes message) const {
  return inner_->queued_overlap(split(message).first());
}

Time ChunkedCollective::kernel_time(Bytes message) const {
  // Each chunk's kernels, at most the chunks' time together (less what queued chunks run beside
  // the one ahead).
  return std::min(time(message), split(message).sum<Time>([&](std::int64_t bytes) {
    return inner_->kernel_time(Bytes(bytes));
  }));
}

double ChunkedCollective::bytes_sent_per_rank(Bytes message) const {
  return split(message).sum<double>(
      [&](std::int64_t bytes) { return inner_->bytes_sent_per_rank(Bytes(bytes)); });
}

Collective::Requantisation ChunkedCollective::requantisation() const {
  Requantisation r = inner_->requantisation();
  r.stages *= chunks_;
  r.chunk_fraction /= chunks_;
  return r;
}

Time ChunkedCollective::gather_time(Bytes contribution, Bytes aggregate) const {
  const Split s = split(contribution);
  const Bytes part(aggregate.count() / s.count());
  return s.sum<Time>(
      [&](std::int64_t bytes) { return inner_->gather()->gather_time(Bytes(bytes), part); });
}

double ChunkedCollective::gather_bytes_sent_per_rank(Bytes contribution) const {
  return inner_->gather()->gather_bytes_sent_per_rank(contribution);
}

Time ChunkedCollective::shard_time(ShardOp op, Bytes buffer) const {
  return split(buffer).sum<Time>(
      [&](std::int64_t bytes) { return inner_->shards()->shard_time(op, Bytes(bytes)); });
}

double ChunkedCollective::shard_bytes_sent_per_rank(ShardOp op, Bytes buffer) const {
  return split(buffer).sum<double>([&](std::int64_t bytes) {
    return inner_->shards()->shard_bytes_sent_per_rank(op, Bytes(bytes));
  });
}

TransferProgram ChunkedCollective::program(Bytes message) const {
  return split(message).concatenated(
      [&](std::int64_t bytes) { return inner_->programs()->program(Bytes(bytes)); });
}

TransferProgram ChunkedCollective::gather_program(Bytes contribution, Bytes aggregate) const {
  const Split s = split(contribution);
  const Bytes part(aggregate.count() / s.count());
  return s.concatenated(
      [&](std::int64_t bytes) { return inner_->programs()->gather_program(Bytes(bytes), part); });
}

TransferProgram ChunkedCollective::shard_program(ShardOp op, Bytes buffer) const {
  return split(buffer).concatenated(
      [&](std::int64_t bytes) { return inner_->programs()->shard_program(op, Bytes(bytes)); });
}

}  // namespace sgdsim
