// The collective family's registry, and the secant cost of non-linear collectives.
#include "sgdsim/collectives/collective.hpp"

#include <algorithm>

#include "collective_list.hpp"
#include "sgdsim/collectives/collective_registry.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) CollectiveEntry name##_collective();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<CollectiveEntry>& collective_registry() {
#define SGDSIM_ENTRY(name) name##_collective(),
  static const Registry<CollectiveEntry> registry("collective", {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

std::string_view shard_op_name(ShardOp op) {
  return op == ShardOp::reduce_scatter ? "reduce-scatter" : "allgather";
}

TransferProgram TransferPrograms::shard_program(ShardOp /*op*/, Bytes /*buffer*/) const {
  throw InvariantError("a shard program asked of a collective without reduce-scatter");
}

Time Collective::overlappable(Bytes message) const {
  return std::min(linear_cost().startup, time(message));
}

Time scaled_share(Time part, Time of, Time whole) {
  if (part >= of) return whole;
  if (part <= Time::zero() || of <= Time::zero()) return Time::zero();
  return Time::rounded_ps(static_cast<double>(whole.ps()) * static_cast<double>(part.ps()) /
                          static_cast<double>(of.ps()));
}

LinearCost secant_cost(const Collective& collective, Bytes small, Bytes large) {
  const Time t_small = collective.time(small);
  const Time t_large = collective.time(large);
  const double slope = static_cast<double>((t_large - t_small).ps()) /
                       static_cast<double>(large.count() - small.count());
  return LinearCost{t_small - Time::from_ps(static_cast<std::int64_t>(slope * small.count())),
                    slope};
}

}  // namespace sgdsim
