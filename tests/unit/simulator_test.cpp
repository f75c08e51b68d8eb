// Tests for engine/simulator.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <string>

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
