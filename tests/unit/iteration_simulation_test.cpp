// Tests for training/iteration_simulation.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/core/rng.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("an iteration is forward + max(backward, last message) + optimizer") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  const SimulationResult wfbp =
      simulate_iterations(profile, detail::plan_wfbp(profile), collective, 3);
  // 4.0 + max(5.8, 8.5) + 0.5 = 13.0 ms, every iteration.
  REQUIRE(wfbp.iterations.size() == 3);
  for (const IterationTimeline& iteration : wfbp.iterations) {
    CHECK(iteration.duration() == Time::from_us(13000.0));
  }
  CHECK(wfbp.iterations[2].start == Time::from_us(26000.0));
  CHECK(wfbp.mean_iteration() == Time::from_us(13000.0));
  // A plan that ends communication before backward: one tiny layer... use no messages' worth:
  // SyncEASGD ends at 11.3 -> 4.0 + 11.3 + 0.5 = 15.8 ms.
  const SimulationResult sync =
      simulate_iterations(profile, detail::plan_single_message(profile), collective, 1);
  CHECK(sync.mean_iteration() == Time::from_us(15800.0));
}

TEST_CASE("backward slowed while messages are in flight releases them later, by hand") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  // WFBP, backward at half speed while the stream is busy. Gradients are ready after 1.0, 3.0,
  // 4.0 and 5.8 ms of backward's work (L4, L3, L2, L1); messages of 1,000, 2,000, 500 and
  // 1,500 bytes take 0.5 ms + 1 us per byte: 1.5, 2.5, 1.0 and 2.0 ms.
  //   L4: stream idle, released at 1.0, sent 1.0-2.5.
  //   L3: 1.0-2.5 at half speed does 0.75 ms of work (1.75 done); 1.25 more at full speed:
  //       released at 3.75, sent 3.75-6.25.
  //   L2: 1.0 ms of work at half speed from 3.75: released at 5.75, sent 6.25-7.25.
  //   L1: 5.75-7.25 at half speed does 0.75 (4.75 done); 1.05 more: released at 8.3, sent
  //       8.3-10.3; backward ends with L1 at 8.3.
  // Iteration: forward 4.0 + 10.3 + optimizer 0.5 = 14.8 ms (13.0 at full speed).
  const SimulationResult slowed =
      simulate_iterations(profile, detail::plan_wfbp(profile), collective, 1, 2.0);
  CHECK(slowed.mean_iteration() == Time::from_us(14800.0));
  const IterationTimeline& timeline = slowed.iterations.front();
  CHECK(timeline.backward_end - timeline.backward_start == Time::from_us(8300.0));
  REQUIRE(timeline.messages.size() == 4);
  CHECK(timeline.messages[1].ready == Time::from_us(3750.0));
  CHECK(timeline.messages[3].start == Time::from_us(8300.0));
  // One message after backward (SyncEASGD) overlaps nothing: 15.8 ms whatever the slowdown.
  CHECK(simulate_iterations(profile, detail::plan_single_message(profile), collective, 1, 2.0)
            .mean_iteration() == Time::from_us(15800.0));
  // A slowdown of 1 is the GPU at full speed: 13.0 ms.
  CHECK(simulate_iterations(profile, detail::plan_wfbp(profile), collective, 1, 1.0)
            .mean_iteration() == Time::from_us(13000.0));
  // The sweep alone: a gradient whose hook runs after backward's end (a capture's late ready
  // time) leaves backward's end where its work puts it: 2 ms of work, one message ready at 3 ms.
  const SlowedBackward late = slow_backward(Time::from_ms(2.0), {Time::from_ms(3.0)},
                                            {{Time::from_ms(1.0), Time::zero()}}, 4.0);
  CHECK(late.backward_end == Time::from_ms(2.0));
  CHECK(late.releases == std::vector<Time>{Time::from_ms(3.0)});
}

TEST_CASE("slowed compute maps work to the wall clock through the busy spans") {
  // Half speed inside [2, 4] and [6, open): 2 ms of work by 2, 3 by 4, 5 by 6, then half speed.
  SlowedCompute compute(2.0);
  compute.busy(Time::from_ms(2.0), Time::from_ms(4.0));
  compute.open(Time::from_ms(6.0));
  CHECK(compute.work_at(Time::from_ms(1.0)) == Time::from_ms(1.0));
  CHECK(compute.work_at(Time::from_ms(3.0)) == Time::from_ms(2.5));
  CHECK(compute.work_at(Time::from_ms(5.0)) == Time::from_ms(4.0));
  CHECK(compute.work_at(Time::from_ms(10.0)) == Time::from_ms(7.0));  // 5 + 4 / 2
  CHECK(compute.wall_at(Time::from_ms(2.5)) == Time::from_ms(3.0));
  CHECK(compute.wall_at(Time::from_ms(7.0)) == Time::from_ms(10.0));
  compute.close(Time::from_ms(8.0));  // the open span ends: 6 by 8, full speed after
  CHECK(compute.wall_at(Time::from_ms(7.0)) == Time::from_ms(9.0));
  // A span that begins where the last ended continues it.
  compute.busy(Time::from_ms(8.0), Time::from_ms(10.0));
  CHECK(compute.wall_at(Time::from_ms(7.0)) == Time::from_ms(10.0));
  // At 1 nothing is slowed.
  SlowedCompute full(1.0);
  full.busy(Time::from_ms(2.0), Time::from_ms(4.0));
  CHECK(full.wall_at(Time::from_ms(3.0)) == Time::from_ms(3.0));
}

TEST_CASE("a long run keeps its first 1,000 iterations, its last and its totals, not every one") {
  const BackwardProfile profile = backward_profile(test::four_layers());
  const auto collective = test::hand_collective();
  // WFBP on the four-layer trace: 13 ms per iteration (the test above), 2,500 iterations.
  const SimulationResult run =
      simulate_iterations(profile, detail::plan_wfbp(profile), collective, 2500);
  CHECK(run.count == 2500);
  REQUIRE(run.iterations.size() == SimulationResult::kept_iterations);
  CHECK(run.iterations[999].start == Time::from_us(999 * 13000.0));
  // The last iteration starts after 2,499 of them and ends at 2,500 x 13 ms = 32.5 s; its four
  // messages keep their offsets from its backward pass (forward 4 ms): the last ends 8.5 ms in.
  CHECK(run.last.start == Time::from_us(2499 * 13000.0));
  CHECK(run.last.backward_start == Time::from_us(2499 * 13000.0 + 4000.0));
  CHECK(run.last.end == Time::from_us(32'500'000.0));
  REQUIRE(run.last.messages.size() == 4);
  CHECK(run.last.messages.back().end == Time::from_us(8500.0));
  CHECK(run.total == Time::from_us(32'500'000.0));
  CHECK(run.mean_iteration() == Time::from_us(13000.0));
  // Events per iteration on the engine: forward's end, backward's end, four releases, four
  // stream completions, the update's end = 11, counted once per iteration it stands for.
  CHECK(run.events == 11 * 2500);
}

TEST_CASE("a collective that pipelines queued messages runs each startup beside the one ahead") {
  // The hand collective (0.5 ms + 1 us/byte) with each message's 0.5 ms startup run beside the
  // message ahead of it, as BytePS's stages are: a message ends at
  // max(ready + t, end before + t - 0.5). WFBP on the four layers:
  //   L4 ready 1.0: 1.0-2.5.  L3 ready 3.0, after the stream idled: 3.0-5.5.
  //   L2 ready 4.0, 1.0 ms: max(5.0, 5.5 + 0.5) = 6.0 (6.5 one after another).
  //   L1 ready 5.8, 2.0 ms: max(7.8, 6.0 + 1.5) = 7.8 (8.5).
  // Iteration: 4.0 + 7.8 + 0.5 = 12.3 ms (13.0). The closed-form schedule says the same.
  const BackwardProfile profile = backward_profile(test::four_layers());
  const test::LinearCollective pipelined(Time::from_us(500.0), 1e6, true);
  const MergePlan plan = detail::plan_wfbp(profile);
  const SimulationResult run = simulate_iterations(profile, plan, pipelined, 2);
  CHECK(run.mean_iteration() == Time::from_us(12300.0));
  const std::vector<ScheduledMessage> closed_form = schedule_fifo(profile, plan, pipelined);
  REQUIRE(closed_form.size() == 4);
  CHECK(closed_form[2].start == Time::from_us(5500.0));  // the stream to itself from 5.5
  CHECK(closed_form[2].end == Time::from_us(6000.0));
  CHECK(closed_form[3].end == Time::from_us(7800.0));
  for (std::size_t i = 0; i < closed_form.size(); ++i) {
    CHECK(run.iterations.back().messages[i].start == closed_form[i].start);
    CHECK(run.iterations.back().messages[i].end == closed_form[i].end);
  }
  // With backward at half speed beside the stream (slowdown 2), as in the slowed test above:
  //   L4 1.0-2.5; L3 released at 3.75, sent 3.75-6.25; L2 released at 5.75, ends
  //   max(6.75, 6.25 + 0.5) = 6.75, the stream busy 3.75-6.75; L1: 4.5 ms of work done by
  //   6.75, released at 8.05, sent 8.05-10.05. 4.0 + 10.05 + 0.5 = 14.55 ms (14.8).
  CHECK(simulate_iterations(profile, plan, pipelined, 1, 2.0).mean_iteration() ==
        Time::from_us(14550.0));
}

TEST_CASE("the event simulation agrees exactly with the closed-form recurrence") {
  Rng rng(99);
  const auto collective = test::hand_collective();
  for (int trial = 0; trial < 50; ++trial) {
    Workload workload = test::four_layers();
    for (Layer& layer : workload.layers) {
      layer.backward = Time::from_us(100.0 + 3000.0 * rng.next_unit());
      layer.gradients[0].elements = 1 + static_cast<std::int64_t>(2000 * rng.next_unit());
    }
    const BackwardProfile profile = backward_profile(workload);
    for (MergePolicy policy : all_merge_policies()) {
      const MergePlan plan = plan_messages(policy, profile, collective, merge_defaults());
      const auto closed_form = schedule_fifo(profile, plan, collective);
      const SimulationResult simulated = simulate_iterations(profile, plan, collective, 2);
      const IterationTimeline& last = simulated.iterations.back();
      REQUIRE(last.messages.size() == closed_form.size());
      for (std::size_t i = 0; i < closed_form.size(); ++i) {
        CHECK(last.messages[i].start == closed_form[i].start);
        CHECK(last.messages[i].end == closed_form[i].end);
      }
      const Time expected = profile.forward +
                            std::max(profile.backward, communication_end(closed_form)) +
                            profile.optimizer;
      CHECK(last.duration() == expected);
    }
  }
}

TEST_CASE("the slowed clock with one more span, looked at without adding it") {
  // Half speed (2) inside 1-11 ms of wall time: 1 ms of work by 1, 6 by 11. A span 11-18 does
  // 3.5 ms more (9.5 by 18), after which work runs at full speed.
  SlowedCompute compute(2.0);
  compute.busy(Time::from_ms(1.0), Time::from_ms(11.0));
  const auto with = [&](double work_ms) {
    return compute.wall_at_with(Time::from_ms(work_ms), Time::from_ms(11.0), Time::from_ms(18.0));
  };
  CHECK(with(4.0) == Time::from_ms(7.0));    // before the span: 1 + 2 x 3
  CHECK(with(8.0) == Time::from_ms(15.0));   // inside it: 11 + 2 x 2
  CHECK(with(12.0) == Time::from_ms(20.5));  // past it: 18 + 2.5
  // What busy() then wall_at() give, without changing the clock.
  SlowedCompute added = compute;
  added.busy(Time::from_ms(11.0), Time::from_ms(18.0));
  for (const double work_ms : {0.5, 4.0, 6.0, 8.0, 9.5, 12.0}) {
    CHECK(with(work_ms) == added.wall_at(Time::from_ms(work_ms)));
  }
  CHECK(compute.wall_at(Time::from_ms(12.0)) == Time::from_ms(17.0));  // 11 + 6: unchanged
}
