// Engine throughput: schedule + pop of events with a steady queue depth, reported as events/s.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sgdsim/core/rng.hpp"
#include "sgdsim/engine/simulator.hpp"

namespace {

// Each event reschedules one successor at a random later time, so the queue stays at `depth`
// events: the hold model classic for event-queue benchmarks.
void engine_schedule_and_pop(benchmark::State& state) {
  const auto depth = static_cast<int>(state.range(0));
  const std::int64_t events_per_round = 1'000'000;
  for (auto _ : state) {
    struct Context {
      sgdsim::Simulator simulator;
      sgdsim::Rng rng{42};
      std::int64_t remaining = events_per_round;
    } context;
    // One pointer of capture, like a component scheduling its own next event.
    struct Hold {
      Context* context;
      void operator()() const {
        if (--context->remaining <= 0) return;
        const auto delay =
            sgdsim::Time::from_ps(static_cast<std::int64_t>(context->rng.next_u64() % 1'000'000));
        context->simulator.schedule_in(delay, 0, *this);
      }
    };
    for (int i = 0; i < depth; ++i) {
      context.simulator.schedule_at(sgdsim::Time::from_ps(i), 0, Hold{&context});
    }
    context.simulator.run();
    benchmark::DoNotOptimize(context.simulator.executed());
    state.counters["events_per_second"] =
        benchmark::Counter(static_cast<double>(context.simulator.executed()),
                           benchmark::Counter::kIsIterationInvariantRate);
  }
}
BENCHMARK(engine_schedule_and_pop)->Arg(16)->Arg(1024)->Arg(65536)->Unit(benchmark::kMillisecond);

}  // namespace
