// Priority-scheduled partitions with a credit window, and the next forward pass overlapping
// communication (formulas in the header).
#include "sgdsim/training/priority_simulation.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <utility>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

struct Partition {
  int layer = 0;  // index into BackwardProfile::layers
  Bytes bytes;
  Time release;  // offset from the start of backward
  Time startup;  // the part of `duration` that the data of earlier partitions can hide
  Time duration;
};

// Every layer's partitions, in release order (ties: backward order, then partition order).
std::vector<Partition> partitions(const BackwardProfile& profile, const Collective& collective,
                                  PrioritySettings settings) {
  const Time startup = collective.linear_cost().startup;
  // Partitions repeat a few sizes: each size priced once (a secant or flow-level price costs).
  std::map<std::int64_t, std::pair<Time, Time>> priced;
  const auto price = [&](Bytes piece) {
    auto [at, added] = priced.try_emplace(piece.count());
    if (added) at->second = {collective.time(piece), collective.overlappable(piece)};
    return at->second;
  };
  std::vector<Partition> all;
  for (int index = 0; index < static_cast<int>(profile.layers.size()); ++index) {
    const GradientLayer& layer = profile.layers[static_cast<std::size_t>(index)];
    const auto add = [&](Bytes bytes, Time duration, Time hidden) {
      all.push_back({index, bytes, layer.ready, hidden, duration});
    };
    const std::int64_t size = settings.partition.count();
    std::int64_t left = layer.bytes.count();
    const std::int64_t count = std::max<std::int64_t>(1, (left + size - 1) / size);
    for (std::int64_t k = 0; k < count && (left > 0 || layer.gathered.count() == 0); ++k) {
      const Bytes piece(left / (count - k));
      left -= piece.count();
      const auto [duration, hidden] = price(piece);
      add(piece, duration, hidden);
    }
    if (layer.gathered.count() > 0) {  // gathered rows: one partition, gathered
      SGDSIM_ASSERT(collective.gather() != nullptr, "gathered rows on a collective that cannot");
      const Time gathered = collective.gather()->gather_time(layer.gathered, layer.gathered_dense);
      add(layer.gathered, gathered, std::min(startup, gathered));
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Partition& a, const Partition& b) { return a.release < b.release; });
  return all;
}

}  // namespace

SimulationResult simulate_priority(const BackwardProfile& profile, const Collective& collective,
                                   PrioritySettings settings, int iterations,
                                   double overlap_slowdown) {
  SGDSIM_ASSERT(iterations >= 1, "simulate at least one iteration");
  SGDSIM_ASSERT(settings.partition.count() > 0 && settings.credit.count() > 0,
                "partitions and credit of at least a byte");
  const std::vector<Partition> parts = partitions(profile, collective, settings);
  const auto layers = profile.layers.size();
  Bytes model;
  for (const GradientLayer& layer : profile.layers) model += layer.bytes + layer.gathered_dense;
  SimulationResult result;
  std::vector<Time> aggregated(layers);  // when each layer's last partition ended
  Time compute_free;
  // The wire's busy spans since the last backward began (wall clock): the backward's, which
  // slow it, and then the next forward, which overlaps their end.
  SlowedCompute wire(overlap_slowdown);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    IterationTimeline timeline;
    timeline.start = compute_free;
    // Forward, in forward order (the reverse of the profile's), stalling for parameters.
    Time now = compute_free;
    Time progress;
    if (iteration > 0) {
      // Each layer's share of the optimizer, by its bytes, as the difference of the running
      // shares' times, so that the shares add up to the optimizer's time to the picosecond.
      Bytes updated;
      Time optimizer_done;
      for (std::size_t k = layers; k-- > 0;) {
        const GradientLayer& layer = profile.layers[k];
        now = wire.finish(now, layer.needed - progress);
        progress = layer.needed;
        now = std::max(now, aggregated[k]);
        updated += layer.bytes + layer.gathered_dense;
        const Time through = profile.optimizer.scaled(
            model.count() > 0 ? static_cast<double>(updated.count()) / model.count() : 1.0);
        now = wire.finish(now, through - optimizer_done);
        optimizer_done = through;
        ++result.events;
      }
    }
    now = wire.finish(now, profile.forward - progress);
    timeline.backward_start = now;
    // Every partition of the iteration before ended before this forward did: backward starts
    // with the wire idle, so its work from its start is the wall clock's until a span begins.
    wire.clear();
    const auto released = [&](const Partition& p) {
      return wire.finish(timeline.backward_start, p.release);
    };
    // Backward releases partitions; the scheduler launches them by priority within the credit.
    const auto priority = [](const Partition* a, const Partition* b) {
      return a->layer < b->layer;  // a larger index is an earlier layer: it goes first
    };
    std::priority_queue<const Partition*, std::vector<const Partition*>, decltype(priority)> queue(
        priority);
    // (end, partition), the earliest end on top: with a large credit most partitions fly at
    // once, and a scan per event would make the run quadratic in them.
    using Flight = std::pair<Time, const Partition*>;
    std::priority_queue<Flight, std::vector<Flight>, std::greater<>> flying;
    std::int64_t credit = settings.credit.count();
    std::size_t next = 0;
    std::size_t finished = 0;
    Time clock = timeline.backward_start;
    Time wire_free = clock;
    Time last_end = clock;
    while (finished < parts.size()) {
      while (next < parts.size() && released(parts[next]) <= clock) {
        queue.push(&parts[next++]);
      }
      while (credit > 0 && !queue.empty()) {
        const Partition& p = *queue.top();
        queue.pop();
        const Time data = std::max(clock + p.startup, wire_free);
        const Time end = data + (p.duration - p.startup);
        // Its span: from its launch, or from when the partition ahead of it ended, to its end,
        // so that the spans add up to the time the collective was busy.
        const Time alone = std::max(clock, wire_free);
        wire.busy(alone, end);
        wire_free = end;
        credit -= p.bytes.count();
        flying.emplace(end, &p);
        timeline.messages.push_back(
            {MessageGroup{p.layer, p.layer, {}}, p.bytes, released(p) - timeline.backward_start,
             alone - timeline.backward_start, end - timeline.backward_start});
        ++result.events;
      }
      const Time release_at = next < parts.size() ? released(parts[next]) : Time::max();
      SGDSIM_ASSERT(!flying.empty() || release_at != Time::max(),
                    "partitions left with nothing in flight and nothing to release");
      if (flying.empty() || release_at <= flying.top().first) {
        clock = std::max(clock, release_at);
        continue;
      }
      // Every partition ending now returns its credit (capped: the sum is the same in any
      // order) and counts toward its layer's aggregation.
      clock = flying.top().first;
      while (!flying.empty() && flying.top().first == clock) {
        const Partition& p = *flying.top().second;
        flying.pop();
        credit = std::min(credit + p.bytes.count(), settings.credit.count());
        aggregated[static_cast<std::size_t>(p.layer)] =
            std::max(aggregated[static_cast<std::size_t>(p.layer)], clock);
        last_end = std::max(last_end, clock);
        ++finished;
      }
    }
    timeline.communication_end = last_end;
    timeline.backward_end = wire.finish(timeline.backward_start, profile.backward);
    compute_free = timeline.backward_end;
    // The next iteration starts when backward ends; the last one flushes.
    timeline.end = iteration + 1 < iterations
                       ? compute_free
                       : std::max(timeline.backward_end, last_end) + profile.optimizer;
    result.record(std::move(timeline));
  }
  return result;
}

}  // namespace sgdsim
