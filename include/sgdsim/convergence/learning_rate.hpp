// Learning-rate schedules of the convergence engine.
#pragma once

#include <string>
#include <vector>

namespace sgdsim::convergence {

// The learning rate eta_t at iteration t (1-based) of a run of T iterations, from a base eta:
//   constant  eta;
//   step      eta gamma^k, k the milestones already passed (t > m): m = 100 decays from 101 on;
//   cosine    eta/2 (1 + cos(pi (t - w - 1) / (T - w))) after the warm-up: eta at its first
//             iteration, eta/2 at mid-run, near zero at the last (Loshchilov & Hutter 2017,
//             SGDR without restarts);
// and before either, a linear warm-up over the first w iterations: eta t / w (Goyal et al. 2017,
// "gradual warmup").
struct LearningRateSchedule {
  enum class Decay { constant, step, cosine };
  Decay decay = Decay::constant;
  std::vector<int> milestones;  // step: increasing
  double gamma = 0.1;           // step: the factor per milestone
  int warmup = 0;
  double at(double base, int t, int iterations) const;
};

// The decays' names as scenarios spell them, in enum order.
const std::vector<std::string>& learning_rate_decays();

}  // namespace sgdsim::convergence
