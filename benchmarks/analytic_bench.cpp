// Analytic fidelity on a ResNet-50-sized synthetic workload: one iteration at N GPUs per policy.
// The cost should not depend on N.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "synthetic_workload.hpp"

namespace {

sgdsim::ScenarioConfig config_for(int gpus, sgdsim::MergePolicy policy) {
  sgdsim::ScenarioConfig config;
  config.gpus = gpus;
  config.network.link = {sgdsim::Bandwidth::from_gbps(10.0), sgdsim::Time::from_us(5.0)};
  config.intra_node = {sgdsim::Bandwidth::from_gbps(256.0), sgdsim::Time::from_us(1.0)};
  config.policies = {policy};
  config.iterations = 1;
  return config;
}

void analytic_iteration(benchmark::State& state) {
  const auto gpus = static_cast<int>(state.range(0));
  // The second argument indexes the registry: 0 none (WFBP), 4 mgwfbp, 5 optimal.
  const sgdsim::MergePolicy policy =
      sgdsim::all_merge_policies().at(static_cast<std::size_t>(state.range(1)));
  const sgdsim::Workload workload = sgdsim::bench::resnet50_sized();
  sgdsim::ScenarioConfig config = config_for(gpus, policy);
  // The third: 1 for compute slowed beside the collectives at the default (the sweep of
  // slow_backward, and optimal's Pareto fronts), 0 for the GPU at full speed.
  if (state.range(2) != 0) config.overlap_slowdown = sgdsim::default_overlap_slowdown;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
  }
  state.SetLabel(
      fmt::format("{}{}", sgdsim::policy_name(policy), state.range(2) != 0 ? ", slowed" : ""));
}
BENCHMARK(analytic_iteration)
    ->ArgsProduct({{4, 64, 2048}, {0, 4, 5}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
