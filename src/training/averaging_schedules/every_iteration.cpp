// Ordinary synchronous SGD: gradients averaged every iteration (overlapped with backward by the
// merge policy).
#include "sgdsim/training/averaging_schedule.hpp"

namespace sgdsim {

AveragingEntry every_iteration_schedule() {
  AveragingEntry entry;
  entry.name = "every_iteration";
  entry.description = "synchronous SGD: gradients averaged every iteration";
  entry.rounds = [](const Settings&, int run) {
    std::vector<int> rounds;
    for (int at = 1; at <= run; ++at) rounds.push_back(at);
    return rounds;
  };
  entry.label = [](const Settings&) { return std::string("every_iteration"); };
  entry.every_iteration = true;
  return entry;
}

}  // namespace sgdsim
