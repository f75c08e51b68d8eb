// The contiguous grouping whose communication and backward end earliest under the collective's
// own cost and compute's slowdown beside it, by dynamic programming over prefixes (O(L^2)
// collective prices) and each prefix's Pareto front of (end, lag).
#include <algorithm>
#include <tuple>
#include <vector>

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"

namespace sgdsim {

namespace detail {

namespace {

// Compute runs at 1 / slowdown while a message is in flight. After a prefix's messages the wall
// clock is ahead of backward's work by the time the stream was busy x (1 - 1 / slowdown), the
// lag: so a message of the layers whose last is ready at work r, taking t, begins at
// max(end, r + lag) and ends t later (on_stream: less what it runs beside the message ahead,
// where the collective pipelines queued messages), and adds the time it held the stream alone
// x (1 - 1 / slowdown) to the lag. An earlier end and a smaller lag are both better, so every
// prefix keeps the states that no other state beats in both (its Pareto front, in increasing
// end and decreasing lag). That is exact where messages do not pipeline (every collective but
// BytePS) or compute keeps its speed. Beside BytePS, whose NCCL stages slow compute by default,
// a later end can shorten what the next message holds alone, so the front is a heuristic there
// (scenarios/vgg16_byteps_64gpus.json: 384.382 ms against WFBP's 384.370). The
// iteration waits for backward too, which ends at its work plus the whole lag where no message is
// in flight then (and before the last message ends where one is): the plan to pick has the least
// max(end, backward + lag). At full speed every lag is 0 and each front is one state, the
// earliest end.
struct PrefixState {
  Time end;
  Time lag;
  int cut = 0;       // where the prefix's last message begins
  std::size_t from;  // the state of the prefix before that message
};

}  // namespace

MergePlan plan_optimal(const BackwardProfile& profile, const Collective& collective,
                       double overlap_slowdown) {
  SGDSIM_ASSERT(overlap_slowdown >= 1.0, "a slowdown of at least 1");
  const int count = detail::layer_count(profile);
  const double lag_per_time = 1.0 - 1.0 / overlap_slowdown;
  std::vector<std::vector<PrefixState>> fronts(static_cast<std::size_t>(count) + 1);
  fronts[0].push_back({Time::zero(), Time::zero(), 0, 0});
  std::vector<PrefixState> candidates;
  // A message joins the stream once it and every message before it are ready (the simulations'
  // running maximum), which matters where readiness is out of order and messages pipeline.
  Time ready;
  for (int j = 1; j <= count; ++j) {
    candidates.clear();
    ready = std::max(ready, profile.layers[static_cast<std::size_t>(j - 1)].ready);
    Bytes bytes;
    for (int i = j - 1; i >= 0; --i) {  // the last message covers layers i..j-1
      bytes += profile.layers[static_cast<std::size_t>(i)].bytes;
      const Time time = collective.time(bytes);
      const Time overlap = collective.queued_overlap(bytes);
      const std::vector<PrefixState>& before = fronts[static_cast<std::size_t>(i)];
      for (std::size_t k = 0; k < before.size(); ++k) {
        const StreamSlot slot = on_stream(before[k].end, ready + before[k].lag, time, overlap);
        candidates.push_back(
            {slot.end, before[k].lag + (slot.end - slot.begin).scaled(lag_per_time), i, k});
      }
    }
    // Increasing end, then lag; on ties of both the larger last message (fewer messages).
    const auto earlier = [](const PrefixState& a, const PrefixState& b) {
      return std::tie(a.end, a.lag, a.cut) < std::tie(b.end, b.lag, b.cut);
    };
    std::vector<PrefixState>& front = fronts[static_cast<std::size_t>(j)];
    if (lag_per_time == 0.0) {  // every lag 0: the front is the first state, found without a sort
      front.push_back(*std::min_element(candidates.begin(), candidates.end(), earlier));
      continue;
    }
    std::sort(candidates.begin(), candidates.end(), earlier);
    for (const PrefixState& state : candidates) {
      if (front.empty() || state.lag < front.back().lag) front.push_back(state);
    }
  }
  // The whole pass's state whose communication and backward both end first (the first on ties:
  // the earliest communication end).
  const std::vector<PrefixState>& whole = fronts[static_cast<std::size_t>(count)];
  const auto finish = [&](const PrefixState& at) {
    return std::max(at.end, profile.backward + at.lag);
  };
  std::size_t state = 0;
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
