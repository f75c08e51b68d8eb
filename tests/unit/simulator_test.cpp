// Tests for engine/simulator.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <string>
#include <vector>

#include "sgdsim/core/error.hpp"
#include "sgdsim/engine/simulator.hpp"

using namespace sgdsim;

TEST_CASE("events run in (time, phase, sequence) order") {
  Simulator simulator;
  std::string order;
  const Time t = Time::from_us(1.0);
  simulator.schedule_at(t, 1, [&] { order += "c"; });
  simulator.schedule_at(t, 0, [&] { order += "a"; });
  simulator.schedule_at(t, 0, [&] { order += "b"; });
  simulator.schedule_at(Time::zero(), 5, [&] { order += "0"; });
  simulator.run();
  CHECK(order == "0abc");
  CHECK(simulator.now() == t);
  CHECK(simulator.executed() == 4);
}

TEST_CASE("a cancelled event never runs and cannot be cancelled twice") {
  Simulator simulator;
  int runs = 0;
  const EventId id = simulator.schedule_in(Time::from_us(1.0), 0, [&] { ++runs; });
  simulator.schedule_in(Time::from_us(2.0), 0, [&] { ++runs; });
  CHECK(simulator.cancel(id));
  CHECK_FALSE(simulator.cancel(id));
  CHECK(simulator.pending() == 1);
  simulator.run();
  CHECK(runs == 1);
}

TEST_CASE("a slot reused after cancel does not answer to the old id") {
  Simulator simulator;
  int runs = 0;
  const EventId old_id = simulator.schedule_in(Time::from_us(1.0), 0, [] {});
  simulator.cancel(old_id);
  simulator.schedule_in(Time::from_us(1.0), 0, [&] { ++runs; });  // takes the freed slot
  CHECK_FALSE(simulator.cancel(old_id));
  simulator.run();
  CHECK(runs == 1);
}

TEST_CASE("run_until stops at the limit and keeps later events") {
  Simulator simulator;
  int runs = 0;
  simulator.schedule_at(Time::from_us(1.0), 0, [&] { ++runs; });
  simulator.schedule_at(Time::from_us(3.0), 0, [&] { ++runs; });
  simulator.run_until(Time::from_us(2.0));
  CHECK(runs == 1);
  CHECK(simulator.now() == Time::from_us(2.0));
  CHECK(simulator.pending() == 1);
  simulator.run();
  CHECK(runs == 2);
}

TEST_CASE("events may schedule events, but not in the past") {
  Simulator simulator;
  Time seen;
  simulator.schedule_at(Time::from_us(5.0), 0, [&] {
    simulator.schedule_in(Time::from_us(1.0), 0, [&] { seen = simulator.now(); });
  });
  simulator.run();
  CHECK(seen == Time::from_us(6.0));
  CHECK_THROWS_AS(simulator.schedule_at(Time::from_us(1.0), 0, [] {}), InvariantError);
}

TEST_CASE("a completion counter fires once, when the last participant arrives") {
  int fired = 0;
  CompletionCounter counter(3, [&] { ++fired; });
  counter.arrive();
  counter.arrive();
  CHECK(fired == 0);
  counter.arrive();
  CHECK(fired == 1);
  CHECK_THROWS_AS(counter.arrive(), InvariantError);
}

namespace {

// A model with events at fixed times that logs every advance as "time:due" or "time:-".
class ScriptedModel final : public Model {
 public:
  explicit ScriptedModel(std::vector<Time> events) : events_(std::move(events)) {}
  Time next_event() override { return next_ < events_.size() ? events_[next_] : Time::max(); }
  void advance(Time now) override {
    const bool due = next_ < events_.size() && events_[next_] == now;
    if (due) ++next_;
    log += std::to_string(now.ps() / 1'000'000) + (due ? ":due " : ":- ");
  }
  std::string log;

 private:
  std::vector<Time> events_;
  std::size_t next_ = 0;
};

// Announces an event at its current time forever and never handles it.
class StuckModel final : public Model {
 public:
  Time next_event() override { return clock_; }
  void advance(Time now) override { clock_ = now; }

 private:
  Time clock_;
};

}  // namespace

TEST_CASE("the engine moves the clock to the earliest model event or action and advances models") {
  Simulator simulator;
  ScriptedModel model({Time::from_us(2.0), Time::from_us(5.0)});
  simulator.attach(model);
  std::string seen_by_action;
  // The action at 3 us runs after the model was advanced to 3 us (the model's "3:-" first).
  simulator.schedule_at(Time::from_us(3.0), 0, [&] { seen_by_action = model.log; });
  simulator.run();
  CHECK(model.log == "2:due 3:- 5:due ");
  CHECK(seen_by_action == "2:due 3:- ");
  CHECK(simulator.now() == Time::from_us(5.0));
  CHECK(simulator.executed() == 3);  // one action, two model events
}

TEST_CASE("run_until advances the models to the limit") {
  Simulator simulator;
  ScriptedModel model({Time::from_us(4.0)});
  simulator.attach(model);
  simulator.run_until(Time::from_us(1.0));
  CHECK(model.log == "1:- ");
  simulator.run();
  CHECK(model.log == "1:- 4:due ");
}

TEST_CASE("a model that never handles the event it announces is an internal error, not a hang") {
  Simulator simulator;
  StuckModel model;
  simulator.attach(model);
  CHECK_THROWS_AS(simulator.run(), InvariantError);
}
