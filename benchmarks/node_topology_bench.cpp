// What a node costs to model: paths, P2P and ring channels (model_node) for presets of 4, 8 and
// 16 GPUs, with and without NVLink. A scenario models its node once, so this is a start-up
// cost; the ring search is exponential in the worst case and bounded by a step budget.
#include <benchmark/benchmark.h>

#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/topology/node_topology.hpp"

namespace {

void node_model(benchmark::State& state, const char* preset) {
  const sgdsim::NodeDescription description = sgdsim::node_preset(preset, "bench");
  for (auto _ : state) {
    const sgdsim::NodeModel model =
        sgdsim::model_node(sgdsim::NodeTopology::build(description, preset));
    benchmark::DoNotOptimize(model.ring_gbps);
  }
}

BENCHMARK_CAPTURE(node_model, pcie3_2socket_4gpu, "pcie3_2socket_4gpu")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(node_model, pcie3_2socket_8gpu, "pcie3_2socket_8gpu")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(node_model, geforce_pcie3_2socket_8gpu, "geforce_pcie3_2socket_8gpu")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(node_model, dgx1_v100, "dgx1_v100")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(node_model, dgx_h100, "dgx_h100")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(node_model, dgx2_16gpu, "dgx2")->Unit(benchmark::kMicrosecond);

}  // namespace
