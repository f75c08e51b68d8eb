// Tests for training/per_rank_simulation.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/per_rank_simulation.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("a straggler sets the pace: its slowdown stretches the whole iteration") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  ComputeHeterogeneity heterogeneity;
  heterogeneity.stragglers[2] = 2.0;
  const SimulationResult result = simulate_per_rank(profile, detail::plan_single_message(profile),
                                                    collective, 4, heterogeneity, 3, 1);
  // Rank 2 runs forward 8 ms and backward 11.6 ms; the one message (5000 B, 5.5 ms) starts when
  // it has its gradients: 19.6 ms; rank 2 updates after 25.1 ms for 1 ms: 26.1 ms per iteration.
  CHECK(result.iterations[0].duration() == Time::from_us(26100.0));
  CHECK(result.iterations[2].duration() == Time::from_us(26100.0));
}

TEST_CASE("jitter makes iterations longer on average: the slowest of N ranks is waited for") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  const MergePlan plan = detail::plan_wfbp(profile);
  ComputeHeterogeneity none;
  ComputeHeterogeneity jitter;
  jitter.jitter_cv = 0.1;
  const Time steady =
      simulate_per_rank(profile, plan, collective, 64, none, 50, 7).mean_iteration();
  const Time noisy =
      simulate_per_rank(profile, plan, collective, 64, jitter, 50, 7).mean_iteration();
  // The maximum of 64 lognormal factors with cv 0.1 is about 1 + 2.4 * 0.1 on average, and the
  // 10.3 ms of compute dominate the 13 ms iteration: expect a few percent, well above zero.
  CHECK(noisy > steady + Time::from_us(500.0));
  // The same seed gives the same run; another seed a different one.
  CHECK(simulate_per_rank(profile, plan, collective, 64, jitter, 50, 7).mean_iteration() == noisy);
  CHECK(simulate_per_rank(profile, plan, collective, 64, jitter, 50, 8).mean_iteration() != noisy);
}
