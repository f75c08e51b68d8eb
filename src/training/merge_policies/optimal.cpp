// The contiguous grouping that ends communication earliest under the collective's own cost,
// by dynamic programming over prefixes (O(L^2) collective prices); with compute slowed beside
// the collectives, over each prefix's Pareto front of (end, lag).
#include <algorithm>
#include <tuple>
#include <vector>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

namespace {

// Compute at 1 / slowdown while a message is in flight. After a prefix's messages the wall clock
// is ahead of backward's work by their total time x (1 - 1 / slowdown), the lag, whatever their
// timing: so a message of the layers whose last is ready at work r, taking t, begins at
// max(end, r + lag) and ends t later, and adds t (1 - 1 / slowdown) to the lag. An earlier end
// and a smaller lag are both better, so every prefix keeps the states that no other state beats
// in both (its Pareto front, in increasing end and decreasing lag). The iteration waits for
// backward too, which ends at its work plus the whole lag where no message is in flight then
// (and before the last message ends where one is): the plan to pick has the least
// max(end, backward + lag).
struct PrefixState {
  Time end;
  Time lag;
  int cut = 0;       // where the prefix's last message begins
  std::size_t from;  // the state of the prefix before that message
};

// When the messages of `plan` and backward have both ended, in the recurrence below.
Time slowed_end(const BackwardProfile& profile, const Collective& collective, const MergePlan& plan,
                double lag_per_time) {
  Time end;
  Time lag;
  for (const MessageGroup& group : plan) {
    const Time time = collective.time(group_bytes(profile, group));
    end = std::max(end, group_ready(profile, group) + lag) + time;
    lag += time.scaled(lag_per_time);
  }
  return std::max(end, profile.backward + lag);
}

MergePlan plan_slowed(const BackwardProfile& profile, const Collective& collective,
                      double slowdown) {
  const int count = detail::layer_count(profile);
  const double lag_per_time = 1.0 - 1.0 / slowdown;
  // A bound to prune by: the best full-speed plan, slowed. No state that ends later, whose
  // remaining layers' last gradient comes later, or whose backward ends later (the lag only
  // grows) can lead to an earlier one.
  const Time bound =
      slowed_end(profile, collective, plan_optimal(profile, collective, 1.0), lag_per_time);
  std::vector<Time> last_ready(static_cast<std::size_t>(count) + 1);  // of layers j..count-1
  for (int j = count - 1; j >= 0; --j) {
    last_ready[static_cast<std::size_t>(j)] =
        std::max(last_ready[static_cast<std::size_t>(j) + 1],
                 profile.layers[static_cast<std::size_t>(j)].ready);
  }
  std::vector<std::vector<PrefixState>> fronts(static_cast<std::size_t>(count) + 1);
  fronts[0].push_back({Time::zero(), Time::zero(), 0, 0});
  std::vector<PrefixState> candidates;
  for (int j = 1; j <= count; ++j) {
    candidates.clear();
    Bytes bytes;
    Time ready;
    for (int i = j - 1; i >= 0; --i) {  // the last message covers layers i..j-1
      const GradientLayer& layer = profile.layers[static_cast<std::size_t>(i)];
      bytes += layer.bytes;
      ready = std::max(ready, layer.ready);
      const Time time = collective.time(bytes);
      const Time added = time.scaled(lag_per_time);
      const std::vector<PrefixState>& before = fronts[static_cast<std::size_t>(i)];
      for (std::size_t k = 0; k < before.size(); ++k) {
        candidates.push_back(
            {std::max(before[k].end, ready + before[k].lag) + time, before[k].lag + added, i, k});
      }
    }
    // Increasing end, then lag; on ties of both the larger last message (fewer messages).
    std::sort(candidates.begin(), candidates.end(), [](const PrefixState& a, const PrefixState& b) {
      return std::tie(a.end, a.lag, a.cut) < std::tie(b.end, b.lag, b.cut);
    });
    std::vector<PrefixState>& front = fronts[static_cast<std::size_t>(j)];
    const Time rest = last_ready[static_cast<std::size_t>(j)];
    for (const PrefixState& state : candidates) {
      if (state.end > bound || (j < count && rest + state.lag > bound) ||
          profile.backward + state.lag > bound) {
        continue;
      }
      if (front.empty() || state.lag < front.back().lag) front.push_back(state);
    }
  }
  // The front's state whose communication and backward both end first (the first on ties:
  // the earliest communication end).
  const std::vector<PrefixState>& whole = fronts[static_cast<std::size_t>(count)];
  SGDSIM_ASSERT(!whole.empty(), "the bound's own plan survives the pruning");
  std::size_t state = 0;
  const auto finish = [&](const PrefixState& at) {
    return std::max(at.end, profile.backward + at.lag);
  };
  for (std::size_t k = 1; k < whole.size(); ++k) {
    if (finish(whole[k]) < finish(whole[state])) state = k;
  }
  MergePlan plan;
  for (int j = count; j > 0;) {
    const PrefixState& at = fronts[static_cast<std::size_t>(j)][state];
    plan.push_back({at.cut, j - 1, {}});
    state = at.from;
    j = at.cut;
  }
  std::reverse(plan.begin(), plan.end());
  return plan;
}

}  // namespace

MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective,
                       double overlap_slowdown) {
  SGDSIM_ASSERT(overlap_slowdown >= 1.0, "a slowdown of at least 1");
  if (overlap_slowdown != 1.0) return plan_slowed(profile, collective, overlap_slowdown);
  const int count = detail::layer_count(profile);
  // end[j]: earliest time the first j layers can all have been sent; cut[j]: where the last
  // message of that best prefix begins.
  std::vector<Time> end(static_cast<std::size_t>(count) + 1, Time::max());
  std::vector<int> cut(static_cast<std::size_t>(count) + 1, 0);
  end[0] = Time::zero();
  for (int j = 1; j <= count; ++j) {
    Bytes bytes;
    Time ready;
    for (int i = j - 1; i >= 0; --i) {  // last message covers layers i..j-1
      const GradientLayer& layer = profile.layers[static_cast<std::size_t>(i)];
      bytes += layer.bytes;
      ready = std::max(ready, layer.ready);
      const Time finish =
          std::max(end[static_cast<std::size_t>(i)], ready) + collective.time(bytes);
      // `<=` prefers the larger last message on ties, i.e. fewer messages.
      if (finish <= end[static_cast<std::size_t>(j)]) {
        end[static_cast<std::size_t>(j)] = finish;
        cut[static_cast<std::size_t>(j)] = i;
      }
    }
  }
  MergePlan plan;
  for (int j = count; j > 0; j = cut[static_cast<std::size_t>(j)]) {
    plan.push_back({cut[static_cast<std::size_t>(j)], j - 1, {}});
  }
  std::reverse(plan.begin(), plan.end());
  return plan;
}

}  // namespace detail

MergePolicyEntry optimal_policy() {
  return {
      {"optimal",
       "the best contiguous grouping for the collective's cost and compute's slowdown beside it "
       "(dynamic programming)",
       {},
       {},
       "optimal"},
      [](const BackwardProfile& profile, const Collective& collective,
         const MergeSettings& /*settings*/, double overlap_slowdown) {
        return detail::plan_optimal(profile, collective, overlap_slowdown);
      }};
}

}  // namespace sgdsim
