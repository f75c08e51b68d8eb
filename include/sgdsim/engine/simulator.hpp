// The discrete-event engine: one clock in integer picoseconds, a queue of actions ordered by
// (time, phase, sequence), and models that keep their own state between events. Equal-time
// actions run in phase order, then in the order they were scheduled, so every run is identical.
// A model (the flow-level network, the per-rank timelines) is asked for the time of its next
// event and told to advance when the clock moves, as in SimGrid's kernel: the clock moves to the
// earliest of the queued actions and the models' next events; every model is then advanced to
// that time (and handles what falls due), and the actions queued at that time run. The engine
// knows nothing of networks or training.
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

// A component whose events the engine does not queue one by one: it says when its next event
// is and is told when time has passed. Between two calls of advance() the model may be changed
// by queued actions (a flow started, say); it must then answer next_event() afresh.
class Model {
 public:
  virtual ~Model() = default;
  // Absolute time of the model's next event, not before the time it was last advanced to;
  // Time::max() when it has none.
  virtual Time next_event() = 0;
  // Moves the model's clock to `now` (never backwards) and handles every event due by then.
  // Called at every time the engine's clock stops at, whether or not the model has an event.
  virtual void advance(Time now) = 0;
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
  // Lets the engine drive `model` (not owned; it must outlive the runs). Models advance in the
  // order they were attached.
  void attach(Model& model);

  // Runs events until none is left.
  void run();
  // Runs events with time <= limit, then sets the clock to `limit`.
  void run_until(Time limit);

  Time now() const { return now_; }
  std::size_t pending() const { return live_events_; }
  // Queued actions run plus model advances that handled a due event.
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

  // Runs the next queued action at the current time, or else moves the clock to the next event
  // of the queue or a model (at most `limit`) and advances the models; false when neither has one.
  bool step(Time limit);
  // Drops cancelled entries from the top of the queue.
  void skip_cancelled();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<Model*> models_;
  Time now_ = Time::zero();
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_events_ = 0;
  std::uint32_t stalled_ = 0;
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
