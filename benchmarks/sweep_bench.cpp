// The full MG-WFBP scaling study (studies/mgwfbp_scaling.json: 3 models x 3 bandwidths x 10 GPU
// counts x 6 policies = 540 points), expanded, validated and run, on 1 and 2 threads.
#include <benchmark/benchmark.h>

#include "sgdsim/scenario/sweep.hpp"

namespace {

void scaling_study_sweep(benchmark::State& state) {
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    const sgdsim::Sweep sweep = sgdsim::Sweep::read(
        std::string(SGDSIM_SOURCE_ROOT) + "/studies/mgwfbp_scaling.json", threads);
    sgdsim::SweepRunOptions options;
    options.threads = threads;
    benchmark::DoNotOptimize(sgdsim::sweep_csv(sweep, sgdsim::run_sweep(sweep, options)));
    state.counters["points"] = static_cast<double>(sweep.size());
  }
}
BENCHMARK(scaling_study_sweep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
