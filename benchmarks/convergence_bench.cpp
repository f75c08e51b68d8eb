// The convergence engine on Fashion-MNIST (Debian's dataset-fashion-mnist): softmax regression,
// 16 workers x batch 32, full-communication SGD and CPSGD (period 8), 2,000 iterations, with the
// test accuracy measured every 500; the argument is the number of threads.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "sgdsim/convergence/engine.hpp"

namespace {

using namespace sgdsim::convergence;

void convergence_softmax_16_workers_2000_iterations(benchmark::State& state) {
  if (!std::filesystem::exists(default_fashion_mnist_folder())) {
    state.SkipWithError("dataset-fashion-mnist is not installed");
    return;
  }
  static const TrainTest data = load_fashion_mnist();
  const auto model = softmax_regression(784, 10);
  EngineConfig config;
  config.workers = 16;
  config.batch = 32;
  config.learning_rate = 0.1;
  config.iterations = 2000;
  config.evaluate_every = 500;
  config.threads = static_cast<int>(state.range(0));
  config.full_communication = state.range(1) == 0;
  config.average = [](int t, double) { return t % 8 == 0; };
  double accuracy = 0.0;
  for (auto _ : state) {
    const EngineRun run = train(*model, data, config);
    accuracy = *run.iterations.back().test_accuracy;
  }
  state.counters["test_accuracy"] = accuracy;
}
BENCHMARK(convergence_softmax_16_workers_2000_iterations)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
