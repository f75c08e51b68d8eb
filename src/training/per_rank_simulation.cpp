// Per-rank compute timelines joined by synchronous collectives.
#include "sgdsim/training/per_rank_simulation.hpp"

#include <algorithm>
#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// t scaled by a factor, rounded to the picosecond (exact for factor 1).
Time scaled(Time t, double factor) {
  return factor == 1.0 ? t : Time::from_ps(std::llround(static_cast<double>(t.ps()) * factor));
}

// Standard normal by Box-Muller from two uniform draws.
double standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.next_unit();  // (0, 1]
  const double u2 = rng.next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

}  // namespace

SimulationResult simulate_per_rank(const BackwardProfile& profile, const MergePlan& plan,
                                   const Collective& collective, int gpus,
                                   const ComputeHeterogeneity& heterogeneity, int iterations,
                                   std::uint64_t seed) {
  SGDSIM_ASSERT(gpus >= 1 && iterations >= 1, "per-rank simulation needs ranks and iterations");
  check_plan(profile, plan);
  const auto ranks = static_cast<std::size_t>(gpus);
  std::vector<double> base(ranks, 1.0);
  for (std::size_t r = 0; r < ranks && r < heterogeneity.scale.size(); ++r) {
    base[r] = heterogeneity.scale[r];
  }
  for (const auto& [rank, slowdown] : heterogeneity.stragglers) {
    if (rank >= 0 && static_cast<std::size_t>(rank) < ranks)
      base[static_cast<std::size_t>(rank)] *= slowdown;
  }
  // Lognormal with mean 1: sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
  const double sigma = std::sqrt(std::log1p(heterogeneity.jitter_cv * heterogeneity.jitter_cv));
  Rng rng(seed);

  std::vector<Bytes> bytes;
  std::vector<Time> ready_offset;  // from the start of backward, cumulative max as in the FIFO
  std::vector<Time> cost;
  Time previous;
  for (const MessageGroup& group : plan) {
    bytes.push_back(group_bytes(profile, group));
    previous = std::max(previous, group_ready(profile, group));
    ready_offset.push_back(previous);
    cost.push_back(collective.time(bytes.back()));
  }

  SimulationResult result;
  std::vector<Time> start(ranks, Time::zero());
  std::vector<double> factor(ranks, 1.0);
  std::vector<Time> backward_start(ranks);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (std::size_t r = 0; r < ranks; ++r) {
      factor[r] = base[r] *
                  (sigma > 0.0 ? std::exp(sigma * standard_normal(rng) - sigma * sigma / 2) : 1.0);
      backward_start[r] = start[r] + scaled(profile.forward, factor[r]);
    }
    IterationTimeline timeline;
    timeline.start = *std::max_element(start.begin(), start.end());
    timeline.backward_start = *std::max_element(backward_start.begin(), backward_start.end());
    Time stream_free = Time::zero();
    for (std::size_t m = 0; m < plan.size(); ++m) {
      Time ready = Time::zero();  // when the last participant has this message's gradients
      for (std::size_t r = 0; r < ranks; ++r) {
        ready = std::max(ready, backward_start[r] + scaled(ready_offset[m], factor[r]));
      }
      const Time begin = std::max(stream_free, ready);
      stream_free = begin + cost[m];
      timeline.messages.push_back({plan[m], bytes[m], ready - timeline.backward_start,
                                   begin - timeline.backward_start,
                                   stream_free - timeline.backward_start});
    }
    timeline.communication_end = plan.empty() ? timeline.backward_start : stream_free;
    Time latest_end;
    Time latest_backward;
    for (std::size_t r = 0; r < ranks; ++r) {
      const Time backward_end = backward_start[r] + scaled(profile.backward, factor[r]);
      latest_backward = std::max(latest_backward, backward_end);
      start[r] = std::max(backward_end, stream_free) + scaled(profile.optimizer, factor[r]);
      latest_end = std::max(latest_end, start[r]);
    }
    timeline.backward_end = latest_backward;
    timeline.end = latest_end;
    result.iterations.push_back(std::move(timeline));
  }
  // Per-iteration durations from end to end, so a late rank shows up as a longer iteration.
  for (std::size_t i = 1; i < result.iterations.size(); ++i) {
    result.iterations[i].start = result.iterations[i - 1].end;
  }
  result.events = static_cast<std::uint64_t>(iterations) * ranks * (plan.size() + 3);
  return result;
}

}  // namespace sgdsim
