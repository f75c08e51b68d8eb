// Tests for training/per_rank_simulation.hpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "printers.hpp"
#include "sgdsim/scenario/rank_spread.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/per_rank_simulation.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("compute slowed beside collectives warps every rank's backward alike, by hand") {
  // WFBP on the four-layer trace (gradients ready after 1.0, 3.0, 4.0 and 5.8 ms of backward's
  // work; messages of 1.5, 2.5, 1.0 and 2.0 ms), two ranks, rank 1 at half speed, backward at
  // half speed while a message is in flight (slowdown 2). Rank 1 starts backward 8 ms in,
  // rank 0 4 ms in; from rank 1's start (the origin), rank r's gradient at work x is ready when
  // the compute the wall clock allows reaches intercept + factor x: -4 + x and 2x, so rank 1's
  // 2x is the latest. Wall times from the origin:
  //   L4: 2 (nothing in flight yet), sent 2-3.5; that span allows 0.75 of compute (2.75).
  //   L3: 6 of compute: 3.5 + 3.25 = 6.75, sent 6.75-9.25 (6 to 7.25 of compute).
  //   L2: 8: 9.25 + 0.75 = 10, sent 10-11 (8 to 8.5).
  //   L1: 11.6: 11 + 3.1 = 14.1, sent 14.1-16.1; rank 1's backward ends at 14.1.
  // Rank 1 updates from 16.1 + 8 = 24.1 ms for 2 x 0.5: the iteration takes 25.1 ms (22.6 at
  // full speed: L1 sent 11.6-13.6, so 13.6 + 8 + 1).
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  ComputeHeterogeneity heterogeneity;
  heterogeneity.stragglers[1] = 2.0;
  const MergePlan plan = detail::plan_wfbp(profile);
  const SimulationResult slowed =
      simulate_per_rank(profile, plan, collective, 2, heterogeneity, 1, 1, 2.0);
  CHECK(slowed.iterations[0].duration() == Time::from_us(25100.0));
  const IterationTimeline& timeline = slowed.iterations[0];
  REQUIRE(timeline.messages.size() == 4);
  CHECK(timeline.messages[1].ready == Time::from_us(6750.0));
  CHECK(timeline.messages[2].start == Time::from_us(10000.0));
  CHECK(timeline.messages[3].start == Time::from_us(14100.0));
  CHECK(timeline.backward_end - timeline.backward_start == Time::from_us(14100.0));
  CHECK(simulate_per_rank(profile, plan, collective, 2, heterogeneity, 1, 1, 1.0)
            .iterations[0]
            .duration() == Time::from_us(22600.0));
  // Without stragglers the ranks are the one worker of analytic fidelity (14.8 ms at 2,
  // iteration_simulation_test).
  CHECK(simulate_per_rank(profile, plan, collective, 2, {}, 1, 1, 2.0).mean_iteration() ==
        simulate_iterations(profile, plan, collective, 1, 2.0).mean_iteration());
  // The same where the collective pipelines queued messages (14.55 and 12.3 ms there).
  const test::LinearCollective pipelined(Time::from_us(500.0), 1e6, true);
  for (const double slowdown : {1.0, 2.0}) {
    CHECK(simulate_per_rank(profile, plan, pipelined, 2, {}, 1, 1, slowdown).mean_iteration() ==
          simulate_iterations(profile, plan, pipelined, 1, slowdown).mean_iteration());
  }
}

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
  // It ends backward last in all 3 iterations, and its spread is that one duration.
  CHECK(result.slowest_rank == 2);
  CHECK(result.slowest_rank_iterations == 3);
  const std::optional<RankSpread> spread = rank_spread(result);
  REQUIRE(spread.has_value());
  CHECK(spread->p50 == Time::from_us(26100.0));
  CHECK(spread->p99 == Time::from_us(26100.0));
  CHECK(spread->slowest_rank_share == 1.0);
}

TEST_CASE("identical ranks tie: the lowest rank is named, analytic results have no spread") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  const MergePlan plan = detail::plan_single_message(profile);
  const SimulationResult same = simulate_per_rank(profile, plan, collective, 4, {}, 2, 1);
  CHECK(same.slowest_rank == 0);
  CHECK(same.slowest_rank_iterations == 2);
  CHECK_FALSE(rank_spread(simulate_iterations(profile, plan, collective, 2)).has_value());
}

TEST_CASE("rank spread: nearest-rank percentiles over every iteration") {
  // Durations 1..100 ms in reverse order. Nearest rank: the ceil(q n)-th smallest, so p50 is the
  // 50th (50 ms), p99 the 99th (99 ms); the slowest is 100 ms. Rank 5 was last in 40 of 100.
  SimulationResult hundred;
  for (int ms = 100; ms >= 1; --ms) hundred.durations.push_back(Time::from_us(1000.0 * ms));
  hundred.slowest_rank = 5;
  hundred.slowest_rank_iterations = 40;
  const std::optional<RankSpread> spread = rank_spread(hundred);
  REQUIRE(spread.has_value());
  CHECK(spread->p50 == Time::from_us(50000.0));
  CHECK(spread->p99 == Time::from_us(99000.0));
  CHECK(spread->slowest_iteration == Time::from_us(100000.0));
  CHECK(spread->slowest_rank == 5);
  CHECK(spread->slowest_rank_share == 0.4);
  // Of 10 iterations, p99 is the ceil(9.9) = 10th: the slowest.
  SimulationResult ten;
  for (int ms = 1; ms <= 10; ++ms) ten.durations.push_back(Time::from_us(1000.0 * ms));
  ten.slowest_rank = 0;
  ten.slowest_rank_iterations = 10;
  CHECK(rank_spread(ten)->p99 == Time::from_us(10000.0));
  CHECK(rank_spread(ten)->p50 == Time::from_us(5000.0));
}

TEST_CASE("per_rank keeps running totals: every iteration counted, the first 1,000 kept") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  ComputeHeterogeneity jitter;
  jitter.jitter_cv = 0.1;
  const SimulationResult run =
      simulate_per_rank(profile, detail::plan_wfbp(profile), collective, 8, jitter, 1200, 3);
  CHECK(run.count == 1200);
  REQUIRE(run.iterations.size() == SimulationResult::kept_iterations);
  // Each iteration starts where the one before ended (when its last rank began it), so the
  // total of the durations is the end of the last one, and the mean is that over 1,200.
  for (std::size_t i = 1; i < run.iterations.size(); ++i) {
    CHECK(run.iterations[i].start == run.iterations[i - 1].end);
  }
  CHECK(run.total == run.last.end);
  CHECK(run.mean_iteration() == Time::from_ps(run.last.end.ps() / 1200));
  // Jitter makes the iterations differ.
  CHECK(run.iterations[0].duration() != run.iterations[1].duration());
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

TEST_CASE("the upper envelope answers every question as the latest of all lines does") {
  // 2,000 lines with random slopes (some equal, as ranks without jitter share a factor) and
  // intercepts, asked at 500 increasing points: the envelope must give exactly the brute-force
  // maximum (the same line's value, computed the same way).
  Rng rng(7);
  std::vector<std::pair<double, double>> lines;
  for (int i = 0; i < 2000; ++i) {
    const double slope = 0.5 + std::floor(rng.next_unit() * 400.0) / 200.0;  // 400 distinct
    lines.emplace_back(slope, -1e9 * rng.next_unit());
  }
  std::sort(lines.begin(), lines.end());
  UpperEnvelope envelope;
  for (const auto& [slope, intercept] : lines) envelope.add(slope, intercept);
  for (int q = 0; q < 500; ++q) {
    const double x = 4e6 * q;  // up to 2e9: the crossings of these lines lie in this range
    double latest = -std::numeric_limits<double>::infinity();
    for (const auto& [slope, intercept] : lines) latest = std::max(latest, intercept + slope * x);
    REQUIRE(envelope.at(x) == latest);
  }
}
