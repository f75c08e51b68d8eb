// Scenario -> topology -> collective -> one simulation per merge policy.
#include "sgdsim/scenario/scenario_run.hpp"

#include "sgdsim/collectives/parameter_server.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"

namespace sgdsim {

namespace {

ClusterShape cluster_shape(const ScenarioConfig& config) {
  ClusterShape shape;
  shape.gpus = config.gpus;
  shape.gpus_per_node = config.gpus_per_node;
  shape.intra_node = config.intra_node;
  shape.network = config.network.link;
  if (config.collective == CollectiveAlgorithm::parameter_server) {
    shape.servers = config.servers;
    shape.server_placement = config.server_placement;
    shape.server_link = LinkSpec{config.server_bandwidth, config.network.link.latency};
  }
  return shape;
}

PolicyOutcome run_policy(MergePolicy policy, const ScenarioConfig& config,
                         const BackwardProfile& profile, const Collective& collective,
                         int batch_size) {
  PolicyOutcome outcome{
      policy, plan_messages(policy, profile, collective, config.merge), {}, {}, {}, 0.0};
  outcome.simulation = simulate_iterations(profile, outcome.plan, collective, config.iterations);
  std::vector<MessageSpan> spans;
  for (const ScheduledMessage& message : outcome.simulation.iterations.back().messages) {
    spans.push_back({message.bytes, message.ready, message.start, message.end});
    outcome.bytes_sent_per_gpu += collective.bytes_sent_per_rank(message.bytes);
  }
  const Time iteration = outcome.simulation.mean_iteration();
  outcome.breakdown = breakdown(iteration, profile.compute(), spans);
  outcome.scaling = scaling(iteration, profile.compute(), config.gpus, batch_size);
  return outcome;
}

}  // namespace

CollectivePtr make_collective(const ScenarioConfig& config) {
  const Topology topology = Topology::build(cluster_shape(config));
  switch (config.collective) {
    case CollectiveAlgorithm::ring_allreduce:
      return std::make_unique<RingAllreduce>(RingAllreduce::on(topology));
    case CollectiveAlgorithm::parameter_server: return std::make_unique<ParameterServer>(topology);
  }
  return nullptr;
}

ScenarioResult run_scenario(const ScenarioConfig& config) {
  return run_scenario(config, read_trace(config.trace_path));
}

ScenarioResult run_scenario(const ScenarioConfig& config, Workload workload) {
  ScenarioResult result{config, std::move(workload), {}, {}, {}, {}};
  result.profile = backward_profile(result.workload);
  const CollectivePtr collective = make_collective(config);
  result.collective_name = collective->name();
  result.collective_cost = collective->linear_cost();
  for (MergePolicy policy : config.policies) {
    result.outcomes.push_back(
        run_policy(policy, config, result.profile, *collective, result.workload.batch_size));
  }
  return result;
}

}  // namespace sgdsim
