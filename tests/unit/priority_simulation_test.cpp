// Tests for training/priority_simulation.hpp (ByteScheduler), by hand on two layers.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "sgdsim/training/priority_simulation.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

// Forward 10 ms, backward 10 ms, no optimizer. Backward order: the top layer (8,000 bytes,
// ready 2 ms into backward, its forward starting 5 ms into forward), then the bottom layer
// (1,000 bytes, ready when backward ends, needed at once). The collective: 0.5 ms + 1 us/byte,
// so a 1,000-byte partition takes 1.5 ms.
BackwardProfile two_layers() {
  BackwardProfile profile;
  profile.forward = Time::from_ms(10.0);
  profile.backward = Time::from_ms(10.0);
  GradientLayer top{"top", Bytes(8000), Time::from_ms(2.0)};
  top.needed = Time::from_ms(5.0);
  GradientLayer bottom{"bottom", Bytes(1000), Time::from_ms(10.0)};
  profile.layers = {top, bottom};
  return profile;
}

const Time ms(double value) {
  return Time::from_ms(value);
}

}  // namespace

TEST_CASE("priority lets the first layer's partition overtake the queued rest of the top one") {
  // 1,000-byte partitions, one in flight. Iteration 0: the top layer's 8 partitions, released
  // at 12 ms, run 12-13.5, 13.5-15, ..., the sixth ending at 21; the bottom layer, released at
  // 20, goes next (21-22.5) ahead of the top's last two (22.5-24, 24-25.5). Iteration 1's
  // forward starts when backward ends, at 20, waits for the bottom layer until 22.5 and reaches
  // the top layer 5 ms later (27.5, after its 25.5): backward starts at 32.5.
  const test::LinearCollective collective = test::hand_collective();
  const SimulationResult run =
      simulate_priority(two_layers(), collective, {Bytes(1000), Bytes(1000)}, 2);
  const IterationTimeline& first = run.iterations[0];
  REQUIRE(first.messages.size() == 9);
  CHECK(first.messages[6].group.first == 1);  // the bottom layer, seventh launched
  CHECK(first.backward_start + first.messages[6].end == ms(22.5));
  CHECK(first.communication_end == ms(25.5));
  CHECK(first.end == ms(20.0));  // the next iteration starts when backward ends
  CHECK(run.iterations[1].backward_start == ms(32.5));
  // The last iteration flushes: its communication (the same 5.5 ms past its backward's end at
  // 42.5) then the optimizer (none): 48 ms.
  CHECK(run.iterations[1].end == ms(48.0));
}

TEST_CASE("without partitions or credit to spare, the order is FIFO and nothing overtakes") {
  // One partition per layer, a credit of one byte (one in flight): the top layer 12-20.5 ms,
  // the bottom 20.5-22 ms; the next forward waits until 22.
  const test::LinearCollective collective = test::hand_collective();
  const SimulationResult run =
      simulate_priority(two_layers(), collective, {Bytes(1'000'000), Bytes(1)}, 2);
  CHECK(run.iterations[0].messages.size() == 2);
  CHECK(run.iterations[0].communication_end == ms(22.0));
  CHECK(run.iterations[1].backward_start == ms(32.0));
}

TEST_CASE("credit lets the startups of launched partitions overlap the data ahead of them") {
  // All 8 top partitions launched at 12 ms: their 0.5 ms startups overlap, the data runs
  // 12.5-20.5 back to back; the bottom one, launched at 20, moves its data 20.5-21.5.
  const test::LinearCollective collective = test::hand_collective();
  const SimulationResult run =
      simulate_priority(two_layers(), collective, {Bytes(1000), Bytes(1'000'000)}, 2);
  CHECK(run.iterations[0].communication_end == ms(21.5));
  CHECK(run.iterations[1].backward_start == ms(31.5));
  // Spans add up to the time the collective was busy: 12-20.5 and 20.5-21.5.
  Time busy;
  for (const ScheduledMessage& m : run.iterations[0].messages) busy += m.end - m.start;
  CHECK(busy == ms(9.5));
}

// A pipeline of three 1-us-per-byte stages (a 1,000-byte partition: 3 ms alone), of which a
// partition launched behind another can run all but the busiest beside the data ahead (2 ms),
// as BytePS's push, sum and pull do (Collective::overlappable).
class ThreeStages final : public Collective {
 public:
  std::string name() const override { return "three-stages"; }
  int ranks() const override { return 2; }
  Time time(Bytes message) const override { return Time::from_us(3.0 * message.count()); }
  LinearCost linear_cost() const override { return {Time::zero(), 3e6}; }
  Time overlappable(Bytes message) const override { return Time::from_us(2.0 * message.count()); }
  double bytes_sent_per_rank(Bytes message) const override {
    return static_cast<double>(message.count());
  }
  Requantisation requantisation() const override { return {1, 1.0}; }
};

TEST_CASE("partitions in flight pipeline through a staged collective's stages") {
  // All 8 top partitions launched at 12 ms: the first ends at 15, each further one 1 ms later
  // (its busiest stage), the eighth at 22; the bottom one, launched at 20, moves after it:
  // 22-23. Were only the (zero) startup hidden, each would hold the collective 3 ms: 36 and 39.
  // Iteration 1's forward waits for the bottom layer until 23 and reaches the top one (done at
  // 22) 5 ms later: backward starts at 33.
  const ThreeStages collective;
  const SimulationResult run =
      simulate_priority(two_layers(), collective, {Bytes(1000), Bytes(1'000'000)}, 2);
  REQUIRE(run.iterations[0].messages.size() == 9);
  CHECK(run.iterations[0].backward_start + run.iterations[0].messages[0].end == ms(15.0));
  CHECK(run.iterations[0].backward_start + run.iterations[0].messages[7].end == ms(22.0));
  CHECK(run.iterations[0].communication_end == ms(23.0));
  CHECK(run.iterations[1].backward_start == ms(33.0));
  // One in flight: nothing to pipeline behind, 3 ms each: the top's 12-15, 15-18, 18-21, the
  // bottom (released at 20) overtaking the rest at 21-24, the top's last five 24-39.
  CHECK(simulate_priority(two_layers(), collective, {Bytes(1000), Bytes(1)}, 2)
            .iterations[0]
            .communication_end == ms(39.0));
}

TEST_CASE("each layer's share of the optimizer runs just before its forward") {
  // An optimizer of 9 ms: 8/9 of it for the top layer, 1/9 for the bottom one. With one
  // partition per layer and room for both: top 12-20.5, bottom launched at 20, its startup
  // hidden, data 20.5-21.5. Iteration 1: wait for the bottom layer until 21.5, its update 1 ms,
  // 5 ms of forward to the top layer (27.5), its update 8 ms (35.5), the remaining 5 ms:
  // backward at 40.5.
  BackwardProfile profile = two_layers();
  profile.optimizer = ms(9.0);
  const test::LinearCollective collective = test::hand_collective();
  const SimulationResult run =
      simulate_priority(profile, collective, {Bytes(1'000'000), Bytes(1'000'000)}, 2);
  CHECK(run.iterations[1].backward_start == ms(40.5));
}

TEST_CASE("the layers' shares of the optimizer add up to the optimizer to the picosecond") {
  // Three layers of 1,000 bytes and an optimizer of 4 ps, on a collective that takes no time
  // (one GPU): each share alone is 4/3 ps, 1 ps rounded, 3 in all, and the iteration would come
  // out 1 ps shorter than its own compute (sgdsim stopped on that, one GPU under
  // ByteScheduler). Running shares, 1, 3 and 4 ps, give 1 + 2 + 1: every iteration after the
  // first takes forward, backward and the whole optimizer, and the mean is compute's exactly.
  BackwardProfile profile;
  profile.forward = ms(10.0);
  profile.backward = ms(10.0);
  profile.optimizer = Time::from_ps(4);
  GradientLayer top{"top", Bytes(1000), ms(3.0)};
  top.needed = ms(6.0);
  GradientLayer middle{"middle", Bytes(1000), ms(6.0)};
  middle.needed = ms(3.0);
  GradientLayer bottom{"bottom", Bytes(1000), ms(10.0)};
  profile.layers = {top, middle, bottom};
  const test::LinearCollective none(Time::zero(), 0.0);
  const SimulationResult run = simulate_priority(profile, none, {Bytes(1000), Bytes(1000)}, 2);
  CHECK(run.iterations[1].duration() == profile.compute() + profile.optimizer);
  CHECK(run.mean_iteration() == profile.compute());
}

TEST_CASE("compute slowed beside the wire: backward releases later, the next forward runs slower") {
  // Forward 10 ms, backward 4 ms: the top layer (8,000 bytes, ready 1 ms into backward, needed
  // 5 ms into forward) and the bottom one (1,000 bytes, ready at backward's end, needed at
  // once); 1,000-byte partitions, one in flight, 1.5 ms each; compute at half speed while a
  // partition is on the wire (slowdown 2). From backward's start (10 ms):
  //   the top's partitions are released at 1 and keep the wire busy from then on;
  //   the bottom's 4 ms of work come at 1 + 2 x 3 = 7, as the top's fourth partition ends, so
  //   it goes next (7-8.5) and the top's last four follow until 14.5 (24.5 ms); backward ends
  //   at 7 (17 ms).
  // Iteration 1's forward waits for the bottom layer until 18.5; the wire is busy until 24.5,
  // so the 5 ms to the top layer take 2 x 6 = 12 of it (3 ms of compute) and 2 more: 26.5;
  // the rest of forward, 5 ms, after: backward starts at 31.5 ms. At full speed: the bottom
  // goes at 4 (14-15.5), forward waits for the top's last partition at 24.5, backward at 29.5.
  BackwardProfile profile;
  profile.forward = ms(10.0);
  profile.backward = ms(4.0);
  GradientLayer top{"top", Bytes(8000), ms(1.0)};
  top.needed = ms(5.0);
  GradientLayer bottom{"bottom", Bytes(1000), ms(4.0)};
  profile.layers = {top, bottom};
  const test::LinearCollective collective = test::hand_collective();
  const SimulationResult slowed =
      simulate_priority(profile, collective, {Bytes(1000), Bytes(1000)}, 2, 2.0);
  const IterationTimeline& first = slowed.iterations[0];
  CHECK(first.backward_end == ms(17.0));
  REQUIRE(first.messages.size() == 9);
  CHECK(first.messages[4].group.first == 1);  // the bottom layer, fifth launched
  CHECK(first.messages[4].ready == ms(7.0));
  CHECK(first.messages[4].start == ms(7.0));
  CHECK(first.communication_end == ms(24.5));
  CHECK(slowed.iterations[1].backward_start == ms(31.5));
  CHECK(simulate_priority(profile, collective, {Bytes(1000), Bytes(1000)}, 2, 1.0)
            .iterations[1]
            .backward_start == ms(29.5));
}
