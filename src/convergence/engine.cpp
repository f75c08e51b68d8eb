// Data-parallel SGD over logical workers (the header states the protocol).
#include "sgdsim/convergence/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <span>
#include <thread>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/rng.hpp"
#include "sgdsim/core/run_monitor.hpp"

namespace sgdsim::convergence {

namespace {

// Fisher-Yates with the project's generator (std::shuffle's result is implementation-defined).
void shuffle(std::vector<Eigen::Index>& items, Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.next_u64() % i);
    std::swap(items[i - 1], items[j]);
  }
}

struct Worker {
  std::vector<Eigen::Index> shard;
  std::size_t cursor = 0;
  Rng rng{0};
  std::unique_ptr<Model> model;  // this worker's own instance
  Eigen::VectorXd w;
  Eigen::VectorXd gradient;
  Eigen::VectorXd residual;  // error feedback memory
  Eigen::VectorXd velocity;  // momentum buffer (local SGD; full communication keeps one)
  double error_ratio = 0.0;  // |C(x) - x|^2 / |x|^2 of this iteration's message
  double norm_ratio = 0.0;   // |C(x)|^2 / |x|^2
  double loss = 0.0;
  Eigen::MatrixXd x;  // the current mini-batch
  std::vector<int> y;

  void next_batch(const Dataset& train, int batch) {
    x.resize(batch, train.features.cols());
    y.resize(static_cast<std::size_t>(batch));
    for (int k = 0; k < batch; ++k) {
      if (cursor == shard.size()) {
        shuffle(shard, rng);
        cursor = 0;
      }
      const Eigen::Index row = shard[cursor++];
      x.row(k) = train.features.row(row);
      y[static_cast<std::size_t>(k)] = train.labels[static_cast<std::size_t>(row)];
    }
  }
};

// Runs f(worker index) for every worker, on up to `threads` threads, each on a fixed range.
void for_each_worker(int workers, int threads, const std::function<void(int)>& f) {
  const int used = std::max(1, std::min(threads, workers));
  if (used == 1) {
    for (int i = 0; i < workers; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < used; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t * workers / used; i < (t + 1) * workers / used; ++i) f(i);
    });
  }
  for (std::thread& thread : pool) thread.join();
}

// One SGD step as torch.optim.SGD takes it, with g = sum / count: d = g + lambda w,
// b <- mu b + d, w <- w - eta b (plain SGD: w <- w - (eta / count) sum).
void sgd_step(Eigen::VectorXd& w, Eigen::VectorXd& velocity, const Eigen::VectorXd& sum,
              double count, double rate, const EngineConfig& config) {
  if (config.momentum == 0.0 && config.weight_decay == 0.0) {
    w -= rate / count * sum;
    return;
  }
  if (velocity.size() == 0) velocity = Eigen::VectorXd::Zero(w.size());
  velocity = config.momentum * velocity + sum / count + config.weight_decay * w;
  w -= rate * velocity;
}

// The mean of the workers' model state (batch-norm statistics), summed in worker order; empty
// for stateless models.
Eigen::VectorXd mean_state(const std::vector<Worker>& workers) {
  Eigen::VectorXd sum = workers.front().model->state();
  if (sum.size() == 0) return sum;
  for (std::size_t i = 1; i < workers.size(); ++i) sum += workers[i].model->state();
  return sum / static_cast<double>(workers.size());
}

// Every worker's model state replaced by the mean (a no-op for stateless models).
void share_state(std::vector<Worker>& workers) {
  const Eigen::VectorXd state = mean_state(workers);
  if (state.size() == 0) return;
  for (Worker& worker : workers) worker.model->set_state(state);
}

// The test set is evaluated in parts of this many examples, on the engine's threads, each part by
// its own replica, and the parts combined in order: the same numbers whatever the thread count.
constexpr Eigen::Index evaluation_part = 1000;

// A part of the test set and the replica that evaluates it, cut once per run: its rows copied
// once into the column-major layout the models take.
struct TestPart {
  std::unique_ptr<Model> evaluator;
  Eigen::MatrixXd features;
  std::vector<int> labels;
};

std::vector<TestPart> cut_test_set(const Model& model, const Dataset& test) {
  std::vector<TestPart> parts;
  for (Eigen::Index begin = 0; begin < test.examples(); begin += evaluation_part) {
    TestPart part;
    part.evaluator = model.replica();
    const Eigen::Index count = std::min(evaluation_part, test.examples() - begin);
    part.features = test.features.middleRows(begin, count);
    part.labels.assign(test.labels.begin() + begin, test.labels.begin() + begin + count);
    parts.push_back(std::move(part));
  }
  return parts;
}

Evaluation evaluate_test(std::vector<TestPart>& parts, const Eigen::VectorXd& w,
                         const Eigen::VectorXd& state, int threads) {
  std::vector<Evaluation> results(parts.size());
  for_each_worker(static_cast<int>(parts.size()), threads, [&](int i) {
    TestPart& part = parts[static_cast<std::size_t>(i)];
    if (state.size() > 0) part.evaluator->set_state(state);
    results[static_cast<std::size_t>(i)] = part.evaluator->evaluate(w, part.features, part.labels);
  });
  double loss = 0.0;
  double hits = 0.0;
  double total = 0.0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto count = static_cast<double>(parts[i].features.rows());
    loss += results[i].loss * count;
    hits += std::round(results[i].accuracy * count);
    total += count;
  }
  return {loss / total, hits / total};
}

}  // namespace

double LearningRateSchedule::at(double base, int t, int iterations) const {
  if (t <= warmup) return base * t / warmup;
  switch (decay) {
    case Decay::constant: return base;
    case Decay::step: {
      double rate = base;
      for (const int milestone : milestones) {
        if (t > milestone) rate *= gamma;
      }
      return rate;
    }
    case Decay::cosine: {
      const double progress = static_cast<double>(t - warmup - 1) / (iterations - warmup);
      return base * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    }
  }
  return base;
}

const std::vector<std::string>& learning_rate_decays() {
  static const std::vector<std::string> names{"constant", "step", "cosine"};
  return names;
}

EngineRun train(const Model& model, const TrainTest& data, const EngineConfig& config) {
  const Dataset& train_set = data.train;
  if (config.workers < 1 || config.workers > train_set.examples()) {
    throw InputError(
        fmt::format("{} workers for {} training examples: each worker needs at least "
                    "one example",
                    config.workers, train_set.examples()));
  }
  SGDSIM_ASSERT(config.batch >= 1 && config.iterations >= 1 && config.learning_rate > 0.0,
                "an engine run needs a batch, iterations and a learning rate");
  SGDSIM_ASSERT(config.momentum >= 0.0 && config.momentum < 1.0 && config.weight_decay >= 0.0 &&
                    config.schedule.warmup >= 0 && config.schedule.warmup < config.iterations,
                "momentum in [0, 1), weight decay >= 0, a warm-up shorter than the run");
  SGDSIM_ASSERT(config.full_communication || config.average, "local SGD needs an averaging rule");
  const Compressor* compressor =
      config.compressor && config.compressor->name() != "none" ? config.compressor.get() : nullptr;
  if (compressor && !config.full_communication) {
    throw InputError(
        "compressed gradients need full-communication SGD (local SGD averages "
        "models, which this engine sends uncompressed)");
  }
  Rng root(config.seed);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(train_set.examples()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  shuffle(order, root);
  Rng init(root.next_u64());
  const Eigen::VectorXd start = model.initial(init);
  std::vector<Worker> workers;
  const auto n = static_cast<std::size_t>(config.workers);
  for (std::size_t i = 0; i < n; ++i) {
    Worker worker;
    worker.rng = Rng(root.next_u64());
    worker.model = model.replica();
    worker.w = start;
    worker.residual = Eigen::VectorXd::Zero(start.size());
    const std::size_t begin = i * order.size() / n;
    const std::size_t end = (i + 1) * order.size() / n;
    worker.shard.assign(order.begin() + static_cast<std::ptrdiff_t>(begin),
                        order.begin() + static_cast<std::ptrdiff_t>(end));
    shuffle(worker.shard, worker.rng);
    workers.push_back(std::move(worker));
  }
  EngineRun run;
  run.iterations.reserve(static_cast<std::size_t>(config.iterations));
  Rng shared(root.next_u64());  // one draw per iteration for shared-randomness compressors
  double error_sum = 0.0;
  double norm_sum = 0.0;
  std::int64_t messages = 0;
  Eigen::VectorXd mean = start;
  Eigen::VectorXd sum(start.size());
  Eigen::VectorXd velocity;  // full communication: the buffer every worker holds alike
  std::vector<TestPart> test_parts = cut_test_set(model, data.test);
  for (int t = 1; t <= config.iterations; ++t) {
    report_trained_iteration();  // progress, and Ctrl-C from the Python API
    const std::uint64_t shared_seed = shared.next_u64();
    const double rate = config.schedule.at(config.learning_rate, t, config.iterations);
    for_each_worker(config.workers, config.threads, [&](int i) {
      Worker& worker = workers[static_cast<std::size_t>(i)];
      worker.next_batch(train_set, config.batch);
      worker.loss = worker.model->loss_gradient(worker.w, worker.x, worker.y, worker.gradient);
      if (compressor == nullptr) return;
      if (config.error_feedback) worker.gradient += worker.residual;
      const Eigen::VectorXd sent = worker.gradient;
      Rng draw(shared_seed);
      compressor->apply(std::span<double>(worker.gradient.data(),
                                          static_cast<std::size_t>(worker.gradient.size())),
                        compressor->shared_randomness() ? draw : worker.rng);
      const double norm = sent.squaredNorm();
      worker.error_ratio = norm > 0.0 ? (worker.gradient - sent).squaredNorm() / norm : 0.0;
      worker.norm_ratio = norm > 0.0 ? worker.gradient.squaredNorm() / norm : 1.0;
      if (config.error_feedback) worker.residual = sent - worker.gradient;
    });
    if (compressor != nullptr) {
      for (const Worker& worker : workers) {
        error_sum += worker.error_ratio;
        norm_sum += worker.norm_ratio;
      }
      messages += config.workers;
    }
    IterationRecord record;
    record.learning_rate = rate;
    for (const Worker& worker : workers) record.loss += worker.loss;
    record.loss /= static_cast<double>(n);
    if (config.full_communication) {
      sum.setZero();
      for (const Worker& worker : workers) sum += worker.gradient;
      sgd_step(mean, velocity, sum, static_cast<double>(n), rate, config);
      for (Worker& worker : workers) worker.w = mean;
      share_state(workers);
    } else {
      for (Worker& worker : workers) {
        sgd_step(worker.w, worker.velocity, worker.gradient, 1.0, rate, config);
      }
      sum.setZero();
      for (const Worker& worker : workers) sum += worker.w;
      mean = sum / static_cast<double>(n);
      for (const Worker& worker : workers) record.variance += (worker.w - mean).squaredNorm();
      record.variance /= static_cast<double>(n);
      if (config.average(t, record.variance)) {
        for (Worker& worker : workers) worker.w = mean;
        share_state(workers);
        record.averaged = true;
        ++run.averaging_rounds;
      }
    }
    const bool evaluate =
        t == config.iterations || (config.evaluate_every > 0 && t % config.evaluate_every == 0);
    if (evaluate) {
      const Evaluation test = evaluate_test(test_parts, mean, mean_state(workers), config.threads);
      record.test_accuracy = test.accuracy;
      record.test_loss = test.loss;
    }
    run.iterations.push_back(record);
    if (evaluate && config.stop && config.stop(record)) break;
  }
  run.model = mean;
  if (compressor != nullptr && messages > 0) {
    const double error = error_sum / static_cast<double>(messages);
    run.empirical_delta =
        error < 1.0 ? 1.0 / (1.0 - error) : std::numeric_limits<double>::infinity();
    run.empirical_omega = norm_sum / static_cast<double>(messages) - 1.0;
  }
  return run;
}

}  // namespace sgdsim::convergence
