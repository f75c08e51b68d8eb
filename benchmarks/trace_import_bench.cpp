// The Kineto importer's cost against the size of the profile: a synthetic profile of N layers
// (each a forward operator taking a parameter, its backward operator linked by a flow, an
// AccumulateGrad, one kernel each), written once per size, imported each iteration. Reports
// the time per layer; the importer sorts the events, so the cost should grow as N log N.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sgdsim/trace_io/kineto_profile.hpp"

namespace {

std::filesystem::path synthetic_profile(int layers) {
  nlohmann::json events = nlohmann::json::array();
  const auto op = [&](const std::string& name, double ts, double dur, int tid,
                      nlohmann::json args) {
    events.push_back({{"ph", "X"},
                      {"cat", "cpu_op"},
                      {"name", name},
                      {"pid", 1},
                      {"tid", tid},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", std::move(args)}});
  };
  const auto kernel = [&](double launch, int tid, double start, int correlation) {
    events.push_back({{"ph", "X"},
                      {"cat", "cuda_runtime"},
                      {"name", "cudaLaunchKernel"},
                      {"pid", 1},
                      {"tid", tid},
                      {"ts", launch},
                      {"dur", 0.5},
                      {"args", {{"correlation", correlation}}}});
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", "k"},
                      {"pid", 0},
                      {"tid", 7},
                      {"ts", start},
                      {"dur", 5.0},
                      {"args", {{"correlation", correlation}}}});
  };
  const double step = 10.0;
  const double backward = step * layers + 100.0;
  events.push_back({{"ph", "X"},
                    {"cat", "user_annotation"},
                    {"name", "ProfilerStep#0"},
                    {"pid", 1},
                    {"tid", 1},
                    {"ts", 0.0},
                    {"dur", 2 * backward + 100.0},
                    {"args", {}}});
  for (int i = 0; i < layers; ++i) {
    const double ts = 1.0 + step * i;
    op("aten::linear", ts, 4.0, 1, {{"Input Dims", {{8, 64}, {64, 64}, {64}}}});
    kernel(ts + 1.0, 1, ts + 2.0, 2 * i);
    const double back = backward + step * (layers - 1 - i);
    op("autograd::engine::evaluate_function: AddmmBackward0", back, 4.0, 2,
       nlohmann::json::object());
    kernel(back + 1.0, 2, back + 2.0, 2 * i + 1);
    op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", back + 6.0, 1.0, 2,
       nlohmann::json::object());
    op("torch::autograd::AccumulateGrad", back + 6.2, 0.5, 2,
       {{"Input Dims", {{64, 64}}}, {"Input type", {"float"}}});
    events.push_back(
        {{"ph", "s"}, {"cat", "fwdbwd"}, {"id", i}, {"pid", 1}, {"tid", 1}, {"ts", ts}});
    events.push_back(
        {{"ph", "f"}, {"cat", "fwdbwd"}, {"id", i}, {"pid", 1}, {"tid", 2}, {"ts", back}});
  }
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("sgdsim_bench_profile_" + std::to_string(layers) + ".json");
  std::ofstream(path) << nlohmann::json{
      {"deviceProperties", {{{"name", "bench"}}}},
      {"traceEvents",
       events}}.dump();
  return path;
}

void BM_KinetoImport(benchmark::State& state) {
  const auto layers = static_cast<int>(state.range(0));
  const std::filesystem::path path = synthetic_profile(layers);
  sgdsim::ImportRequest request;
  request.input = path;
  request.batch = 8;
  for (auto _ : state) benchmark::DoNotOptimize(sgdsim::import_kineto_profile(request));
  state.SetComplexityN(layers);
  state.counters["us_per_layer"] = benchmark::Counter(
      static_cast<double>(layers),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  std::filesystem::remove(path);
}
BENCHMARK(BM_KinetoImport)
    ->RangeMultiplier(4)
    ->Range(64, 4096)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace
