// Tests for convergence/networks.hpp (built only with libtorch): the layer tables' parameter
// counts, gradients against a central difference, batch-norm state, and the engine's
// determinism with networks on several threads.
#include <doctest/doctest.h>

#include <cmath>

#include "sgdsim/convergence/engine.hpp"
#include "sgdsim/convergence/networks.hpp"

using namespace sgdsim;
using namespace sgdsim::convergence;

namespace {

// `examples` images of 28 x 28 uniform pixels in [0, 1] with labels 0..9, from a seed: the
// networks' shapes without the data set.
Dataset noise_images(int examples, std::uint64_t seed) {
  Rng rng(seed);
  Dataset set;
  set.classes = 10;
  set.features.resize(examples, 28 * 28);
  for (Eigen::Index row = 0; row < examples; ++row) {
    for (Eigen::Index col = 0; col < 28 * 28; ++col) set.features(row, col) = rng.next_unit();
    set.labels.push_back(static_cast<int>(rng.next_u64() % 10));
  }
  return set;
}

}  // namespace

TEST_CASE("the networks have their layer tables' parameters and batch-norm statistics") {
  REQUIRE(networks_available());
  // LeNet-5: conv 1->6 5x5 (150 + 6), conv 6->16 5x5 (2,400 + 16), fc 400->120 (48,000 + 120),
  // fc 120->84 (10,080 + 84), fc 84->10 (840 + 10): 61,706.
  CHECK(network("lenet", 28, 10)->parameters() == 61706);
  CHECK(network("lenet", 28, 10)->state().size() == 0);
  // The residual network: stem conv 1->8 3x3 (72) + BN (16); block 8->8: two 3x3 convs (576
  // each) and two BN (16 each): 1,184; block 8->16: 1,152 + 32 + 2,304 + 32, shortcut 1x1 128 +
  // BN 32: 3,680; block 16->32: 4,608 + 64 + 9,216 + 64 + 512 + 64: 14,528; fc 32->10: 330.
  // 19,810 in all. Batch norm over 8 + 16 + 48 + 96 = 168 channels keeps a running mean and
  // variance each: 336 statistics.
  CHECK(network("resnet", 28, 10)->parameters() == 19810);
  CHECK(network("resnet", 28, 10)->state().size() == 336);
}

TEST_CASE("a network's gradient matches a central difference along it, and starts near ln 10") {
  // Along the unit direction u = g / |g|, (L(w + h u) - L(w - h u)) / 2h = |g| + O(h^2). In
  // float32 the loss (about 2.3) rounds at 2e-7; h = 1e-2 makes that 1e-5 of a derivative of
  // order 1, and the curvature term h^2 |u'Hu| stays below 1e-3 of it: 1% is a wide margin that
  // a wrong or missing layer gradient still breaks. L is the training-mode loss the gradient is
  // of (batch norm normalising by the batch's own statistics, which the running ones that a
  // training call updates do not enter).
  for (const char* name : {"lenet", "resnet"}) {
    INFO(name);
    const auto model = network(name, 28, 10);
    const Dataset batch = noise_images(16, 5);
    Rng rng(1);
    const Eigen::VectorXd w = model->initial(rng);
    Eigen::VectorXd gradient;
    const double loss = model->loss_gradient(w, batch.features, batch.labels, gradient);
    // Default initialisation keeps the logits small: predictions near uniform, loss near ln 10.
    CHECK(loss == doctest::Approx(std::log(10.0)).epsilon(0.05));
    const double h = 1e-2;
    const Eigen::VectorXd u = gradient / gradient.norm();
    Eigen::VectorXd unused;
    const double numeric = (model->loss_gradient(w + h * u, batch.features, batch.labels, unused) -
                            model->loss_gradient(w - h * u, batch.features, batch.labels, unused)) /
                           (2.0 * h);
    CHECK(numeric == doctest::Approx(gradient.norm()).epsilon(0.01));
  }
}

TEST_CASE("batch norm's statistics move in training, and a replica carries them") {
  const auto model = network("resnet", 28, 10);
  const Dataset batch = noise_images(16, 6);
  Rng rng(2);
  const Eigen::VectorXd w = model->initial(rng);
  const Eigen::VectorXd before = model->state();  // means 0, variances 1
  CHECK(before.head(8).cwiseAbs().maxCoeff() == 0.0);
  CHECK(before.segment(8, 8).minCoeff() == 1.0);
  Eigen::VectorXd gradient;
  model->loss_gradient(w, batch.features, batch.labels, gradient);
  CHECK((model->state() - before).cwiseAbs().maxCoeff() > 0.0);
  CHECK(model->replica()->state() == model->state());
  // Evaluation uses the statistics, not the batch's own: it does not change them.
  const Eigen::VectorXd trained = model->state();
  model->evaluate(w, batch.features, batch.labels);
  CHECK(model->state() == trained);
}

TEST_CASE("training networks depends on the seed only, not on the number of threads") {
  // Four workers with momentum, weight decay and a cosine schedule, full communication and local
  // SGD (where each worker's batch-norm statistics and buffers differ until averaged).
  TrainTest data{noise_images(256, 7), noise_images(64, 8), "noise"};
  for (const char* name : {"lenet", "resnet"}) {
    for (const bool full : {true, false}) {
      INFO(name << (full ? ", full communication" : ", local SGD"));
      const auto model = network(name, 28, 10);
      EngineConfig config;
      config.workers = 4;
      config.batch = 8;
      config.iterations = 4;
      config.momentum = 0.9;
      config.weight_decay = 5e-4;
      config.schedule.decay = LearningRateSchedule::Decay::cosine;
      config.full_communication = full;
      config.average = [](int t, double) { return t % 2 == 0; };
      const EngineRun one = train(*model, data, config);
      config.threads = 2;
      const EngineRun two = train(*model, data, config);
      CHECK(one.model == two.model);  // bit for bit
      CHECK(one.iterations.back().test_accuracy == two.iterations.back().test_accuracy);
      config.seed = 2;
      CHECK(train(*model, data, config).model != one.model);
    }
  }
}
