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

// Fills result.convergence and result.convergence_source.
void run_convergence(ScenarioResult& result, const ConvergenceSpec& spec);

}  // namespace sgdsim
