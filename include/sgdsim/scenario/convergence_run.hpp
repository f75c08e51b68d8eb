// Time to target: the convergence engine (convergence/engine.hpp) trains the scenario's task
// once per configuration it compares, and the communication simulation prices each iteration.
//   - Every compressor of the scenario (none included) with full-communication SGD, biased ones
//     with error feedback: iterations to target from the engine, each iteration at the
//     simulated time of that compressor's fastest merge policy.
//   - Every averaging schedule: SGD for every_iteration, otherwise local SGD averaging after
//     exactly the iterations the schedule places its rounds: iterations to target from the
//     engine, time from the schedule's local and averaging iterations.
// The engine's workers stand for the simulated GPUs: the iterations it counts with W workers
// (a global batch of W x b) are timed as iterations of the simulated N-GPU cluster, without
// rescaling, since a synchronous step is one iteration whatever N is; the report says so when
// W differs from N, as the global batch, and so the iterations needed, would differ too.
#pragma once

#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

// sgdsim's closed-loop rule (not ADPSGD's, whose text was not available here): with R rounds
// left of a budget over a run of T iterations, the fair period is (T - last) / R. The first
// round comes after one fair period, and the variance measured then becomes the threshold;
// afterwards the models are averaged when the variance reaches the threshold, or after twice
// the fair period at the latest, and each round scales the threshold by fair period / actual
// period, raising it when rounds come faster than the budget allows and lowering it when slower.
// Averaging thus follows the variance (densely while the models drift apart fast, early in
// training) while the budget lasts the run.
class VarianceRule {
 public:
  VarianceRule(int run, int budget) : run_(run), left_(budget) {}
  // Whether to average after iteration t, given the variance measured there.
  bool operator()(int t, double variance);

 private:
  int run_;
  int left_;
  int last_ = 0;
  double threshold_ = -1.0;  // unset until the first round
};

// The configurations sharing first place to the target: the lowest mean time over seeds (a
// configuration competes only where every seed reached the target) and every other whose 95%
// interval does not lie wholly above the leader's. With one seed there is no interval: the
// lowest time alone. Empty where no configuration reached the target in every seed.
std::vector<const ConvergenceOutcome*> first_to_target(
    const std::vector<ConvergenceOutcome>& outcomes);

// Fills result.convergence and result.convergence_source.
void run_convergence(ScenarioResult& result, const ConvergenceSpec& spec);

}  // namespace sgdsim
