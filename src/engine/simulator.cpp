// Binary-heap event queue with cancel-by-marking: a cancelled event's slot changes generation,
// and its heap entry is skipped when it surfaces. Slots are recycled, so memory stays at the peak
// number of pending events. Models are polled for their next event only when no queued action
// is due at the current time, so a burst of simultaneous actions costs one poll.
#include "sgdsim/engine/simulator.hpp"

#include <algorithm>
#include <utility>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/run_monitor.hpp"

namespace sgdsim {

namespace {

// std::*_heap keeps the largest element first; "later" compares greater, so the earliest
// (time, phase, sequence) is on top.
struct Later {
  template <class Entry>
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.time != b.time) return a.time > b.time;
    return a.order > b.order;
  }
};

}  // namespace

EventId Simulator::schedule_at(Time when, int phase, Action action) {
  SGDSIM_ASSERT(when >= now_, "event scheduled in the past");
  SGDSIM_ASSERT(phase >= 0 && phase < 256, "event phase outside 0..255");
  SGDSIM_ASSERT(next_sequence_ < (std::uint64_t{1} << 56U), "event sequence exhausted");
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& target = slots_[slot];
  target.action = std::move(action);
  const std::uint64_t order = (static_cast<std::uint64_t>(phase) << 56U) | next_sequence_++;
  heap_.push_back(Entry{when, order, slot, target.generation});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  ++live_events_;
  return EventId{slot, target.generation};
}

bool Simulator::cancel(EventId id) {
  if (id.slot >= slots_.size() || slots_[id.slot].generation != id.generation) return false;
  Slot& target = slots_[id.slot];
  ++target.generation;
  target.action = nullptr;
  free_slots_.push_back(id.slot);
  --live_events_;
  return true;
}

void Simulator::attach(Model& model) {
  models_.push_back(&model);
}

void Simulator::skip_cancelled() {
  while (!heap_.empty() && slots_[heap_.front().slot].generation != heap_.front().generation) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
}

bool Simulator::step(Time limit) {
  skip_cancelled();
  const Time queued = heap_.empty() ? Time::max() : heap_.front().time;
  if (queued == now_ && queued <= limit) {  // actions at the current time run first
    const Entry top = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    Slot& target = slots_[top.slot];
    Action action = std::move(target.action);
    ++target.generation;
    free_slots_.push_back(top.slot);
    --live_events_;
    ++executed_;
    action();
    return true;
  }
  Time modelled = Time::max();
  for (Model* model : models_) modelled = std::min(modelled, model->next_event());
  const Time next = std::min(queued, modelled);
  if (next == Time::max() || next > limit) return false;
  SGDSIM_ASSERT(next >= now_, "a model's next event lies in the past");
  // A model that keeps announcing an event at the current time without handling it would spin.
  stalled_ = next == now_ ? stalled_ + 1 : 0;
  SGDSIM_ASSERT(stalled_ < (1U << 20U), "a model announces events it never handles");
  now_ = next;
  for (Model* model : models_) model->advance(now_);
  if (modelled == now_) ++executed_;
  return true;
}

// Steps between reports to the thread's RunMonitor: a report is a thread-local read and two
// relaxed atomics, a few nanoseconds against the microseconds 256 steps take.
constexpr std::uint32_t steps_per_report = 256;

void Simulator::run() {
  for (std::uint32_t steps = 1; step(Time::max()); ++steps) {
    if (steps % steps_per_report == 0) report_events(steps_per_report);
  }
}

void Simulator::run_until(Time limit) {
  SGDSIM_ASSERT(limit >= now_, "run_until into the past");
  for (std::uint32_t steps = 1; step(limit); ++steps) {
    if (steps % steps_per_report == 0) report_events(steps_per_report);
  }
  now_ = limit;
  for (Model* model : models_) model->advance(now_);
}

CompletionCounter::CompletionCounter(int count, std::function<void()> on_complete)
    : remaining_(count), on_complete_(std::move(on_complete)) {
  SGDSIM_ASSERT(count > 0, "a completion counter needs at least one participant");
}

void CompletionCounter::arrive() {
  SGDSIM_ASSERT(remaining_ > 0, "completion counter arrived at more often than its count");
  if (--remaining_ == 0) on_complete_();
}

}  // namespace sgdsim
