// Assembling a simulation from a validated scenario and running it once per merge policy.
#pragma once

#include <string>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/metrics/iteration_metrics.hpp"
#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct PolicyOutcome {
  MergePolicy policy;
  MergePlan plan;
  SimulationResult simulation;
  IterationBreakdown breakdown;  // of the mean iteration
  ScalingFigures scaling;
  double bytes_sent_per_gpu = 0.0;  // per iteration
};

struct ScenarioResult {
  ScenarioConfig config;
  Workload workload;
  BackwardProfile profile;
  std::string collective_name;
  LinearCost collective_cost;
  std::vector<PolicyOutcome> outcomes;  // in the scenario's policy order
};

CollectivePtr make_collective(const ScenarioConfig& config);
ScenarioResult run_scenario(const ScenarioConfig& config);
ScenarioResult run_scenario(const ScenarioConfig& config, Workload workload);

}  // namespace sgdsim
