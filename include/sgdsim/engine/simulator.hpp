// The discrete-event engine: a clock and a queue of actions ordered by (time, phase, sequence).
// Equal-time events run in phase order, then in the order they were scheduled, so every run of
// the same model is identical. It knows nothing of networks or training.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sgdsim/core/time.hpp"

namespace sgdsim {

// Names a scheduled event so that it can be cancelled; stale ids are harmless.
struct EventId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

class Simulator {
 public:
  using Action = std::function<void()>;

  // Schedules `action` at absolute time `when` (not before now()). Lower phases (0..255) run
  // first among events at the same time.
  EventId schedule_at(Time when, int phase, Action action);
  EventId schedule_in(Time delay, int phase, Action action) {
    return schedule_at(now_ + delay, phase, std::move(action));
  }
  // Marks the event cancelled; returns false if it already ran or was cancelled.
  bool cancel(EventId id);

  // Runs events until none is left.
  void run();
  // Runs events with time <= limit, then sets the clock to `limit`.
  void run_until(Time limit);

  Time now() const { return now_; }
  std::size_t pending() const { return live_events_; }
  std::uint64_t executed() const { return executed_; }

 private:
  // 24 bytes: phase (top 8 bits) and insertion sequence (low 56 bits) share one ordering key.
  struct Entry {
    Time time;
    std::uint64_t order;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  struct Slot {
    Action action;
    std::uint32_t generation = 0;
  };

  // Pops and runs the earliest live event; returns false when the queue is empty.
  bool step(Time limit);

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  Time now_ = Time::zero();
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_events_ = 0;
};

// "When these N things have finished": counts down and runs its action when it reaches zero.
// A gradient bucket or the end of an iteration waits on one of these.
class CompletionCounter {
 public:
  CompletionCounter(int count, std::function<void()> on_complete);
  void arrive();
  int remaining() const { return remaining_; }

 private:
  int remaining_;
  std::function<void()> on_complete_;
};

}  // namespace sgdsim
