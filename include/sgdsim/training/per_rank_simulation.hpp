// per_rank fidelity: every GPU keeps its own compute timeline. Each iteration, rank r's forward,
// backward and update take their profile times scaled by a factor f_r = scale_r * slowdown_r *
// jitter_r: a fixed per-rank scale (heterogeneous GPUs), a named straggler's slowdown, and a
// seeded lognormal jitter with mean 1 and the given coefficient of variation, drawn per rank per
// iteration. A collective starts when its last participant is ready and the communication
// stream is free; each rank updates once its own backward and the last message are done, and
// starts its next iteration right after. With every factor 1 this is exactly the analytic
// simulation (tested). Cost per iteration: O(GPUs log GPUs + messages) with jitter (the ranks
// are sorted by their factor, and the last rank ready for each message is read off the upper
// envelope of their ready times), O(GPUs + messages) without.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/core/rng.hpp"
#include "sgdsim/training/iteration_simulation.hpp"

namespace sgdsim {

struct ComputeHeterogeneity {
  std::vector<double> scale;         // per rank; empty means 1 for all
  std::map<int, double> stragglers;  // rank -> slowdown factor
  double jitter_cv = 0.0;            // coefficient of variation of the lognormal jitter
};

// Each rank's fixed factor: its scale times its straggler's slowdown (1 where none is given).
std::vector<double> rank_base_factors(const ComputeHeterogeneity& heterogeneity, int gpus);
// The sigma of a lognormal jitter with mean 1 and coefficient of variation cv:
// sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
double jitter_sigma(double cv);
// One draw of that jitter (1 without jitter, and then no draw is taken from `rng`).
double jitter_factor(double sigma, Rng& rng);

// The latest of many lines t_r(x) = intercept_r + slope_r x (the ranks' ready times as a function
// of a message's offset into backward): add the lines in increasing slope, then ask for
// non-decreasing x. Building costs O(lines), all the questions O(lines + questions).
class UpperEnvelope {
 public:
  void clear();
  void add(double slope, double intercept);
  double at(double x);  // the largest t_r(x); x must not decrease between calls

 private:
  struct Line {
    double slope;
    double intercept;
    double at(double x) const { return intercept + slope * x; }
  };
  std::vector<Line> hull_;  // the lines that are the latest somewhere, in increasing slope
  std::size_t at_ = 0;      // the one that is the latest at the last x asked
};

// Iteration timelines use the slowest rank: start = latest start, backward_end = latest
// backward end, end = latest update end. Messages are offsets from the latest backward start.
// `overlap_slowdown` slows every rank's backward while a collective is in flight, as in
// simulate_iterations: the stream is every rank's, so its busy spans warp all ranks' compute
// alike, and the latest rank in full-speed work is the latest on the wall clock.
SimulationResult simulate_per_rank(const BackwardProfile& profile, const MergePlan& plan,
                                   const Collective& collective, int gpus,
                                   const ComputeHeterogeneity& heterogeneity, int iterations,
                                   std::uint64_t seed, double overlap_slowdown = 1.0);

}  // namespace sgdsim
