// Coupling the convergence engine to the simulated iteration times.
#include "sgdsim/scenario/convergence_run.hpp"
#include "sgdsim/scenario/measured_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "sgdsim/convergence/engine.hpp"
#include "sgdsim/convergence/networks.hpp"
#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

using convergence::EngineConfig;
using convergence::EngineRun;
using convergence::TrainTest;

std::unique_ptr<convergence::Model> model_for(const ConvergenceSpec& spec, const TrainTest& data) {
  const Eigen::Index dimensions = data.train.features.cols();
  if (const std::optional<std::string> name = convergence::task_network(spec.task)) {
    const auto side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(dimensions))));
    try {
      return convergence::network(*name, side, data.train.classes);
    } catch (const InputError& error) {
      throw InputError(fmt::format("{}.task: {}", spec.path, error.what()));
    }
  }
  if (spec.task == "fashion_mnist_softmax") {
    return convergence::softmax_regression(dimensions, data.train.classes);
  }
  if (spec.task == "fashion_mnist_mlp") {
    return convergence::mlp(dimensions, spec.hidden, data.train.classes);
  }
  return convergence::logistic_regression(dimensions, 0.01);
}

// The first `count` examples of a data set.
void keep_first(convergence::Dataset& set, int count) {
  set.features.conservativeResize(count, Eigen::NoChange);
  set.labels.resize(static_cast<std::size_t>(count));
}

TrainTest data_for(const ConvergenceSpec& spec) {
  TrainTest data;
  if (spec.task == "synthetic_logistic") {
    data = convergence::synthetic_logistic(2000, 50, 2.0, 1);
  } else {
    try {
      data = convergence::load_fashion_mnist();
    } catch (const InputError& error) {
      throw InputError(fmt::format("{}.task: {}", spec.path, error.what()));
    }
  }
  if (spec.test_examples) keep_first(data.test, *spec.test_examples);
  return data;
}

// The intervals of an outcome from its seeds' runs.
void summarise_seeds(ConvergenceOutcome& outcome) {
  std::vector<double> seconds;
  std::vector<double> iterations;
  std::vector<double> accuracies;
  std::vector<double> bits;
  for (const SeedRun& run : outcome.seeds) {
    if (run.time_to_target) seconds.push_back(run.time_to_target->seconds());
    if (run.iterations_to_target) iterations.push_back(*run.iterations_to_target);
    if (run.final_accuracy) accuracies.push_back(*run.final_accuracy);
    if (run.bits_to_target) bits.push_back(*run.bits_to_target);
  }
  const std::size_t n = outcome.seeds.size();
  const auto over = [n](const std::vector<double>& values) {
    return n > 0 && values.size() == n ? std::optional(convergence::mean_interval(values))
                                       : std::nullopt;
  };
  outcome.seconds_to_target = over(seconds);
  outcome.iterations_interval = over(iterations);
  outcome.accuracy_interval = over(accuracies);
  outcome.bits_interval = over(bits);
}

// The bits one GPU of the timed model had sent when a run's curve met the target.
std::optional<double> bits_to_target(const ConvergenceOutcome& outcome) {
  if (!outcome.iterations_to_target) return std::nullopt;
  for (const ConvergencePoint& point : outcome.curve) {
    if (point.iteration == *outcome.iterations_to_target) return point.bits_sent;
  }
  return std::nullopt;
}

// A seed's run as the outcome of its training.
SeedRun seed_run(std::uint64_t seed, const ConvergenceOutcome& outcome) {
  return {seed,
          outcome.iterations_to_target,
          outcome.time_to_target,
          outcome.final_accuracy,
          bits_to_target(outcome),
          outcome.rounds_to_target};
}

// A configuration trained once per seed (seed, seed + 1, ...): the first seed's outcome, with
// every seed's run and the intervals over them.
ConvergenceOutcome over_seeds(const ConvergenceSpec& spec, std::uint64_t seed,
                              const std::function<ConvergenceOutcome(std::uint64_t)>& train_one) {
  ConvergenceOutcome first;
  std::vector<SeedRun> runs;
  for (int r = 0; r < spec.seeds; ++r) {
    ConvergenceOutcome outcome = train_one(seed + static_cast<std::uint64_t>(r));
    runs.push_back(seed_run(seed + static_cast<std::uint64_t>(r), outcome));
    if (r == 0) first = std::move(outcome);
  }
  first.seeds = std::move(runs);
  summarise_seeds(first);
  return first;
}

ConvergenceOutcome outcome_of(std::string label, const EngineRun& run,
                              const ConvergenceSpec& spec) {
  ConvergenceOutcome outcome;
  outcome.label = std::move(label);
  outcome.averaging_rounds = run.averaging_rounds;
  outcome.measured_delta = run.empirical_delta;
  outcome.measured_omega = run.empirical_omega;
  for (std::size_t i = 0; i < run.iterations.size(); ++i) {
    const convergence::IterationRecord& record = run.iterations[i];
    const int iteration = static_cast<int>(i) + 1;
    outcome.curve.push_back({iteration,
                             {},
                             record.loss,
                             record.variance,
                             record.test_accuracy,
                             record.test_loss,
                             std::nullopt});
    if (!outcome.iterations_to_target && record.test_accuracy) {
      const bool reached = spec.target_accuracy ? *record.test_accuracy >= *spec.target_accuracy
                                                : *record.test_loss <= *spec.target_loss;
      if (reached) outcome.iterations_to_target = iteration;
    }
  }
  outcome.final_accuracy = *run.iterations.back().test_accuracy;
  outcome.final_loss = *run.iterations.back().test_loss;
  return outcome;
}

// The error-feedback settings a compressor trains with (uncompressed SGD: once, without).
std::vector<bool> error_feedback_runs(const ConvergenceSpec& spec, const CompressorSpec& spec_of) {
  if (spec_of.is_none() || spec.error_feedback == "never") return {false};
  if (spec.error_feedback == "always") return {true};
  if (spec.error_feedback == "both") return {true, false};
  return {spec_of.compressor->biased()};
}

// The bits one GPU of the timed model has sent after the first `iterations` of a schedule: a
// round's at each averaging round and nothing else.
double bits_of_prefix(const ScheduleOutcome& schedule, std::int64_t iterations) {
  return 8.0 * schedule.round_bytes_per_gpu *
         static_cast<double>(rounds_in_prefix(schedule, iterations));
}

// A curve timed by a schedule: each point at the time and bits of its prefix; its target too,
// and its mean iteration over `iterations`.
void time_by_schedule(ConvergenceOutcome& outcome, const ScheduleOutcome& schedule,
                      std::int64_t iterations, Bytes model_bytes) {
  for (ConvergencePoint& point : outcome.curve) {
    point.time = time_of_prefix(schedule, point.iteration);
    point.bits_sent = bits_of_prefix(schedule, point.iteration);
  }
  if (outcome.iterations_to_target) {
    outcome.time_to_target = time_of_prefix(schedule, *outcome.iterations_to_target);
    if (!schedule.spec.every_iteration()) {
      outcome.rounds_to_target =
          static_cast<int>(rounds_in_prefix(schedule, *outcome.iterations_to_target));
    }
  }
  outcome.iteration = Time::from_ps(time_of_prefix(schedule, iterations).ps() / iterations);
  const double share =
      static_cast<double>(rounds_in_prefix(schedule, iterations)) / static_cast<double>(iterations);
  outcome.bits_per_iteration = 8.0 * schedule.round_bytes_per_gpu * share;
  outcome.message_bits_per_iteration = 8.0 * static_cast<double>(model_bytes.count()) * share;
}

// A curve timed by a compressor's fastest policy: every iteration alike.
void time_by_policy(ConvergenceOutcome& outcome, const PolicyOutcome& policy,
                    const Workload& workload) {
  outcome.iteration = policy.breakdown.iteration;
  outcome.bits_per_iteration = 8.0 * policy.bytes_sent_per_gpu;
  outcome.message_bits_per_iteration =
      policy.compression.is_none()
          ? 8.0 * static_cast<double>(total_gradient_bytes(workload).count())
          : static_cast<double>(
                policy.compression.compressor->wire_bits(total_gradient_elements(workload)));
  for (ConvergencePoint& point : outcome.curve) {
    point.time = outcome.iteration * std::int64_t{point.iteration};
    point.bits_sent = outcome.bits_per_iteration * point.iteration;
  }
  if (outcome.iterations_to_target) {
    outcome.time_to_target = outcome.iteration * std::int64_t{*outcome.iterations_to_target};
  }
}

// The compressor's theoretical factors at the timed model's d.
void timed_bounds(ConvergenceOutcome& outcome, const CompressorSpec& spec,
                  const ScenarioResult& result) {
  if (spec.is_none()) return;
  const CompressionQuality quality =
      spec.compressor->quality(total_gradient_elements(result.workload));
  outcome.timed_delta = quality.delta;
  outcome.timed_omega = quality.omega;
}

}  // namespace

std::vector<const ConvergenceOutcome*> first_to_target(
    const std::vector<ConvergenceOutcome>& outcomes) {
  const ConvergenceOutcome* leader = nullptr;
  for (const ConvergenceOutcome& c : outcomes) {
    if (c.seconds_to_target &&
        (leader == nullptr || c.seconds_to_target->mean < leader->seconds_to_target->mean)) {
      leader = &c;
    }
  }
  if (leader == nullptr) return {};
  std::vector<const ConvergenceOutcome*> leaders{leader};
  if (leader->seconds_to_target->samples < 2) return leaders;
  for (const ConvergenceOutcome& c : outcomes) {
    if (&c != leader && c.seconds_to_target &&
        !leader->seconds_to_target->below(*c.seconds_to_target)) {
      leaders.push_back(&c);
    }
  }
  return leaders;
}

bool VarianceRule::operator()(int t, double variance) {
  if (left_ == 0) return false;
  const double fair = static_cast<double>(run_ - last_) / left_;
  const double since = t - last_;
  const bool average =
      threshold_ < 0.0 ? since >= fair : variance >= threshold_ || since >= 2.0 * fair;
  if (!average) return false;
  threshold_ = threshold_ < 0.0 ? variance : threshold_ * fair / since;
  --left_;
  last_ = t;
  return true;
}

// Measured curves: each timed like the configuration it names.
void run_measured(ScenarioResult& result, const ConvergenceSpec& spec) {
  result.convergence_source = "measured curves";
  for (const auto& curve : spec.curves) {
    const std::string& label = curve.first;
    const bool of_schedule = std::any_of(
        result.schedules.begin(), result.schedules.end(),
        [&label](const ScheduleOutcome& s) { return averaging_label(s.spec) == label; });
    const bool of_compressor =
        std::any_of(result.outcomes.begin(), result.outcomes.end(),
                    [&label](const auto& o) { return compressor_label(o.compression) == label; });
    ConvergenceOutcome outcome = read_measured_curve(
        label, curve.second, spec,
        of_schedule && !of_compressor ? std::optional<int>(result.config.run_iterations)
                                      : std::nullopt);
    const PolicyOutcome* fastest = nullptr;
    for (const PolicyOutcome& candidate : result.outcomes) {
      if (compressor_label(candidate.compression) == label &&
          (fastest == nullptr || candidate.breakdown.iteration < fastest->breakdown.iteration)) {
        fastest = &candidate;
      }
    }
    if (fastest != nullptr) {
      time_by_policy(outcome, *fastest, result.workload);
      timed_bounds(outcome, fastest->compression, result);
    } else {
      const auto schedule = std::find_if(
          result.schedules.begin(), result.schedules.end(),
          [&label](const ScheduleOutcome& s) { return averaging_label(s.spec) == label; });
      time_by_schedule(outcome, *schedule, result.config.run_iterations,
                       total_gradient_bytes(result.workload));
    }
    outcome.seeds = {seed_run(0, outcome)};
    summarise_seeds(outcome);
    result.convergence.push_back(std::move(outcome));
  }
}

void run_convergence(ScenarioResult& result, const ConvergenceSpec& spec) {
  if (spec.task == "measured") {
    run_measured(result, spec);
    return;
  }
  const TrainTest data = data_for(spec);
  result.convergence_source = data.source;
  const auto model = model_for(spec, data);
  EngineConfig base;
  base.workers = spec.workers;
  base.batch = spec.batch;
  base.learning_rate = spec.learning_rate;
  base.schedule = spec.schedule;
  base.momentum = spec.momentum;
  base.weight_decay = spec.weight_decay;
  base.iterations = spec.max_iterations;
  base.evaluate_every = spec.evaluate_every;
  base.seed = result.config.seed;
  base.threads = spec.threads;
  // Training stops at the target unless asked for full curves: the time to reach it is what
  // is compared.
  if (spec.stop_at_target) {
    base.stop = [&spec](const convergence::IterationRecord& record) {
      return spec.target_accuracy ? *record.test_accuracy >= *spec.target_accuracy
                                  : *record.test_loss <= *spec.target_loss;
    };
  }
  const auto parameters = static_cast<std::int64_t>(model->parameters());
  result.convergence_parameters = parameters;
  // The fastest policy per compressor, in scenario order.
  std::vector<const PolicyOutcome*> fastest;
  for (const PolicyOutcome& outcome : result.outcomes) {
    const auto same = std::find_if(fastest.begin(), fastest.end(), [&](const PolicyOutcome* seen) {
      return seen->compression.compressor == outcome.compression.compressor;
    });
    if (same == fastest.end()) {
      fastest.push_back(&outcome);
    } else if (outcome.breakdown.iteration < (*same)->breakdown.iteration) {
      *same = &outcome;
    }
  }
  std::optional<ConvergenceOutcome> sgd;  // trained once, shared with every_iteration
  for (const PolicyOutcome* best : fastest) {
    const Compressor& compressor = *best->compression.compressor;
    if (!best->compression.is_none()) {
      Rng unused(0);
      std::vector<double> probe{1.0};
      if (!compressor.apply(probe, unused)) {
        throw InputError(fmt::format(
            "{}: compressor {} is a cost model only (a bare ratio); the engine cannot train with "
            "it",
            spec.path, compressor.label()));
      }
    }
    const CompressionQuality quality = compressor.quality(parameters);
    for (const bool error_feedback : error_feedback_runs(spec, best->compression)) {
      EngineConfig config = base;
      config.compressor = best->compression.compressor;
      config.error_feedback = error_feedback;
      const std::string label =
          best->compression.is_none()
              ? std::string("SGD")
              : fmt::format("SGD + {}{}", compressor.label(), error_feedback ? " (EF)" : "");
      ConvergenceOutcome outcome = over_seeds(spec, base.seed, [&](std::uint64_t seed) {
        config.seed = seed;
        ConvergenceOutcome one = outcome_of(label, train(*model, data, config), spec);
        time_by_policy(one, *best, result.workload);
        return one;
      });
      if (!best->compression.is_none()) {
        outcome.bound_delta = quality.delta;
        outcome.bound_omega = quality.omega;
        timed_bounds(outcome, best->compression, result);
      }
      if (best->compression.is_none()) sgd = outcome;
      result.convergence.push_back(std::move(outcome));
    }
  }
  const std::int64_t run = result.config.run_iterations;
  const Bytes model_bytes = total_gradient_bytes(result.workload);
  for (const ScheduleOutcome& schedule : result.schedules) {
    ConvergenceOutcome outcome;
    if (schedule.spec.every_iteration()) {
      if (!sgd) continue;  // no uncompressed run to time it with
      outcome = *sgd;
      outcome.label = averaging_label(schedule.spec);
      time_by_schedule(outcome, schedule, run, model_bytes);
      for (SeedRun& seed : outcome.seeds) {  // SGD's seeds timed at this schedule's iterations
        if (!seed.iterations_to_target) continue;
        seed.time_to_target = time_of_prefix(schedule, *seed.iterations_to_target);
        seed.bits_to_target = bits_of_prefix(schedule, *seed.iterations_to_target);
      }
      summarise_seeds(outcome);
    } else {
      EngineConfig config = base;
      config.full_communication = false;
      const std::vector<int>& rounds = schedule.rounds;
      config.average = [&rounds](int t, double) {
        return std::binary_search(rounds.begin(), rounds.end(), t);
      };
      outcome = over_seeds(spec, base.seed, [&](std::uint64_t seed) {
        config.seed = seed;
        ConvergenceOutcome one =
            outcome_of(averaging_label(schedule.spec), train(*model, data, config), spec);
        time_by_schedule(one, schedule, run, model_bytes);
        return one;
      });
    }
    result.convergence.push_back(std::move(outcome));
  }
  if (spec.variance_budget) {
    // Timed like the scenario's first local schedule: local iterations and averaging ones.
    const auto local =
        std::find_if(result.schedules.begin(), result.schedules.end(),
                     [](const ScheduleOutcome& s) { return !s.spec.every_iteration(); });
    SGDSIM_ASSERT(local != result.schedules.end(), "the reader asks for a local schedule");
    ConvergenceOutcome outcome = over_seeds(spec, base.seed, [&](std::uint64_t seed) {
      EngineConfig config = base;
      config.seed = seed;
      config.full_communication = false;
      config.average = VarianceRule(spec.max_iterations, *spec.variance_budget);
      const EngineRun trained = train(*model, data, config);
      ConvergenceOutcome one = outcome_of(
          fmt::format("variance rule (budget={})", *spec.variance_budget), trained, spec);
      ScheduleOutcome timing = *local;  // the rounds this seed's rule took
      timing.rounds.clear();
      for (std::size_t i = 0; i < trained.iterations.size(); ++i) {
        if (trained.iterations[i].averaged) timing.rounds.push_back(static_cast<int>(i) + 1);
      }
      time_by_schedule(one, timing, static_cast<std::int64_t>(trained.iterations.size()),
                       model_bytes);
      return one;
    });
    result.convergence.push_back(std::move(outcome));
  }
}

}  // namespace sgdsim
