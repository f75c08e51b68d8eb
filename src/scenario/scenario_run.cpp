// Scenario -> topology -> collective (optionally compressed) -> one simulation per merge policy,
// then the averaging schedules over the run.
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/jobs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "sgdsim/collectives/call_overhead.hpp"
#include "sgdsim/collectives/chunked_collective.hpp"
#include "sgdsim/collectives/compressed_collective.hpp"
#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/protocol_choice.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/communication_reader.hpp"
#include "sgdsim/scenario/convergence_run.hpp"
#include "sgdsim/trace_io/trace_reader.hpp"

namespace sgdsim {

namespace {

// 2^22 partitions per iteration (about 40 bytes each) keep the priority simulation within a
// few hundred MB; ByteScheduler's own default (10^6 elements) gives VGG-16 139 of them.
constexpr std::int64_t max_partitions = std::int64_t{1} << 22;

// Refuses, before they are made, more partitions than max_partitions.
void check_partitions(const BackwardProfile& profile, const PrioritySettings& settings,
                      const ScenarioConfig& config) {
  std::int64_t count = 0;
  for (const GradientLayer& layer : profile.layers) {
    count += (layer.bytes.count() + settings.partition.count() - 1) / settings.partition.count();
    if (count > max_partitions) {
      throw InputError(fmt::format(
          "{}: communication.merge.bytescheduler_partition: expected a partition that splits the "
          "model into at most {} parts per iteration, found {} elements ({} bytes), which makes "
          "more; use a larger partition",
          config.source, max_partitions, config.merge.number("bytescheduler_partition"),
          settings.partition.count()));
    }
  }
}

// Kernels' shares of the stream's time that differ by less than this give slowdowns within
// 0.04% of each other (at 1.40, d(slowdown)/d(share) = 0.4 at most): not worth another run.
constexpr double share_tolerance = 1e-3;

// Whether `policy` merges gradient tensors (communication.merge.granularity, "auto": the
// policy's own units).
bool merges_per_tensor(const ScenarioConfig& config, MergePolicy policy) {
  const std::string& granularity = config.merge.text("granularity");
  return granularity == "tensor" || (granularity == "auto" && policy.entry().per_tensor);
}

PolicyOutcome run_policy(MergePolicy policy, const CompressorSpec& compression,
                         std::optional<std::int64_t> iterations_to_target,
                         const ScenarioConfig& config, const ScenarioResult& result,
                         const Collective& collective) {
  PolicyOutcome outcome;
  outcome.per_tensor = merges_per_tensor(config, policy);
  const BackwardProfile& profile = profile_of(result, outcome);
  outcome.policy = policy;
  outcome.compression = compression;
  std::optional<PrioritySettings> priority;
  if (const auto& settings_of = policy.entry().priority) {
    priority = settings_of(config.merge, result.workload.bytes_per_element);
    check_partitions(profile, *priority, config);
  }
  const auto run_at = [&](double slowdown) {
    outcome.overlap_slowdown = slowdown;
    outcome.plan = plan_messages(policy, profile, collective, config.merge, slowdown);
    if (priority) {
      outcome.simulation =
          simulate_priority(profile, collective, *priority, config.iterations, slowdown);
    } else if (config.fidelity == "per_rank") {
      outcome.simulation =
          simulate_per_rank(profile, outcome.plan, collective, config.gpus, config.compute,
                            config.iterations, config.seed, slowdown);
    } else {
      outcome.simulation =
          simulate_iterations(profile, outcome.plan, collective, config.iterations, slowdown);
    }
  };
  // compute.overlap_slowdown (Lee et al.'s average beside NCCL's kernels unless stated) over the
  // share of the stream's busy time that kernels run. All or none of it (NCCL's collectives,
  // parameter servers) is the collective's alone; in between (BytePS's NCCL stages beside its
  // copies, network and CPU sums) it depends on how the messages queue: a run at the largest
  // message's share alone, then, where the share measured on its last iteration differs, one
  // more at that share (per_rank fidelity too: its ranks queue alike).
  outcome.kernel_share = kernel_share_of(collective, profile);
  run_at(overlap_slowdown_of(config.overlap_slowdown, outcome.kernel_share));
  if (config.overlap_slowdown > 1.0 && outcome.kernel_share > 0.0 && outcome.kernel_share < 1.0) {
    const double measured = kernel_share_of(collective, outcome.simulation.last);
    if (std::abs(measured - outcome.kernel_share) > share_tolerance) {
      outcome.kernel_share = measured;
      run_at(overlap_slowdown_of(config.overlap_slowdown, measured));
    }
  }
  std::vector<MessageSpan> spans;
  for (const ScheduledMessage& message : outcome.simulation.last.messages) {
    spans.push_back({message.bytes, message.ready, message.start, message.end});
    outcome.bytes_sent_per_gpu += collective.bytes_sent_per_rank(message.bytes);
    const Bytes rows = group_gathered(profile, message.group).contribution;
    if (rows.count() > 0) {
      outcome.bytes_sent_per_gpu += collective.gather()->gather_bytes_sent_per_rank(rows);
    }
  }
  const Time iteration = outcome.simulation.mean_iteration();
  outcome.breakdown = breakdown(iteration, profile.compute(), spans);
  outcome.scaling = scaling(iteration, profile.compute(), config.gpus,
                            result.workload.batch_size * config.accumulation_steps);
  if (biased(compression)) outcome.error_feedback = total_gradient_bytes(result.workload);
  if (iterations_to_target) outcome.time_to_target = iteration * *iterations_to_target;
  return outcome;
}

std::size_t fastest_baseline(const std::vector<PolicyOutcome>& outcomes) {
  std::size_t best = outcomes.size();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const bool uncompressed = outcomes[i].compression.is_none();
    const bool best_uncompressed = best < outcomes.size() && outcomes[best].compression.is_none();
    if (best == outcomes.size() || (uncompressed && !best_uncompressed) ||
        (uncompressed == best_uncompressed &&
         outcomes[i].breakdown.iteration < outcomes[best].breakdown.iteration)) {
      best = i;
    }
  }
  return best;
}

ScheduleOutcome run_schedule(const AveragingSpec& spec, const ScenarioConfig& config,
                             const ScenarioResult& result, const Collective& collective) {
  ScheduleOutcome outcome{
      spec, averaging_iterations(spec, config.run_iterations), {}, {}, {}, 0.0, 0.0, {}, {}, {}};
  if (spec.every_iteration()) {
    const PolicyOutcome& sgd = result.outcomes[result.baseline];
    outcome.local_iteration = sgd.breakdown.iteration;  // every iteration communicates
    outcome.averaging_iteration = sgd.breakdown.iteration;
    outcome.round_bytes_per_gpu = sgd.bytes_sent_per_gpu;
  } else {
    // Local SGD: compute alone, then after the update an allreduce of every parameter in one
    // message (nothing left to overlap it with).
    const Bytes model = total_gradient_bytes(result.workload);
    outcome.local_iteration = result.profile.compute();
    outcome.averaging_iteration = result.profile.compute() + collective.time(model);
    outcome.round_bytes_per_gpu = collective.bytes_sent_per_rank(model);
  }
  outcome.total = time_of_prefix(outcome, config.run_iterations);
  if (spec.iterations_to_target) {
    outcome.time_to_target = time_of_prefix(outcome, *spec.iterations_to_target);
    outcome.iterations_to_target = spec.iterations_to_target;
    outcome.target_source = "given";
  }
  return outcome;
}

// communication.allgather_gradients, checked against the trace: the rows backward_profile
// moves from each named tensor's allreduce to the collective's gather.
std::vector<RowGather> gathered_rows(const ScenarioConfig& config, const Workload& workload) {
  std::vector<RowGather> rows;
  for (const GatheredTensor& gathered : config.gathered_tensors) {
    const GradientTensor* tensor = find_gradient(workload, gathered.rows.tensor);
    if (tensor == nullptr) {
      throw InputError(fmt::format("{}: {}.tensor: the trace has no gradient tensor \"{}\"",
                                   config.source, gathered.path, gathered.rows.tensor));
    }
    if (tensor->elements % gathered.rows.row_elements != 0) {
      throw InputError(fmt::format(
          "{}: {}.row_elements: {} does not divide the {} elements of \"{}\"", config.source,
          gathered.path, gathered.rows.row_elements, tensor->elements, gathered.rows.tensor));
    }
    // The gradient sent after k accumulated passes holds the rows that all k batches touched.
    RowGather step_rows = gathered.rows;
    step_rows.rows_per_sample *= config.accumulation_steps;
    rows.push_back(step_rows);
  }
  return rows;
}

}  // namespace

// A collective as the framework calls it: in the scenario's chunks, each call with its overhead.
std::shared_ptr<const Collective> as_called(std::shared_ptr<const Collective> collective,
                                            const ScenarioConfig& config, Time call_overhead) {
  if (config.collective_chunks > 1) {
    collective = std::make_shared<ChunkedCollective>(collective, config.collective_chunks);
  }
  if (call_overhead > Time::zero()) {
    collective = std::make_shared<CallOverhead>(collective, call_overhead);
  }
  return collective;
}

namespace {

// HYBRID_SHARD's two collectives over parts of the cluster. A shard group of G GPUs: inside one
// node when G divides its P GPUs, else G/P whole nodes. The replicas of one shard: N/G GPUs, P/G
// on each node when G < P (their ring crosses each node once), else one per node. The G replica
// allreduces (P when groups span nodes) run at once, so each gets its share of the node's NIC
// unless every GPU has its own.
enum class ShardPart { group, replicas };

std::shared_ptr<const Collective> sub_collective(const ScenarioConfig& config, int group_gpus,
                                                 ShardPart part, Time call_overhead) {
  ScenarioConfig sub = config;
  const int per_node = config.gpus_per_node;
  if (part == ShardPart::group) {
    sub.gpus = group_gpus;
    sub.gpus_per_node = std::min(per_node, group_gpus);
  } else {
    sub.gpus = config.gpus / group_gpus;
    sub.gpus_per_node = group_gpus < per_node ? per_node / group_gpus : 1;
    const double sharing = config.nic_per_gpu ? 1.0 : std::min(per_node, group_gpus);
    sub.network.link.bandwidth =
        Bandwidth::from_bits_per_second(config.network.link.bandwidth.bits_per_second() / sharing);
    sub.network.fabric =
        Bandwidth::from_bits_per_second(config.network.fabric.bits_per_second() / sharing);
  }
  if (config.collective->check) {
    if (const auto problem =
            config.collective->check(config.collective_settings, cluster_shape(sub))) {
      throw InputError(fmt::format(
          "{}: communication.sharding.group_gpus: the {} collective over {} {} needs {}",
          config.source, config.collective->name, sub.gpus,
          part == ShardPart::replicas ? "replicas" : "GPUs of a shard group", problem->expected));
    }
  }
  return as_called(make_collective(sub), config, call_overhead);
}

void run_sharding(ScenarioResult& result, const std::shared_ptr<const Collective>& base) {
  const ScenarioConfig& config = result.config;
  ShardingSpec spec = *config.sharding;
  complete_sharding(spec, result.workload.bytes_per_element);
  spec.settings.passes = config.accumulation_steps;
  result.sharded_model = shard_units(result.workload, spec.units, spec.unit_prefixes,
                                     config.source + ": communication.sharding.units");
  // The framework's per-iteration work, before the first forward as in the replicated profile.
  result.sharded_model.step_overhead = result.iteration_overhead;
  result.sharding_settings = spec.settings;
  result.replicated_memory = replicated_memory(result.sharded_model, spec.settings);
  std::function<void(std::vector<double>&)> draw;
  std::optional<Rng> rng;
  std::vector<double> base_factor;
  double sigma = 0.0;
  if (config.fidelity == "per_rank") {
    base_factor = rank_base_factors(config.compute, config.gpus);
    sigma = jitter_sigma(config.compute.jitter_cv);
    rng.emplace(config.seed);
    draw = [&](std::vector<double>& factor) {
      factor = base_factor;
      for (double& f : factor) f *= jitter_factor(sigma, *rng);
    };
  }
  std::shared_ptr<const Collective> group;
  std::shared_ptr<const Collective> replicas;
  const int g = spec.settings.group_gpus;
  for (ShardingStrategy strategy : spec.strategies) {
    ShardingSettings settings = spec.settings;
    settings.strategy = strategy;
    // Only NCCL's kind shards (the Shards role: ring, halving-doubling, hierarchical), all of
    // whose time kernels run: the slowdown beside kernels as it is.
    settings.overlap_slowdown = config.overlap_slowdown;
    ShardingCollectives collectives{base.get(), nullptr};
    if (strategy == ShardingStrategy::hybrid_shard) {
      if (!group && g < config.gpus) {
        group = sub_collective(config, g, ShardPart::group, result.call_overhead);
      }
      if (!replicas) {
        replicas = sub_collective(config, g, ShardPart::replicas, result.call_overhead);
      }
      collectives = {g < config.gpus ? group.get() : base.get(), replicas.get()};
    }
    if (rng) rng.emplace(config.seed);  // every strategy sees the same draws
    ShardingOutcome outcome;
    outcome.strategy = strategy;
    outcome.group_gpus = shard_group(settings);
    outcome.simulation =
        simulate_sharding(result.sharded_model, settings, collectives, config.iterations, draw);
    outcome.memory = sharding_memory(result.sharded_model, settings);
    outcome.scaling = scaling(outcome.simulation.mean_iteration(), result.profile.compute(),
                              config.gpus, result.workload.batch_size * config.accumulation_steps);
    result.sharding.push_back(std::move(outcome));
  }
}

}  // namespace

std::int64_t rounds_in_prefix(const ScheduleOutcome& outcome, std::int64_t iterations) {
  return std::upper_bound(outcome.rounds.begin(), outcome.rounds.end(), iterations) -
         outcome.rounds.begin();
}

Time time_of_prefix(const ScheduleOutcome& outcome, std::int64_t iterations) {
  const std::int64_t rounds = rounds_in_prefix(outcome, iterations);
  return outcome.local_iteration * (iterations - rounds) + outcome.averaging_iteration * rounds;
}

ClusterShape cluster_shape(const ScenarioConfig& config) {
  ClusterShape shape;
  shape.gpus = config.gpus;
  shape.gpus_per_node = config.gpus_per_node;
  shape.nic_per_gpu = config.nic_per_gpu;
  shape.intra_node = config.intra_node;
  shape.network = config.network.link;
  shape.fabric = config.network.fabric;
  shape.server_default = config.network.server_default;
  shape.leaf_nodes = config.leaf_nodes;
  shape.oversubscription = config.oversubscription;
  if (config.collective->shape) config.collective->shape(config.collective_settings, shape);
  return shape;
}

const BackwardProfile& profile_of(const ScenarioResult& result, const PolicyOutcome& outcome) {
  return outcome.per_tensor ? result.tensor_profile : result.profile;
}

std::string outcome_label(const PolicyOutcome& outcome) {
  if (outcome.compression.is_none()) return std::string(policy_label(outcome.policy));
  return fmt::format("{} + {}", policy_label(outcome.policy),
                     compressor_label(outcome.compression));
}

double kernel_share_of(const Collective& collective, const IterationTimeline& iteration) {
  std::vector<std::pair<Time, Time>> spans;
  Time kernels;
  for (const ScheduledMessage& message : iteration.messages) {
    spans.emplace_back(message.start, message.end);
    kernels += collective.kernel_time(message.bytes);
  }
  std::sort(spans.begin(), spans.end());
  Time busy;
  Time reached;
  bool first = true;
  for (const auto& [start, end] : spans) {
    const Time from = first ? start : std::max(start, reached);
    if (end > from) busy += end - from;
    reached = first ? end : std::max(reached, end);
    first = false;
  }
  if (busy <= Time::zero()) return 1.0;
  return std::min(1.0, kernels.seconds() / busy.seconds());
}

double kernel_share_of(const Collective& collective, const BackwardProfile& profile) {
  const auto largest = std::max_element(
      profile.layers.begin(), profile.layers.end(),
      [](const GradientLayer& a, const GradientLayer& b) { return a.bytes < b.bytes; });
  if (largest == profile.layers.end()) return 0.0;  // nothing sent
  const Time time = collective.time(largest->bytes);
  if (time <= Time::zero()) return 0.0;  // one GPU
  return std::min(1.0, collective.kernel_time(largest->bytes).seconds() / time.seconds());
}

double overlap_slowdown_of(double kernel_slowdown, double share) {
  SGDSIM_ASSERT(kernel_slowdown >= 1.0 && share >= 0.0 && share <= 1.0,
                "a slowdown of at least 1 over a share from 0 to 1");
  return 1.0 / (1.0 - share + share / kernel_slowdown);
}

CollectivePtr make_collective(const ScenarioConfig& config) {
  const bool flow = config.fidelity == "flow";
  const ClusterShape shape = cluster_shape(config);
  // Closed forms read a few representative routes; the flow level needs every GPU.
  const auto topology = std::make_shared<const Topology>(
      flow ? Topology::build(shape) : Topology::build_representative(shape));
  // The node as described: BytePS's groups per PCIe switch take their rings and copies to host
  // memory from it (whatever intra-node link the scenario states for the whole machine).
  const auto node = config.node ? config.node->topology : nullptr;
  const double read_efficiency = config.node ? config.node->read_efficiency : host_read_efficiency;
  const auto make = [&](std::optional<NcclProtocol> protocol) {
    const CollectiveContext context{topology, config.reduction_ps_per_byte, protocol, node,
                                    read_efficiency};
    return config.collective->make(context, config.collective_settings);
  };
  if (config.nccl_protocols.size() > 1) {
    std::vector<std::pair<NcclProtocol, CollectivePtr>> candidates;
    for (NcclProtocol protocol : config.nccl_protocols) {
      candidates.emplace_back(protocol, make(protocol));
    }
    return std::make_unique<ProtocolChoice>(std::move(candidates));
  }
  CollectivePtr closed_form = make(
      config.nccl_protocols.empty() ? std::nullopt : std::optional{config.nccl_protocols.front()});
  if (!flow) return closed_form;
  return std::make_unique<FlowCollective>(std::move(closed_form), topology, config.concurrent_jobs);
}

ScenarioResult run_scenario(const ScenarioConfig& config) {
  return run_scenario(config, read_trace(config.trace_path));
}

namespace {

// Which of a scenario's values make a run longer than Time holds: each value's share of one
// iteration, bounded from below by a closed form (a ring allreduce of the whole gradient: 2(N-1)
// latencies and 2(N-1)/N of the bytes over the link), times the iterations simulated. A value
// named is enough alone; otherwise the largest share is named with the iterations.
std::string time_range_culprits(const ScenarioConfig& config, const Workload& workload) {
  constexpr double limit_ps = Time::max_convertible_ps;
  const double n = std::max(2, config.gpus);
  const double bytes = static_cast<double>(total_gradient_bytes(workload).count());
  const double repeats = std::max(config.iterations, config.run_iterations);
  double compute_ps = 0.0;
  for (const Layer& layer : workload.layers) {
    compute_ps +=
        static_cast<double>(layer.forward.ps()) + static_cast<double>(layer.backward.ps());
  }
  std::vector<std::pair<double, std::string>> shares{{compute_ps, "the trace's layer times"}};
  const double messages = static_cast<double>(workload.layers.size());
  if (config.gpus > 1 && !config.network.measures_network()) {
    // A job inside one node without a network rings over its intra-node link.
    const bool stated = config.network.stated;
    const LinkSpec& link = stated ? config.network.link : config.intra_node;
    shares.emplace_back(2.0 * (n - 1) * static_cast<double>(link.latency.ps()),
                        stated ? "network.latency_us" : "cluster.intra_node_latency_us");
    if (link.bandwidth.bits_per_second() > 0.0) {
      shares.emplace_back(2.0 * (n - 1) / n * bytes * 8e12 / link.bandwidth.bits_per_second(),
                          stated ? "network.bandwidth_gbps" : "cluster.intra_node_bandwidth_gbps");
    }
  }
  shares.emplace_back(2.0 * (n - 1) / n * bytes * config.reduction_ps_per_byte,
                      "network.reduction_ns_per_byte");
  if (config.call_overhead) {
    shares.emplace_back(messages * static_cast<double>(config.call_overhead->ps()),
                        "communication.framework_overhead_us");
  }
  if (config.iteration_overhead) {
    shares.emplace_back(static_cast<double>(config.iteration_overhead->ps()),
                        "compute.framework_overhead_us");
  }
  double slowest = 0.0;
  for (const auto& [rank, slowdown] : config.compute.stragglers)
    slowest = std::max(slowest, slowdown);
  if (slowest > 0.0) shares.emplace_back(compute_ps * slowest, "compute.stragglers");
  std::vector<std::string> alone;
  for (const auto& [ps, key] : shares) {
    if (ps >= limit_ps) alone.push_back(key);
  }
  if (!alone.empty()) return fmt::format(" (it comes from {})", fmt::join(alone, " and "));
  const auto largest = std::max_element(shares.begin(), shares.end());
  if (largest->first * repeats >= limit_ps) {
    return fmt::format(" (it comes from {} over {} iterations)", largest->second, repeats);
  }
  return "";
}

// Everything after the workload is settled: profile, collective, one simulation per policy and
// compressor, schedules, convergence.
void simulate(ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  const bool any_per_tensor =
      std::any_of(config.policies.begin(), config.policies.end(),
                  [&](MergePolicy policy) { return merges_per_tensor(config, policy); });
  result.profile = backward_profile(result.workload, gathered_rows(config, result.workload));
  if (any_per_tensor) {
    result.tensor_profile =
        backward_profile(result.workload, gathered_rows(config, result.workload), true);
  }
  const std::optional<FrameworkOverheads>& measured = result.workload.framework_overheads;
  // The framework's per-iteration work runs once per step, before the last
  // backward (DDP's prepare_for_backward).
  result.iteration_overhead =
      config.iteration_overhead.value_or(measured ? measured->per_iteration : Time::zero());
  for (BackwardProfile* profile : {&result.profile, &result.tensor_profile}) {
    if (config.accumulation_steps > 1) {
      // The first k - 1 passes only accumulate: compute before the last pass's forward, whose
      // backward produces the gradients that are sent (as DDP's no_sync does).
      profile->forward +=
          (profile->forward + profile->backward) * std::int64_t{config.accumulation_steps - 1};
    }
    profile->forward += result.iteration_overhead;
  }
  // One collective (one topology, one set of flow-level prices) serves every compressor.
  result.call_overhead =
      config.call_overhead.value_or(measured ? measured->per_message : Time::zero());
  const std::shared_ptr<const Collective> base =
      as_called(make_collective(config), config, result.call_overhead);
  if (!config.gathered_tensors.empty() && base->gather() == nullptr) {
    throw InputError(
        fmt::format("{}: communication.allgather_gradients: the {} collective cannot gather rows",
                    config.source, base->name()));
  }
  result.collective_name = base->name();
  result.collective_cost = base->linear_cost();
  for (const auto& [compression, iterations_to_target] : config.compressions) {
    CollectivePtr compressed;
    try {
      if (!compression.is_none()) {
        compressed = std::make_unique<CompressedCollective>(
            compression, config.compression_profile, result.workload.bytes_per_element, base);
      }
    } catch (const InputError& error) {  // a format the collective cannot aggregate
      throw InputError(
          fmt::format("{}: communication.compression: {}", config.source, error.what()));
    }
    const Collective& collective = compressed ? *compressed : *base;
    for (MergePolicy policy : config.policies) {
      result.outcomes.push_back(
          run_policy(policy, compression, iterations_to_target, config, result, collective));
    }
  }
  if (!config.schedules.empty()) {
    result.baseline = fastest_baseline(result.outcomes);
    for (const AveragingSpec& spec : config.schedules) {
      result.schedules.push_back(run_schedule(spec, config, result, *base));
    }
    const Time full = result.outcomes[result.baseline].breakdown.iteration * config.run_iterations;
    for (ScheduleOutcome& schedule : result.schedules) {
      schedule.speedup = full.seconds() / schedule.total.seconds();
    }
  }
  if (config.sharding) run_sharding(result, base);
  if (config.jobs) run_jobs(result);
  if (config.convergence) {
    run_convergence(result, *config.convergence);
    // A schedule without iterations of its own takes the convergence run's of the same label,
    // so the averaging table and the convergence table give one time to target.
    for (ScheduleOutcome& schedule : result.schedules) {
      if (schedule.time_to_target) continue;
      const std::string label = averaging_label(schedule.spec);
      for (const ConvergenceOutcome& trained : result.convergence) {
        if (trained.label != label || !trained.time_to_target) continue;
        schedule.time_to_target = trained.time_to_target;
        schedule.iterations_to_target = trained.iterations_to_target;
        schedule.target_source = "convergence";
      }
    }
  }
}

}  // namespace

ScenarioResult run_scenario(const ScenarioConfig& config, Workload workload) {
  if (config.layer_times == "scaled_to_measured") {
    if (config.single_gpu_samples_per_s) {
      workload.measured_iteration =
          single_gpu_iteration(workload, *config.single_gpu_samples_per_s, config.source);
    }
    workload =
        scaled_to_measured(std::move(workload), config.source,
                           config.single_gpu_samples_per_s ? "compute.single_gpu_samples_per_s"
                                                           : "compute.layer_times");
  }
  if (config.layer_times == "wall") workload = on_wall_clock(std::move(workload), config.source);
  if (config.wire_bytes_per_element > 0) workload.bytes_per_element = config.wire_bytes_per_element;
  ScenarioResult result;
  result.config = config;
  result.workload = std::move(workload);
  try {
    simulate(result);
  } catch (const SimulationError& error) {
    // The scenario's file, and the values that made it too long, are named here: the model
    // code that finds a time out of range knows neither.
    const std::string_view what = error.what();
    throw SimulationError(fmt::format(
        "{}{}{}", what.starts_with(config.source + ": ") ? std::string() : config.source + ": ",
        what, time_range_culprits(config, result.workload)));
  }
  return result;
}

}  // namespace sgdsim
