// The convergence engine on Fashion-MNIST (Debian's dataset-fashion-mnist): softmax regression,
// 16 workers x batch 32, full-communication SGD and CPSGD (period 8), 2,000 iterations, with the
// test accuracy measured every 500; the argument is the number of threads. Below it, the
// networks (convergence/networks.hpp).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "sgdsim/convergence/engine.hpp"
#include "sgdsim/convergence/networks.hpp"

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

// The networks' step loop (libtorch builds): 8 workers x batch 32 on synthetic 28 x 28 images,
// 20 iterations of full-communication SGD with momentum, no evaluation; arguments: the network
// (0 LeNet-5, 1 the residual network) and the number of threads. Reported per worker-step.
void convergence_network_8_workers_20_iterations(benchmark::State& state) {
  if (!networks_available()) {
    state.SkipWithError("this build has no libtorch");
    return;
  }
  sgdsim::Rng rng(1);
  TrainTest data;
  for (Dataset* set : {&data.train, &data.test}) {
    set->classes = 10;
    set->features = Eigen::MatrixXd::NullaryExpr(512, 784, [&rng] { return rng.next_unit(); });
    for (int i = 0; i < 512; ++i) set->labels.push_back(static_cast<int>(rng.next_u64() % 10));
  }
  const auto model = network(state.range(0) == 0 ? "lenet" : "resnet", 28, 10);
  EngineConfig config;
  config.workers = 8;
  config.batch = 32;
  config.momentum = 0.9;
  config.iterations = 20;
  config.threads = static_cast<int>(state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(train(*model, data, config).model.sum());
  state.SetItemsProcessed(state.iterations() * config.workers * config.iterations);
}
BENCHMARK(convergence_network_8_workers_20_iterations)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
