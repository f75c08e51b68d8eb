// The convergence engine: real data-parallel SGD with N logical workers, each holding its own
// shard of the training set (a seeded permutation cut into N equal parts), drawing its own
// mini-batches (its shard reshuffled every pass, from its own random stream), and its own copy
// of the model. Each iteration every worker computes its mini-batch gradient; then either
//   - full communication: the gradients are averaged (in worker order) and one update is applied
//     to every copy (synchronous SGD; the copies stay identical), or
//   - local SGD: every worker applies its own update, and when the averaging rule says so the
//     copies are replaced by their mean (CPSGD and the adaptive schedules).
// Per iteration it records the workers' mean mini-batch loss, the variance of the parameters
// across workers before any averaging (1/N sum_i |w_i - mean w|^2, the quantity ADPSGD reasons
// with), whether the models were averaged, and every `evaluate_every` iterations the test
// accuracy and test loss of the mean model. Results depend on the seed only, not on the number
// of threads (each worker's work is its own; sums run in worker order).
//
// With a compressor (full communication only), each worker sends C(g) instead of its gradient
// g, or with error feedback C(e + g), keeping e <- e + g - C(e + g) (Seide et al. 2014;
// Karimireddy et al. 2019); the mean of what was sent is applied. Randomness is each worker's
// own, or one draw per iteration for all workers where the compressor needs it (rand-k's
// shared seed). The run reports the compressor's empirical quality on the vectors it saw:
// delta = 1 / (1 - mean |C(x) - x|^2 / |x|^2) and omega = mean |C(x)|^2 / |x|^2 - 1.
//
// Every worker runs SGD as PyTorch's torch.optim.SGD does after a data-parallel allreduce: with
// weight decay lambda and momentum mu, d = g + lambda w, b <- mu b + d (b starts at zero),
// w <- w - eta_t b, where g is the averaged (possibly compressed) gradient under full
// communication and the worker's own under local SGD. Weight decay is applied where the update
// is, so it is never communicated or compressed. Each worker keeps its own momentum buffer; under
// full communication the buffers stay identical, under local SGD they stay local (averaging
// replaces the parameters and the models' state, never the buffers). The models' state
// (batch-norm statistics) is averaged every iteration under full communication (a stand-in for
// DDP's broadcast of rank 0's buffers) and at every round under local SGD.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/compression/compressor.hpp"
#include "sgdsim/convergence/dataset.hpp"
#include "sgdsim/convergence/learning_rate.hpp"
#include "sgdsim/convergence/model.hpp"

namespace sgdsim::convergence {

struct IterationRecord;

struct EngineConfig {
  int workers = 1;
  int batch = 32;              // per worker
  double learning_rate = 0.1;  // the schedule's base rate
  LearningRateSchedule schedule;
  double momentum = 0.0;
  double weight_decay = 0.0;
  int iterations = 100;
  int evaluate_every = 0;  // 0: only after the last iteration
  std::uint64_t seed = 1;
  bool full_communication = true;  // false: local SGD with `average`
  // Local SGD: whether to average after iteration t (1-based) given the variance just measured.
  std::function<bool(int iteration, double variance)> average;
  int threads = 1;
  std::shared_ptr<const Compressor> compressor;  // null or "none": gradients sent as they are
  bool error_feedback = false;
  // Called after every evaluated iteration: true ends the run there.
  std::function<bool(const IterationRecord&)> stop;
};

struct IterationRecord {
  double learning_rate = 0.0;  // the step this iteration took
  double loss = 0.0;           // mean over workers of their mini-batch loss
  double variance = 0.0;       // across workers, before averaging
  bool averaged = false;
  std::optional<double> test_accuracy;
  std::optional<double> test_loss;
};

struct EngineRun {
  std::vector<IterationRecord> iterations;
  Eigen::VectorXd model;  // the mean model at the end
  int averaging_rounds = 0;
  std::optional<double> empirical_delta;  // with a compressor
  std::optional<double> empirical_omega;
};

EngineRun train(const Model& model, const TrainTest& data, const EngineConfig& config);

}  // namespace sgdsim::convergence
