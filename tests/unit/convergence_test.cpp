// Tests for convergence/dataset.hpp, model.hpp and engine.hpp: gradients against finite
// differences, the engine against the identities and rates theory gives.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "sgdsim/convergence/engine.hpp"
#include "sgdsim/convergence/statistics.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/convergence_run.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "test_support.hpp"

using namespace sgdsim;
using namespace sgdsim::convergence;

namespace {

// 400 points in 5 dimensions (200 to train), a planted direction of norm 2.
TrainTest small_problem() {
  return synthetic_logistic(400, 5, 2.0, 7);
}

// The same points with a third class (label 2 where the first feature is largest), for the
// multi-class models.
TrainTest three_classes() {
  TrainTest data = small_problem();
  for (Dataset* set : {&data.train, &data.test}) {
    set->classes = 3;
    for (Eigen::Index row = 0; row < set->examples(); ++row) {
      if (set->features(row, 0) > 1.0) set->labels[static_cast<std::size_t>(row)] = 2;
    }
  }
  return data;
}

// Largest relative difference between the analytic gradient and central differences.
double gradient_error(convergence::Model& model, const Dataset& data) {
  Rng rng(3);
  Eigen::VectorXd w = model.initial(rng);
  for (Eigen::Index i = 0; i < w.size(); ++i) w(i) += 0.1 * (rng.next_unit() - 0.5);
  Eigen::VectorXd gradient;
  model.loss_gradient(w, data.features, data.labels, gradient);
  double worst = 0.0;
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < w.size(); ++i) {
    Eigen::VectorXd plus = w;
    Eigen::VectorXd minus = w;
    plus(i) += h;
    minus(i) -= h;
    const double numeric = (model.loss(plus, data.features, data.labels) -
                            model.loss(minus, data.features, data.labels)) /
                           (2.0 * h);
    worst = std::max(worst, std::abs(numeric - gradient(i)) / std::max(1.0, std::abs(numeric)));
  }
  return worst;
}

// Gradient descent: one worker whose batch is the whole training set, at this step.
EngineConfig full_batch(const TrainTest& data, double step, int iterations) {
  EngineConfig config;
  config.workers = 1;
  config.batch = static_cast<int>(data.train.examples());
  config.learning_rate = step;
  config.iterations = iterations;
  return config;
}

EngineConfig local_sgd(int period) {
  EngineConfig config;
  config.workers = 4;
  config.batch = 8;
  config.learning_rate = 0.2;
  config.iterations = 64;
  config.full_communication = false;
  config.average = [period](int t, double) { return t % period == 0; };
  return config;
}

}  // namespace

TEST_CASE("every model's gradient matches central differences") {
  // Central differences err by O(h^2) = 1e-12 of the third derivative, and by rounding
  // 1e-16 / h = 1e-10 in the loss: agreement to 1e-6 leaves a wide margin and still catches
  // any wrong term.
  const TrainTest binary = small_problem();
  CHECK(gradient_error(*logistic_regression(5, 0.01), binary.train) < 1e-6);
  const TrainTest multi = three_classes();
  CHECK(gradient_error(*softmax_regression(5, 3), multi.train) < 1e-6);
  CHECK(gradient_error(*mlp(5, 4, 3), multi.train) < 1e-6);
}

TEST_CASE("averaging the models after every iteration is full-communication SGD") {
  // mean_i (w - eta g_i) = w - eta mean_i g_i: the same iterates, up to the order of the
  // floating-point sums (parameters of order 1: differences below 1e-12).
  const TrainTest data = three_classes();
  const auto model = softmax_regression(5, 3);
  EngineConfig full = local_sgd(1);
  full.full_communication = true;
  const EngineRun synchronous = train(*model, data, full);
  const EngineRun averaged = train(*model, data, local_sgd(1));
  CHECK((synchronous.model - averaged.model).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(averaged.averaging_rounds == 64);
  CHECK(synchronous.iterations.back().variance == 0.0);
}

TEST_CASE("the parameters' variance across workers grows with the averaging period") {
  // Between two averagings each worker takes its own steps on its own shard: the copies drift
  // apart like independent walks, the variance growing with the steps since the last average.
  // Averaged over a run, a longer period gives a larger variance.
  const TrainTest data = three_classes();
  const auto model = softmax_regression(5, 3);
  double previous = 0.0;
  for (const int period : {1, 2, 8, 32}) {
    const EngineRun run = train(*model, data, local_sgd(period));
    double mean = 0.0;
    for (const IterationRecord& record : run.iterations) mean += record.variance;
    mean /= static_cast<double>(run.iterations.size());
    INFO("period " << period << ": mean variance " << mean);
    CHECK(mean > previous);
    previous = mean;
    CHECK(run.averaging_rounds == 64 / period);
  }
}

TEST_CASE("a run depends on its seed only, not on the number of threads") {
  const TrainTest data = three_classes();
  const auto model = mlp(5, 4, 3);
  EngineConfig config = local_sgd(4);
  const EngineRun one = train(*model, data, config);
  config.threads = 3;
  const EngineRun three = train(*model, data, config);
  CHECK(one.model == three.model);  // bit for bit
  config.seed = 2;
  CHECK(train(*model, data, config).model != one.model);
}

TEST_CASE("full-batch gradient descent on l2 logistic regression converges at the proven rate") {
  // f is mu-strongly convex (mu = lambda) and L-smooth; gradient descent with step 1/L gives
  // f(w_k) - f* <= (1 - mu/L)^k (f(w_0) - f*) (Nesterov, Introductory Lectures, Thm 2.1.15).
  // One worker whose batch is its whole shard computes the full gradient every iteration; the
  // loss recorded at iteration k is f(w_{k-1}). f* from 3,000 further steps.
  const TrainTest data = small_problem();
  const double lambda = 0.05;
  const auto model = logistic_regression(5, lambda);
  const double smooth = logistic_smoothness(data.train.features, lambda);
  const EngineRun run = train(*model, data, full_batch(data, 1.0 / smooth, 3000));
  const double optimum = model->loss(run.model, data.train.features, data.train.labels);
  const double start = run.iterations.front().loss - optimum;
  const double rate = 1.0 - lambda / smooth;
  for (int k = 1; k <= 60; ++k) {
    const double gap = run.iterations[static_cast<std::size_t>(k)].loss - optimum;
    CHECK(gap <= std::pow(rate, k) * start * (1.0 + 1e-9) + 1e-15);
  }
}

TEST_CASE("more workers than training examples, or a missing dataset, are input errors") {
  const TrainTest data = small_problem();
  EngineConfig config;
  config.workers = 201;
  CHECK(test::input_error_of([&] { train(*softmax_regression(5, 2), data, config); }) ==
        "201 workers for 200 training examples: each worker needs at least one example");
  CHECK(test::input_error_of([] {
          load_fashion_mnist("/nonexistent");
        }).find("apt-get install dataset-fashion-mnist") != std::string::npos);
}

TEST_CASE("Fashion-MNIST from Debian's package: 60,000 + 10,000 images, 6,000 and 1,000 per class" *
          doctest::skip(!std::filesystem::exists(default_fashion_mnist_folder()))) {
  // Xiao, Rasul & Vollgraf (2017): ten balanced classes, 28 x 28 grey levels.
  const TrainTest data = load_fashion_mnist();
  CHECK(data.train.examples() == 60000);
  CHECK(data.test.examples() == 10000);
  CHECK(data.train.features.cols() == 784);
  std::vector<int> counts(10, 0);
  for (const int label : data.train.labels) ++counts[static_cast<std::size_t>(label)];
  for (const int count : counts) CHECK(count == 6000);
  CHECK(data.train.features.maxCoeff() <= 1.0);
  CHECK(data.train.features.minCoeff() >= 0.0);
}

TEST_CASE("top-k with error feedback converges linearly on full gradients, slower as delta grows") {
  // Beznosikov, Horvath, Richtarik & Safaryan (2020); Stich & Karimireddy (2019): on an L-smooth,
  // mu-strongly convex f, gradient descent with a delta-contractive compressor and error
  // feedback converges linearly for steps of order 1/(delta L), so the iterations grow with
  // delta. 20 dimensions, one worker with the whole training set (full gradients), step
  // 1/(4 delta L); top-k at k = 20, 5, 2 (delta = d/k = 1, 4, 10): each must bring f - f* below
  // 1e-6 of where it started within 2 ln(1e6) / (mu step) iterations (twice gradient descent's
  // worst-case count at that step) and take more iterations than the one before.
  const TrainTest data = synthetic_logistic(1000, 20, 2.0, 9);
  const double lambda = 0.05;
  const auto model = logistic_regression(20, lambda);
  const double smooth = logistic_smoothness(data.train.features, lambda);
  EngineConfig config = full_batch(data, 0.5 / smooth, 3000);
  const double optimum =
      model->loss(train(*model, data, config).model, data.train.features, data.train.labels);
  config.error_feedback = true;
  config.iterations = 1500;
  int previous = 0;
  for (const double density : {1.0, 0.25, 0.1}) {
    Settings settings;
    settings.set("density", density);
    config.compressor = make_compressor("topk", settings).compressor;
    config.learning_rate = density / (4.0 * smooth);
    const EngineRun run = train(*model, data, config);
    const double start = run.iterations.front().loss - optimum;
    int reached = 0;
    while (reached < config.iterations &&
           run.iterations[static_cast<std::size_t>(reached)].loss - optimum > 1e-6 * start) {
      ++reached;
    }
    INFO("density " << density << ": " << reached << " iterations, empirical delta "
                    << *run.empirical_delta);
    CHECK(reached < config.iterations);
    CHECK(reached <= 2.0 * std::log(1e6) / (lambda * config.learning_rate));
    CHECK(reached > previous);
    // The contraction it achieved never exceeds the bound d/k.
    CHECK(*run.empirical_delta <= 1.0 / density + 1e-9);
    previous = reached;
  }
}

TEST_CASE("the engine reports a compressor's empirical omega next to its theoretical bound") {
  // Natural compression: omega = 1/8 at most (Horvath et al. 2019); on real gradients the
  // measured value is positive and below it.
  const TrainTest data = three_classes();
  const auto model = softmax_regression(5, 3);
  EngineConfig config = local_sgd(1);
  config.full_communication = true;
  config.compressor = make_compressor("natural", Settings{}).compressor;
  const EngineRun run = train(*model, data, config);
  CHECK(*run.empirical_omega > 0.0);
  CHECK(*run.empirical_omega <= 1.0 / 8.0);
}

// The coupling (scenario/convergence_run.hpp), on the synthetic task: the four-layer trace's
// iterations (scenario_reader_test's minimal scenario) time what the engine counts.
TEST_CASE("time to target: iterations from the engine, times from the simulation") {
  const ScenarioConfig config = read_scenario(jsonio::parse_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 1},
    "communication": {"merge": {"policy": "all"},
      "averaging": {"run_iterations": 400, "schedules": [{"schedule": "every_iteration"},
                                                        {"schedule": "constant", "period": 8}]}},
    "convergence": {"task": "synthetic_logistic", "target": {"accuracy": 0.7}, "workers": 4,
                    "batch": 16, "learning_rate": 0.5, "evaluate_every": 10,
                    "variance_budget": 20}})",
                                                                 "c.json"),
                                              SGDSIM_TEST_DATA);
  const ScenarioResult result = run_scenario(config);
  REQUIRE(result.convergence.size() == 4);  // SGD, every_iteration, constant, variance rule
  const ConvergenceOutcome& sgd = result.convergence[0];
  REQUIRE(sgd.iterations_to_target);
  // SGD: the iterations the engine needed, each at the simulated iteration time.
  CHECK(*sgd.time_to_target == result.outcomes[0].breakdown.iteration * *sgd.iterations_to_target);
  CHECK(result.convergence[1].iterations_to_target == sgd.iterations_to_target);
  // CPSGD(8): local iterations at compute time, every 8th followed by a model allreduce.
  const ConvergenceOutcome& cpsgd = result.convergence[2];
  REQUIRE(cpsgd.iterations_to_target);
  CHECK(*cpsgd.time_to_target == time_of_prefix(result.schedules[1], *cpsgd.iterations_to_target));
  CHECK(cpsgd.averaging_rounds == *cpsgd.iterations_to_target / 8);
  // The variance rule's first round comes after one fair period, 400 / 20 = 20 iterations; it
  // never takes more rounds than one per iteration past that.
  const ConvergenceOutcome& rule = result.convergence[3];
  REQUIRE(rule.iterations_to_target);
  CHECK(rule.averaging_rounds <= std::max(0, *rule.iterations_to_target - 19));
}

TEST_CASE("error feedback both ways, full curves to the last iteration, bits sent per worker") {
  const ScenarioConfig config = read_scenario(jsonio::parse_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 1},
    "communication": {"merge": {"policy": "all"},
      "compression": [{"name": "none"}, {"name": "topk", "density": 0.1}],
      "averaging": {"run_iterations": 60, "schedules": [{"schedule": "constant", "period": 6}]}},
    "convergence": {"task": "synthetic_logistic", "target": {"accuracy": 0.5}, "workers": 4,
                    "batch": 16, "learning_rate": 0.5, "evaluate_every": 10,
                    "error_feedback": "both", "stop": "max_iterations"}})",
                                                                 "c.json"),
                                              SGDSIM_TEST_DATA);
  const ScenarioResult result = run_scenario(config);
  // SGD once, top-k with and without error feedback, CPSGD(6).
  REQUIRE(result.convergence.size() == 4);
  CHECK(result.convergence[1].label == "SGD + topk(density=0.1) (EF)");
  CHECK(result.convergence[2].label == "SGD + topk(density=0.1)");
  CHECK(result.convergence[1].final_loss != result.convergence[2].final_loss);
  for (const ConvergenceOutcome& outcome : result.convergence) {
    // Every iteration was trained although the target (50%) is met at the first evaluation.
    CHECK(outcome.curve.size() == 60);
    CHECK(outcome.iterations_to_target == 10);
  }
  // Bits are the timed model's, never the proxy's (d = 50 here): four_layers.json has d = 375 +
  // 125 + 400 + 100 + 250 = 1,250 fp32 gradient elements, 5,000 bytes. A ring allreduce on 4 GPUs
  // sends 2 (N - 1) / N of them per GPU: 7,500 bytes = 60,000 bits per SGD iteration, and the
  // same at each of CPSGD(6)'s 10 rounds. Top-k keeps 0.1 x 1,250 = 125 values of 32 bits with
  // 11-bit indices (ceil(log2 1,250)): 5,375 bits, 672 whole bytes on the wire, gathered: each
  // GPU sends them to the N - 1 = 3 others, 2,016 bytes = 16,128 bits per iteration.
  CHECK(*result.convergence[0].curve.back().bits_sent == 60 * 60000.0);
  CHECK(result.convergence[0].bits_per_iteration == 60000.0);
  CHECK(*result.convergence[1].curve.back().bits_sent == 60 * 16128.0);
  CHECK(*result.convergence[3].curve[4].bits_sent == 0.0);
  CHECK(*result.convergence[3].curve[5].bits_sent == 60000.0);
  CHECK(*result.convergence[3].curve.back().bits_sent == 10 * 60000.0);
  CHECK(result.convergence[3].bits_per_iteration == 10 * 60000.0 / 60);
  // The messages themselves, as a worker would send them to a parameter server: the 5,000-byte
  // gradient (40,000 bits), top-k's 5,375 bits, and CPSGD's 40,000-bit model at 10 rounds in 60.
  CHECK(result.convergence[0].message_bits_per_iteration == 40000.0);
  CHECK(result.convergence[1].message_bits_per_iteration == 5375.0);
  CHECK(result.convergence[3].message_bits_per_iteration == doctest::Approx(40000.0 / 6));
  // The first seed met the target at iteration 10: SGD had sent 10 x 60,000 bits, CPSGD(6) one
  // round (after iteration 6), 60,000 bits. Every seed alike: SGD 60,000 bits per iteration to
  // its target, CPSGD 60,000 per round, a round after every 6th iteration.
  CHECK(*result.convergence[0].seeds[0].bits_to_target == 10 * 60000.0);
  CHECK(*result.convergence[3].seeds[0].bits_to_target == 60000.0);
  CHECK(*result.convergence[3].seeds[0].rounds_to_target == 1);
  REQUIRE(result.convergence[0].seeds.size() == 5);  // the default seeds
  for (const SeedRun& seed : result.convergence[0].seeds) {
    REQUIRE(seed.iterations_to_target);
    CHECK(*seed.bits_to_target == *seed.iterations_to_target * 60000.0);
    CHECK(!seed.rounds_to_target);
  }
  for (const SeedRun& seed : result.convergence[3].seeds) {
    REQUIRE(seed.iterations_to_target);
    CHECK(*seed.rounds_to_target == *seed.iterations_to_target / 6);
    CHECK(*seed.bits_to_target == *seed.rounds_to_target * 60000.0);
  }
  // The theoretical factors at both scales: top-k's delta is d / k, 50 / 5 = 10 for the proxy
  // and 1,250 / 125 = 10 for the timed model (the same fraction).
  CHECK(*result.convergence[1].bound_delta == doctest::Approx(10.0));
  CHECK(*result.convergence[1].timed_delta == doctest::Approx(10.0));
}

TEST_CASE("the variance rule follows the variance and keeps to its budget") {
  // A run of 100 iterations, 10 rounds: the fair period is 10. With a variance that grows by 1
  // per iteration since the last round, the first round comes at 10 and sets the threshold to
  // 10; the variance reaches it every 10 iterations, the threshold stays (fair / actual = 1):
  // rounds at 10, 20, ..., 100.
  VarianceRule steady(100, 10);
  int last = 0;
  std::vector<int> rounds;
  for (int t = 1; t <= 100; ++t) {
    if (steady(t, t - last)) {
      rounds.push_back(t);
      last = t;
    }
  }
  CHECK(rounds == std::vector<int>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
  // A variance that is always the same huge value: the first round (at 10) sets the threshold
  // to it, the next iteration reaches it again and the round raises the threshold tenfold
  // (fair 10 / actual 1), so later rounds come only at twice the fair period or when the
  // threshold has come back down; whatever the variance does, never more than the budget.
  VarianceRule eager(100, 10);
  int taken = 0;
  for (int t = 1; t <= 100; ++t) taken += eager(t, 1e300) ? 1 : 0;
  CHECK(taken <= 10);
  CHECK(taken >= 2);
}

TEST_CASE("measured curves: iterations from the user's runs, times from the simulation") {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "sgdsim_measured_curves_test";
  std::filesystem::create_directories(folder);
  {
    // The SGD curve starts with the evaluation before training, at iteration 0.
    std::ofstream(folder / "sgd.csv") << "iteration,accuracy,train_loss\n0,0.10,2.3\n"
                                         "100,0.70,0.9\n200,0.78,0.7\n300,0.81,0.6\n";
    std::ofstream(folder / "cpsgd.csv") << "iteration,accuracy\n100,0.72\n200,0.80\n400,0.83\n";
  }
  nlohmann::json scenario = nlohmann::json::parse(R"json({"trace": "four_layers.json",
    "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 1},
    "communication": {"merge": {"policy": "all"}, "averaging": {"run_iterations": 400,
      "schedules": [{"schedule": "every_iteration"}, {"schedule": "constant", "period": 4}]}},
    "convergence": {"task": "measured", "target": {"accuracy": 0.8}}})json");
  scenario["convergence"]["curves"] = {{"none", (folder / "sgd.csv").string()},
                                       {"constant(period=4)", (folder / "cpsgd.csv").string()}};
  const ScenarioResult result =
      run_scenario(read_scenario(jsonio::parse_text(scenario.dump(), "m.json"), SGDSIM_TEST_DATA));
  std::filesystem::remove_all(folder);
  REQUIRE(result.convergence.size() == 2);
  // Labels in name order: constant(period=4) first. It reached 0.80 at its row 200; SGD at 300.
  const ConvergenceOutcome& cpsgd = result.convergence[0];
  const ConvergenceOutcome& sgd = result.convergence[1];
  CHECK(cpsgd.iterations_to_target == 200);
  CHECK(sgd.iterations_to_target == 300);
  CHECK(*sgd.time_to_target == result.outcomes[0].breakdown.iteration * 300);
  CHECK(*cpsgd.time_to_target == time_of_prefix(result.schedules[1], 200));
  REQUIRE(sgd.curve.size() == 4);
  CHECK(sgd.curve[0].iteration == 0);
  CHECK(sgd.curve[3].loss == 0.6);  // the train_loss column
}

namespace {

// f(w) = |w|^2 / 2 whatever the examples: the gradient is w, so an optimizer's iterates follow
// its recursion exactly.
class Quadratic final : public convergence::Model {
 public:
  std::string name() const override { return "quadratic"; }
  Eigen::Index parameters() const override { return 1; }
  Eigen::VectorXd initial(Rng& /*rng*/) const override { return Eigen::VectorXd::Ones(1); }
  std::unique_ptr<Model> replica() const override { return std::make_unique<Quadratic>(); }
  double loss_gradient(const Eigen::VectorXd& w, const Eigen::MatrixXd& /*x*/,
                       const std::vector<int>& /*y*/, Eigen::VectorXd& gradient) override {
    gradient = w;
    return 0.5 * w.squaredNorm();
  }
  double loss(const Eigen::VectorXd& w, const Eigen::MatrixXd& /*x*/,
              const std::vector<int>& /*y*/) override {
    return 0.5 * w.squaredNorm();
  }
  double accuracy(const Eigen::VectorXd& /*w*/, const Eigen::MatrixXd& /*x*/,
                  const std::vector<int>& /*y*/) override {
    return 0.0;
  }
};

}  // namespace

TEST_CASE("learning-rate schedules: warm-up, step decay and cosine at their defining points") {
  LearningRateSchedule schedule;
  CHECK(schedule.at(0.1, 1, 100) == 0.1);  // constant
  schedule.warmup = 10;                    // eta t / w: 0.01 at t = 1, 0.05 at t = 5
  CHECK(schedule.at(0.1, 1, 100) == doctest::Approx(0.01));
  CHECK(schedule.at(0.1, 5, 100) == doctest::Approx(0.05));
  CHECK(schedule.at(0.1, 10, 100) == doctest::Approx(0.1));
  schedule.decay = LearningRateSchedule::Decay::step;
  schedule.milestones = {50, 75};  // x0.1 from 51, x0.01 from 76
  CHECK(schedule.at(0.1, 50, 100) == doctest::Approx(0.1));
  CHECK(schedule.at(0.1, 51, 100) == doctest::Approx(0.01));
  CHECK(schedule.at(0.1, 76, 100) == doctest::Approx(0.001));
  schedule.decay = LearningRateSchedule::Decay::cosine;
  // eta/2 (1 + cos(pi (t - 11) / 90)): eta at t = 11, eta/2 at t = 56, eta/2 (1 + cos(89 pi / 90))
  // = 3.05e-5 eta at t = 100.
  CHECK(schedule.at(0.1, 11, 100) == doctest::Approx(0.1));
  CHECK(schedule.at(0.1, 56, 100) == doctest::Approx(0.05));
  CHECK(schedule.at(0.1, 100, 100) ==
        doctest::Approx(0.1 * 0.5 * (1.0 + std::cos(std::numbers::pi * 89 / 90))));
  CHECK(learning_rate_decays().size() == 3);
}

TEST_CASE("momentum and weight decay follow torch.optim.SGD's recursion") {
  // Gradient w, w0 = 1, eta = 0.1, mu = 0.9, lambda = 0.01:
  //   b1 = g + lambda w0 = 1.01, w1 = 1 - 0.1 x 1.01 = 0.899;
  //   b2 = 0.9 x 1.01 + 1.01 x 0.899 = 1.81699, w2 = 0.899 - 0.181699 = 0.717301.
  // Two workers with the same gradient average to it: full communication and local SGD agree.
  const TrainTest data = three_classes();
  Quadratic model;
  EngineConfig config;
  config.workers = 2;
  config.batch = 1;
  config.learning_rate = 0.1;
  config.momentum = 0.9;
  config.weight_decay = 0.01;
  config.iterations = 2;
  CHECK(train(model, data, config).model(0) == doctest::Approx(0.717301).epsilon(1e-12));
  config.full_communication = false;
  config.average = [](int, double) { return false; };
  const EngineRun local = train(model, data, config);
  CHECK(local.model(0) == doctest::Approx(0.717301).epsilon(1e-12));
  CHECK(local.iterations[0].learning_rate == 0.1);
  // The rate each iteration took is recorded: a warm-up of 2 over 3 iterations takes eta/2, eta.
  config.iterations = 3;
  config.schedule.warmup = 2;
  const EngineRun warm = train(model, data, config);
  CHECK(warm.iterations[0].learning_rate == doctest::Approx(0.05));
  CHECK(warm.iterations[1].learning_rate == doctest::Approx(0.1));
}

TEST_CASE("intervals over seeds: Student's t, and ranks only where they separate") {
  // {1, 2, 3}: mean 2, s = 1, t(0.975, 2) = 4.302653: half-width 4.302653 / sqrt(3) = 2.484138.
  const std::vector<double> values{1.0, 2.0, 3.0};
  const Interval i = mean_interval(values);
  CHECK(i.samples == 3);
  CHECK(i.mean == doctest::Approx(2.0));
  CHECK(i.high - i.mean == doctest::Approx(2.484138).epsilon(1e-6));
  CHECK(i.low == doctest::Approx(2.0 - 2.484138).epsilon(1e-6));
  const std::vector<double> one{4.0};
  CHECK(mean_interval(one).low == 4.0);
  CHECK(mean_interval(one).high == 4.0);
  const std::vector<double> later{10.0, 11.0, 12.0};  // [8.52, 13.48]: above [-0.48, 4.48]
  CHECK(i.below(mean_interval(later)));
  const std::vector<double> close{3.0, 4.0, 5.0};  // [1.52, 6.48] overlaps
  CHECK_FALSE(i.below(mean_interval(close)));
  CHECK_FALSE(mean_interval(one).below(mean_interval(later)));  // one seed: no interval

  const auto outcome = [](const char* label, const std::vector<double>& seconds) {
    ConvergenceOutcome c;
    c.label = label;
    c.seconds_to_target = mean_interval(seconds);
    return c;
  };
  std::vector<ConvergenceOutcome> outcomes{outcome("b", later), outcome("a", values)};
  REQUIRE(first_to_target(outcomes).size() == 1);
  CHECK(first_to_target(outcomes).front()->label == "a");
  outcomes.push_back(outcome("c", close));
  CHECK(first_to_target(outcomes).size() == 2);  // a and c tie; b is behind both
  outcomes.push_back(ConvergenceOutcome{});      // not reached in every seed: not ranked
  CHECK(first_to_target(outcomes).size() == 2);
  const std::vector<double> quick{0.5};
  const std::vector<ConvergenceOutcome> single{outcome("x", one), outcome("y", quick)};
  REQUIRE(first_to_target(single).size() == 1);  // one seed: the lowest time alone
  CHECK(first_to_target(single).front()->label == "y");
}

TEST_CASE("the test set is evaluated in parts on the threads, with the numbers of one pass") {
  // 2,500 test points: parts of 1,000, 1,000 and 500. The accuracy counts hits, exactly as one
  // pass over the whole set does; the loss is the examples-weighted mean of the parts' means
  // (equal to one pass up to rounding, 1e-12 relative at these sizes).
  const TrainTest data = synthetic_logistic(5000, 5, 2.0, 3);
  const auto model = logistic_regression(5, 0.01);
  EngineConfig config = local_sgd(4);
  config.iterations = 8;
  const EngineRun one = train(*model, data, config);
  config.threads = 2;
  const EngineRun two = train(*model, data, config);
  REQUIRE(data.test.examples() == 2500);
  CHECK(one.iterations.back().test_accuracy == two.iterations.back().test_accuracy);
  CHECK(one.iterations.back().test_loss == two.iterations.back().test_loss);
  const auto whole = model->replica();
  CHECK(*one.iterations.back().test_accuracy ==
        whole->accuracy(one.model, data.test.features, data.test.labels));
  CHECK(
      *one.iterations.back().test_loss ==
      doctest::Approx(whole->loss(one.model, data.test.features, data.test.labels)).epsilon(1e-12));
}
