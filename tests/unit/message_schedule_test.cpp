// Tests for training/message_schedule.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/message_schedule.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("the WFBP start-time recurrence on the four-layer trace, by hand") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  const auto messages = schedule_fifo(profile, detail::plan_wfbp(profile), collective);
  REQUIRE(messages.size() == 4);
  // sc(L4) = rb(L4) = 1.0; ends 1.0 + 1.5 = 2.5 ms
  CHECK(messages[0].start == Time::from_us(1000.0));
  CHECK(messages[0].end == Time::from_us(2500.0));
  // sc(L3) = max(2.5, 3.0) = 3.0; ends 3.0 + 2.5 = 5.5 ms
  CHECK(messages[1].start == Time::from_us(3000.0));
  CHECK(messages[1].end == Time::from_us(5500.0));
  // sc(L2) = max(5.5, 4.0) = 5.5: the stream is the bottleneck; ends 5.5 + 1.0 = 6.5 ms
  CHECK(messages[2].start == Time::from_us(5500.0));
  CHECK(messages[2].end == Time::from_us(6500.0));
  // sc(L1) = max(6.5, 5.8) = 6.5; ends 6.5 + 2.0 = 8.5 ms
  CHECK(messages[3].start == Time::from_us(6500.0));
  CHECK(communication_end(messages) == Time::from_us(8500.0));
}

TEST_CASE("a release time later than readiness holds a message back") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const MergePlan plan{{0, 1, Time::from_us(3500.0)}, {2, 3, {}}};
  const auto messages = schedule_fifo(profile, plan, test::hand_collective());
  // {L4, L3}: ready max(3.0, release 3.5) = 3.5; 3000 B -> 3.5 ms; ends 7.0 ms.
  CHECK(messages[0].ready == Time::from_us(3500.0));
  CHECK(messages[0].end == Time::from_us(7000.0));
  // {L2, L1}: ready 5.8, starts at 7.0, 2000 B -> 2.5 ms; ends 9.5 ms.
  CHECK(messages[1].end == Time::from_us(9500.0));
}

TEST_CASE("a plan that skips or repeats layers is rejected") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  CHECK_THROWS_AS(schedule_fifo(profile, MergePlan{{0, 1, {}}, {3, 3, {}}}, collective),
                  InvariantError);
  CHECK_THROWS_AS(schedule_fifo(profile, MergePlan{{0, 2, {}}}, collective), InvariantError);
}
