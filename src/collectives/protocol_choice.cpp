// The fastest NCCL protocol per message.
#include "sgdsim/collectives/protocol_choice.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

ProtocolChoice::ProtocolChoice(std::vector<std::pair<NcclProtocol, CollectivePtr>> candidates)
    : candidates_(std::move(candidates)) {
  SGDSIM_ASSERT(!candidates_.empty(), "a protocol choice needs candidates");
}

NcclProtocol ProtocolChoice::chosen(Bytes message) const {
  const auto best = std::min_element(candidates_.begin(), candidates_.end(),
                                     [message](const auto& a, const auto& b) {
                                       return a.second->time(message) < b.second->time(message);
                                     });
  return best->first;
}

Time ProtocolChoice::time(Bytes message) const {
  Time best = Time::max();
  for (const auto& [protocol, collective] : candidates_) {
    best = std::min(best, collective->time(message));
  }
  return best;
}

LinearCost ProtocolChoice::linear_cost() const {
  return secant_cost(*this, Bytes(1), Bytes::from_mib(64));
}

double ProtocolChoice::bytes_sent_per_rank(Bytes message) const {
  return first().bytes_sent_per_rank(message);
}

Time ProtocolChoice::gather_time(Bytes contribution, Bytes aggregate) const {
  Time best = Time::max();
  for (const auto& [protocol, collective] : candidates_) {
    best = std::min(best, collective->gather()->gather_time(contribution, aggregate));
  }
  return best;
}

Time ProtocolChoice::shard_time(ShardOp op, Bytes buffer) const {
  Time best = Time::max();
  for (const auto& [protocol, collective] : candidates_) {
    best = std::min(best, collective->shards()->shard_time(op, buffer));
  }
  return best;
}

double ProtocolChoice::gather_bytes_sent_per_rank(Bytes contribution) const {
  return first().gather()->gather_bytes_sent_per_rank(contribution);
}

}  // namespace sgdsim
