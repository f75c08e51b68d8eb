// Cost of the fidelity levels at scale: per_rank iterations at 2048 GPUs, a flow-level ring
// allreduce of 100 MB at 2048 GPUs, and the analytic level from 64 to 16384 GPUs (whose time and
// memory should not grow with the GPU count: it reads routes off a representative topology).
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"
#include "synthetic_workload.hpp"

namespace {

sgdsim::ScenarioConfig config_for(int gpus, const char* fidelity, int iterations) {
  sgdsim::ScenarioConfig config;
  config.gpus = gpus;
  config.gpus_per_node = 8;
  config.network.link = {sgdsim::Bandwidth::from_gbps(100.0), sgdsim::Time::from_us(5.0)};
  config.intra_node = {sgdsim::Bandwidth::from_gbps(2400.0), sgdsim::Time::from_us(1.0)};
  config.policies = {sgdsim::MergePolicy::named("mgwfbp")};
  config.iterations = iterations;
  config.fidelity = fidelity;
  config.compute.jitter_cv = std::string(fidelity) == "per_rank" ? 0.05 : 0.0;
  return config;
}

void per_rank_100_iterations(benchmark::State& state) {
  const sgdsim::Workload workload = sgdsim::bench::resnet50_sized();
  const auto config = config_for(static_cast<int>(state.range(0)), "per_rank", 100);
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
}
BENCHMARK(per_rank_100_iterations)->Arg(256)->Arg(2048)->Unit(benchmark::kMillisecond);

// per_rank at scale: 1,000 messages (a 1,000-layer synthetic model sent tensor by tensor) on
// 16,384 GPUs with 5% jitter, 1,000 iterations.
void per_rank_16384_gpus_1000_messages(benchmark::State& state) {
  sgdsim::Workload workload = sgdsim::bench::resnet50_sized();
  while (workload.layers.size() < 1000) {
    sgdsim::Layer layer = workload.layers.back();
    layer.name = fmt::format("layer{}", workload.layers.size());
    layer.gradients.front().name = layer.name + ".weight";
    workload.layers.push_back(layer);
  }
  auto config = config_for(16384, "per_rank", static_cast<int>(state.range(0)));
  config.policies = {sgdsim::MergePolicy::named("none")};
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
}
BENCHMARK(per_rank_16384_gpus_1000_messages)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void analytic_iteration_by_gpus(benchmark::State& state) {
  const sgdsim::Workload workload = sgdsim::bench::resnet50_sized();
  const auto config = config_for(static_cast<int>(state.range(0)), "analytic", 1);
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
}
BENCHMARK(analytic_iteration_by_gpus)
    ->Arg(64)
    ->Arg(2048)
    ->Arg(16384)
    ->Unit(benchmark::kMicrosecond);

void flow_ring_allreduce_100mb(benchmark::State& state) {
  sgdsim::ClusterShape shape;
  shape.gpus = static_cast<int>(state.range(0));
  shape.gpus_per_node = 8;
  shape.network = {sgdsim::Bandwidth::from_gbps(100.0), sgdsim::Time::from_us(5.0)};
  shape.intra_node = {sgdsim::Bandwidth::from_gbps(2400.0), sgdsim::Time::from_us(1.0)};
  for (auto _ : state) {
    const sgdsim::CollectiveContext context{
        std::make_shared<const sgdsim::Topology>(sgdsim::Topology::build(shape)), 0.0,
        std::nullopt};
    const sgdsim::FlowCollective flow(
        std::make_unique<sgdsim::RingAllreduce>(sgdsim::RingAllreduce::on(context)),
        context.topology, 1);
    benchmark::DoNotOptimize(flow.time(sgdsim::Bytes(100'000'000)));
  }
}
BENCHMARK(flow_ring_allreduce_100mb)
    ->Arg(256)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// scenarios/astra_resnet50_flow.json (ring, 100 Gbps NICs, 1 us per message, WFBP, one iteration
// at flow fidelity) at state.range(0) GPUs, with another trace or node size when given.
void run_flow_scenario(benchmark::State& state, const char* trace = nullptr,
                       int gpus_per_node = 1) {
  sgdsim::ScenarioConfig config =
      sgdsim::read_scenario(SGDSIM_SOURCE_ROOT "/scenarios/astra_resnet50_flow.json");
  if (trace != nullptr) config.trace_path = trace;
  config.gpus = static_cast<int>(state.range(0));
  config.gpus_per_node = gpus_per_node;
  const sgdsim::Workload workload = sgdsim::read_trace(config.trace_path);
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
}

// ASTRA-sim's data-parallel ResNet-50 workload (54 tensors, 102 MB) sent tensor by tensor
// (WFBP) over a ring of single-GPU nodes: the scenario itself at other GPU counts.
void flow_astra_resnet50_wfbp(benchmark::State& state) {
  run_flow_scenario(state);
}
BENCHMARK(flow_astra_resnet50_wfbp)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// WFBP on the estimated ResNet-50 (161 tensors, as many distinct sizes) over nodes of 8 GPUs:
// every size priced.
void flow_resnet50_wfbp_161_sizes(benchmark::State& state) {
  run_flow_scenario(state, SGDSIM_SOURCE_ROOT "/traces/resnet50_b32_v100_estimated.json", 8);
}
BENCHMARK(flow_resnet50_wfbp_161_sizes)
    ->Arg(2048)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// scenarios/NAME with `edit` applied to its JSON, read as the command line reads it, run once
// per benchmark iteration.
void run_edited_scenario(benchmark::State& state, const std::string& name,
                         const std::function<void(nlohmann::json&)>& edit) {
  const std::string folder = SGDSIM_SOURCE_ROOT "/scenarios";
  nlohmann::json scenario = nlohmann::json::parse(std::ifstream(folder + "/" + name));
  edit(scenario);
  const sgdsim::ScenarioConfig config =
      sgdsim::read_scenario(sgdsim::jsonio::Document{name, scenario}, folder);
  const sgdsim::Workload workload = sgdsim::read_trace(config.trace_path);
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::run_scenario(config, workload));
}

// NCCL's double binary tree at flow fidelity: scenarios/astra_resnet50_flow.json with the
// estimated ResNet-50 (161 sizes, WFBP), 8 GPUs a node, at state.range(0) GPUs. Its steps mix
// rates on shared links: each distinct step is run once and every size replays its phases.
void flow_double_binary_tree(benchmark::State& state) {
  run_edited_scenario(state, "astra_resnet50_flow.json", [&state](nlohmann::json& scenario) {
    scenario["trace"] = "../traces/resnet50_b32_v100_estimated.json";
    scenario["cluster"]["gpus"] = state.range(0);
    scenario["cluster"]["gpus_per_node"] = 8;
    scenario["cluster"]["intra_node_bandwidth_gbps"] = 2400;
    scenario["communication"]["collective"]["algorithm"] = "double_binary_tree";
  });
}
BENCHMARK(flow_double_binary_tree)
    ->Arg(2048)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// scenarios/fat_tree_oversubscribed_flow.json (8 GPUs a node, a NIC each, 2 nodes a leaf, 4:1
// spine) with a ring allreduce at 2,048 GPUs and state.range(0) identical jobs sharing the links,
// one iteration.
void flow_identical_jobs(benchmark::State& state) {
  run_edited_scenario(state, "fat_tree_oversubscribed_flow.json",
                      [&state](nlohmann::json& scenario) {
                        scenario["cluster"]["gpus"] = 2048;
                        scenario["communication"]["collective"]["algorithm"] = "ring_allreduce";
                        scenario["communication"]["concurrent_jobs"] = state.range(0);
                        scenario["iterations"] = 1;
                      });
}
BENCHMARK(flow_identical_jobs)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);

// scenarios/ps_incast_flow.json (single-GPU workers, dedicated servers on 25 Gbps, the estimated
// ResNet-50) at state.range(0) workers and 16 servers, MG-WFBP's merged messages, one iteration:
// every worker's push to and pull from every server.
void flow_parameter_server(benchmark::State& state) {
  run_edited_scenario(state, "ps_incast_flow.json", [&state](nlohmann::json& scenario) {
    scenario["cluster"]["gpus"] = state.range(0);
    scenario["communication"]["collective"]["servers"] = 16;
    scenario["communication"]["merge"]["policy"] = "mgwfbp";
    scenario["iterations"] = 1;
  });
}
BENCHMARK(flow_parameter_server)
    ->Arg(256)
    ->Arg(2048)
    ->Arg(8192)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// One shape of collective per state.range(0), on scenarios/fat_tree_oversubscribed_flow.json
// (8 GPUs a node, a 100 Gbps NIC each, 2 nodes a leaf, 4:1 spine) at state.range(1) GPUs,
// MG-WFBP, one iteration: 0 ring, 1 halving-doubling, 2 double binary tree, 3 hierarchical,
// 4 FSDP FULL_SHARD over a ring (blocks of the estimated BERT-large), 5 two identical ring jobs,
// 6 BytePS with a summation server per machine (4 MB partitions through the pipeline), 7 the
// same with the servers on the worker machines (TensorFlow's distributed_replicated), 8 BytePS
// with dedicated servers and NCCL in groups of 4 GPUs (pcie_switch_size 4: copies to host
// memory and the CPU's sum between the groups).
void flow_shape(benchmark::State& state) {
  run_edited_scenario(state, "fat_tree_oversubscribed_flow.json", [&state](nlohmann::json& s) {
    static const char* const algorithms[] = {
        "ring_allreduce", "halving_doubling", "double_binary_tree",
        "hierarchical",   "ring_allreduce",   "ring_allreduce",
        "byteps",         "byteps",           "byteps"};
    const std::int64_t shape = state.range(0);
    s["cluster"]["gpus"] = state.range(1);
    s["communication"]["collective"]["algorithm"] = algorithms[shape];
    s["communication"]["merge"]["policy"] = "mgwfbp";
    if (shape == 4) {
      s["trace"] = "../traces/bert_large_b64_s128_v100_amp_estimated.json";
      s["communication"]["sharding"] = {{"strategy", "full_shard"}};
    }
    if (shape == 5) s["communication"]["concurrent_jobs"] = 2;
    if (shape >= 6) s["communication"]["collective"]["servers"] = state.range(1) / 8;
    if (shape == 7) s["communication"]["collective"]["placement"] = "colocated";
    if (shape == 8) s["communication"]["collective"]["pcie_switch_size"] = 4;
    s["iterations"] = 1;
  });
}
BENCHMARK(flow_shape)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6, 7, 8}, {256, 2048, 16384}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// A scenario on a described node (scenarios/gpt2_medium_h100_profiler.json: DGX H100, 64 GPUs,
// analytic), one policy and one iteration per run: what every point of a sweep over such a
// scenario pays to set up its collective, the node's topology included.
void analytic_run_on_node(benchmark::State& state) {
  run_edited_scenario(state, "gpt2_medium_h100_profiler.json", [](nlohmann::json& s) {
    s["communication"]["merge"]["policy"] = "mgwfbp";
    s["iterations"] = 1;
    s.erase("sweep");
  });
}
BENCHMARK(analytic_run_on_node)->Unit(benchmark::kMicrosecond);

// BytePS across 8 machines (scenarios/vgg16_byteps_64gpus.json, analytic, WFBP, 10 iterations):
// at the default slowdown (state.range(0) = 0) each policy runs at its largest message's kernel
// share, measures the share on its last iteration and runs again at it; at full speed
// (compute.overlap_slowdown 1, state.range(0) = 1) once.
void analytic_byteps_kernel_share(benchmark::State& state) {
  const bool full_speed = state.range(0) == 1;
  run_edited_scenario(state, "vgg16_byteps_64gpus.json", [full_speed](nlohmann::json& s) {
    s["communication"]["merge"]["policy"] = "none";
    if (full_speed) s["compute"]["overlap_slowdown"] = 1;
  });
}
BENCHMARK(analytic_byteps_kernel_share)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// ByteScheduler with partitions of state.range(0) elements and a credit no partition waits on,
// GPT-2 (124 M parameters) on 16 GPUs at 100 Gbit/s, analytic, two iterations: at 1,000 elements
// 124,479 partitions fly at once. Each partition's end is found in a heap of those in flight
// (a scan of them per event took 57 s at 1,000 elements).
void bytescheduler_partitions_in_flight(benchmark::State& state) {
  run_edited_scenario(state, "gpt2_medium_h100_profiler.json", [&state](nlohmann::json& s) {
    s["trace"] = "../traces/gpt2_b8_s1024_h100_fp32.json";
    s["cluster"] = {{"gpus", 16}, {"gpus_per_node", 8}};
    s["network"] = {{"bandwidth_gbps", 100}};
    s["communication"] = {{"merge",
                           {{"policy", "bytescheduler"},
                            {"bytescheduler_partition", state.range(0)},
                            {"bytescheduler_credit", 1e15}}}};
    s["fidelity"] = "analytic";
    s["iterations"] = 2;
    s.erase("sweep");
  });
}
BENCHMARK(bytescheduler_partitions_in_flight)
    ->Arg(1'000'000)
    ->Arg(10'000)
    ->Arg(1'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// scenarios/jobs_fat_tree_flow.json (three jobs of a quarter, a quarter and half the fabric,
// started 0, 20 and 50 ms apart, spread over a 4:1 fat-tree) on a fabric of state.range(0) GPUs,
// two iterations each; state.range(1) = 1 packs them instead (no link shared: each job priced
// alone).
void flow_mixed_jobs(benchmark::State& state) {
  run_edited_scenario(state, "jobs_fat_tree_flow.json", [&state](nlohmann::json& scenario) {
    const std::int64_t quarter = state.range(0) / 4;
    scenario["cluster"]["gpus"] = quarter;
    scenario["jobs"]["with"][0]["gpus"] = quarter;
    scenario["jobs"]["with"][1]["gpus"] = 2 * quarter;
    if (state.range(1) == 1) scenario["jobs"]["placement"] = "packed";
    scenario["iterations"] = 2;
  });
}
BENCHMARK(flow_mixed_jobs)
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({2048, 0})
    ->Args({2048, 1})
    ->Args({16384, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
