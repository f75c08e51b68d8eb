// Analytic fidelity on a ResNet-50-sized synthetic workload: one iteration at N GPUs per policy.
// The cost should not depend on N.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include "sgdsim/scenario/scenario_run.hpp"

namespace {

// 161 gradient tensors in 107 layers totalling about 25.6 M parameters, times of a V100-class GPU.
sgdsim::Workload resnet50_sized() {
  sgdsim::Workload workload;
  workload.model = "synthetic-resnet50-sized";
  workload.batch_size = 32;
  for (int index = 0; index < 107; ++index) {
    sgdsim::Layer layer{fmt::format("layer{}", index),
                        sgdsim::Time::from_us(280.0),
                        sgdsim::Time::from_us(560.0),
                        {}};
    layer.gradients.push_back({layer.name + ".weight", 239'000, std::nullopt});
    workload.layers.push_back(layer);
  }
  workload.optimizer = sgdsim::Time::from_us(1000.0);
  return workload;
}

sgdsim::ScenarioConfig config_for(int gpus, sgdsim::MergePolicy policy) {
  sgdsim::ScenarioConfig config;
  config.gpus = gpus;
  config.network.link = {sgdsim::Bandwidth::from_gbps(10.0), sgdsim::Time::from_us(5.0)};
  config.intra_node = {sgdsim::Bandwidth::from_gbps(256.0), sgdsim::Time::from_us(1.0)};
  config.server_bandwidth = config.network.link.bandwidth;
  config.policies = {policy};
  config.iterations = 1;
  return config;
}

void analytic_iteration(benchmark::State& state) {
  const auto gpus = static_cast<int>(state.range(0));
  const auto policy = static_cast<sgdsim::MergePolicy>(state.range(1));
  const sgdsim::Workload workload = resnet50_sized();
  const sgdsim::ScenarioConfig config = config_for(gpus, policy);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
  }
  state.SetLabel(std::string(sgdsim::policy_name(policy)));
}
BENCHMARK(analytic_iteration)
    ->ArgsProduct({{4, 64, 2048},
                   {static_cast<int>(sgdsim::MergePolicy::none),
                    static_cast<int>(sgdsim::MergePolicy::mgwfbp),
                    static_cast<int>(sgdsim::MergePolicy::optimal)}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
