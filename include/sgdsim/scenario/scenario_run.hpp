// Assembling a simulation from a validated scenario and running it once per merge policy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sgdsim/collectives/collective.hpp"
#include "sgdsim/convergence/statistics.hpp"
#include "sgdsim/metrics/iteration_metrics.hpp"
#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/training/iteration_simulation.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct PolicyOutcome {
  MergePolicy policy = MergePolicy::named("none");
  CompressorSpec compression;
  MergePlan plan;
  SimulationResult simulation;
  IterationBreakdown breakdown;  // of the mean iteration
  ScalingFigures scaling;
  double bytes_sent_per_gpu = 0.0;     // per iteration
  Bytes error_feedback;                // residual memory per GPU a biased compressor needs
  std::optional<Time> time_to_target;  // when the scenario gives iterations to target
  // Compute's slowdown beside the collectives as this policy ran: compute.overlap_slowdown (beside
  // kernels) weighed by kernel_share, the share of its communication stream's busy time that GPU
  // kernels run (kernel_share_of), as it was worked out from: exactly 1 or 0 for collectives all
  // kernels or none, else measured on the last iteration of a first run at the largest message's
  // share alone (or that share, where the two agree within 0.001).
  double overlap_slowdown = 1.0;
  double kernel_share = 1.0;
  // Whether the plan's units are gradient tensors (ScenarioResult::tensor_profile) rather than
  // layers (ScenarioResult::profile): communication.merge.granularity, or the policy's own.
  bool per_tensor = false;
};

// One averaging schedule over the run (see training/averaging_schedule.hpp).
struct ScheduleOutcome {
  AveragingSpec spec;
  std::vector<int> rounds;   // iterations followed by an averaging round
  Time local_iteration;      // an iteration without communication (zero for every_iteration)
  Time averaging_iteration;  // an iteration followed by averaging (or the SGD iteration)
  Time total;                // the whole run
  double round_bytes_per_gpu = 0.0;  // one averaging round (an SGD iteration for every_iteration)
  double speedup = 0.0;              // full-communication SGD's total / this total
  std::optional<Time> time_to_target;
  std::optional<std::int64_t> iterations_to_target;
  // Where iterations_to_target comes from: "given" (the scenario's iterations_to_target) or
  // "convergence" (the configuration of the same label trained by the convergence engine or
  // read from a measured curve).
  std::string target_source;
  // Over the whole run: a round's bytes at each round.
  double bytes_sent_per_gpu() const {
    return round_bytes_per_gpu * static_cast<double>(rounds.size());
  }
};

// One configuration trained by the convergence engine (scenario/convergence_run.hpp).
struct ConvergencePoint {
  int iteration = 0;
  Time time;  // simulated wall-clock time at its end
  // Unknown (absent from the JSON) where a measured curve does not give it.
  std::optional<double> loss;      // workers' mean mini-batch loss
  std::optional<double> variance;  // parameters across workers
  std::optional<double> test_accuracy;
  std::optional<double> test_loss;
  // Bits one GPU of the timed model has sent up to here (the simulation's bytes per GPU: its
  // compressor's per iteration, or the model's allreduce per averaging round), for trained and
  // measured curves alike. Never the proxy task's bits.
  std::optional<double> bits_sent;
};

// One seed's run of a configuration.
struct SeedRun {
  std::uint64_t seed = 0;
  std::optional<int> iterations_to_target;
  std::optional<Time> time_to_target;
  std::optional<double> final_accuracy;
  std::optional<double> bits_to_target;  // per GPU of the timed model
  std::optional<int> rounds_to_target;   // averaging rounds before the target (local SGD)
};

// A configuration trained once per seed. Its curve, iterations, time and accuracy are the first
// seed's (a representative run); the intervals summarise every seed.
struct ConvergenceOutcome {
  std::string label;           // "SGD", "CPSGD (period 4)", "SGD + topk(...)"
  std::vector<SeedRun> seeds;  // in seed order
  // Over the seeds, where every seed reached the target (seconds, iterations) or has an
  // accuracy; absent otherwise.
  std::optional<convergence::Interval> seconds_to_target;
  std::optional<convergence::Interval> iterations_interval;
  std::optional<convergence::Interval> accuracy_interval;
  std::optional<convergence::Interval> bits_interval;  // per GPU of the timed model, to target
  int seeds_reached() const {
    int reached = 0;
    for (const SeedRun& run : seeds) reached += run.time_to_target ? 1 : 0;
    return reached;
  }
  std::optional<int> iterations_to_target;  // first evaluation that met the target
  // The timed model's scale: the simulated wall time and bits per GPU of a mean iteration.
  Time iteration;
  double bits_per_iteration = 0.0;
  // The compressed gradient's own size at the timed model's d (what a worker would send to a
  // parameter server, the papers' measure), or the model's per round spread over the run.
  double message_bits_per_iteration = 0.0;
  std::optional<Time> time_to_target;
  std::optional<double> final_accuracy;  // unknown where a measured curve has no such column
  std::optional<double> final_loss;
  int averaging_rounds = 0;             // local SGD: rounds taken
  std::optional<int> rounds_to_target;  // local SGD: rounds among the iterations to target
  // The proxy task's scale: measured on the gradients the engine compressed, next to the
  // compressor's theoretical values at the proxy's d.
  std::optional<double> measured_delta;
  std::optional<double> measured_omega;
  std::optional<double> bound_delta;
  std::optional<double> bound_omega;
  // The compressor's theoretical values at the timed model's d (its gradient elements).
  std::optional<double> timed_delta;
  std::optional<double> timed_omega;
  std::vector<ConvergencePoint> curve;  // every iteration
};

// A scenario that leaves its node unstated, run at both ends of the node presets of its size
// (scenario/node_range.hpp).
struct NodeRange {
  int gpus_per_node = 0;
  std::vector<std::string> presets;  // the presets of that size
  double low_gbps = 0.0;             // their slowest rings, per GPU
  double high_gbps = 0.0;            // their fastest
  std::string low_preset;
  std::string high_preset;
  Time fastest_low;           // the fastest policy's mean iteration on the slowest node
  Time fastest_high;          // on the fastest node
  double assumed_gbps = 0.0;  // the intra-node link the scenario ran on (the default)
  Time fastest_assumed;       // the fastest policy's mean iteration as run
};

// A scenario whose transport caps each connection at its default (the scenario gave no
// flow_cap_gbps), run at both ends of what one connection plausibly reaches
// (scenario/node_range.hpp).
struct TransportRange {
  std::string transport;
  int connections = 0;
  double assumed_gbps = 0.0;  // per connection, the transport's default
  double low_gbps = 0.0;      // per connection, the plausible range's ends
  double high_gbps = 0.0;
  double network_gbps = 0.0;  // the network's rate as run, and at the range's ends
  double network_low_gbps = 0.0;
  double network_high_gbps = 0.0;
  Time fastest_assumed;  // the fastest policy's mean iteration as run
  Time fastest_low;
  Time fastest_high;
};

// A scenario on a node that copies through host memory (rings without P2P, NICs without
// GPUDirect RDMA) whose GPUs' read rate of host memory is the default, run again at both ends of
// its plausible range (scenario/node_range.hpp).
struct HostReadRange {
  double assumed = 0.0;  // the reads' rate as a fraction of the writes', as run
  double low = 0.0;      // the plausible range's ends
  double high = 0.0;
  double intra_gbps = 0.0;  // the intra-node link as run, and at the range's ends
  double intra_low_gbps = 0.0;
  double intra_high_gbps = 0.0;
  double network_gbps = 0.0;  // the network's rate as run, and at the range's ends
  double network_low_gbps = 0.0;
  double network_high_gbps = 0.0;
  bool network = true;  // false: a one-node job without a network (the rates above unused)
  // A dedicated server's default link under a transport's cap (parameter servers and BytePS;
  // 0 otherwise), as run and at the range's ends.
  double server_gbps = 0.0;
  double server_low_gbps = 0.0;
  double server_high_gbps = 0.0;
  Time fastest_assumed;  // the fastest policy's mean iteration as run
  Time fastest_low;
  Time fastest_high;
};

// A scenario run again with backward slowed beside its collectives (compute.overlap_slowdown)
// at the ends of what public profiles measured, where the scenario does not state it.
struct OverlapRange {
  double assumed = 1.0;  // the slowdown as run (the default)
  double low = 1.0;      // the range: the GPU at full speed, and Lee et al.'s maximum
  double high = 1.0;
  Time fastest_assumed;  // the fastest policy's mean iteration as run
  Time fastest_low;
  Time fastest_high;
};

// Where two or more of the facts above are unstated: the scenario run again with every one of
// them at the end that makes it faster, and again at the end that makes it slower, together.
struct CombinedRange {
  std::vector<std::string> facts;  // the unstated facts, by the key that states each
  Time fastest_assumed;            // the fastest policy's mean iteration as run
  Time fastest_low;                // every fact at its faster end
  Time fastest_high;               // every fact at its slower end
};

// One sharding strategy (training/sharding.hpp) on the scenario's cluster.
struct ShardingOutcome {
  ShardingStrategy strategy = ShardingStrategy::full_shard;
  int group_gpus = 0;
  ShardingResult simulation;
  ShardMemory memory;
  ScalingFigures scaling;
};

// One job of the scenario's `jobs` section, alone on its nodes of the fabric and sharing the
// fabric with the others (training/shared_fabric.hpp).
struct JobOutcome {
  std::string name;
  std::string trace;   // as the scenario names it
  std::string model;   // the trace's
  int batch_size = 0;  // per GPU per pass, as traced
  int gpus = 0;
  std::int64_t gradient_bytes = 0;  // per iteration
  double bytes_sent_per_gpu = 0.0;  // per iteration
  std::vector<int> nodes;           // the fabric's nodes it runs on, in its ranks' order
  std::string collective;
  MergePolicy policy = MergePolicy::named("none");
  Time start;
  int messages = 0;  // per iteration
  SimulationResult alone;
  SimulationResult shared;
  // The other jobs whose flows cross a link this job's flows cross (empty: it runs as alone).
  std::vector<std::string> contends_with;
  ScalingFigures scaling;  // of its mean shared iteration
  Time compute;            // one iteration without communication
  double slowdown() const;
  // Mean busy time of its communication stream per iteration, shared, over the iterations the
  // run keeps (the first 1,000: all of them unless `iterations` is larger).
  Time communication() const;
};

struct ScenarioResult {
  ScenarioConfig config;
  Workload workload;
  BackwardProfile profile;         // per layer
  BackwardProfile tensor_profile;  // per gradient tensor, when a policy merges per tensor
  std::string collective_name;
  LinearCost collective_cost;
  std::vector<PolicyOutcome> outcomes;  // compressions in scenario order, policies within each
  // Averaging comparison (empty unless the scenario asks for one). The baseline is full-
  // communication SGD with the fastest uncompressed policy of `outcomes`.
  std::size_t baseline = 0;  // index into outcomes
  std::vector<ScheduleOutcome> schedules;
  // What the framework adds (the scenario's keys, else the trace's measurement): per iteration
  // (included in profile.forward) and per collective call (included in every message's time).
  Time iteration_overhead;
  Time call_overhead;
  // With a convergence section: every compressor (with its fastest policy) and every averaging
  // schedule trained to the target, and where the data came from.
  std::vector<ConvergenceOutcome> convergence;
  std::string convergence_source;
  std::int64_t convergence_parameters = 0;  // the proxy task's d (0 for measured curves)
  // `sgdsim run` only: the range over node presets when the node is unstated.
  std::optional<NodeRange> node_range;
  // `sgdsim run` only: the range over one connection's plausible rates when the scenario's
  // transport caps connections at its default.
  std::optional<TransportRange> transport_range;
  // `sgdsim run` only: the range over the GPUs' plausible read rates of host memory when the
  // scenario's node copies through it.
  std::optional<HostReadRange> host_read_range;
  std::optional<OverlapRange> overlap_range;
  // `sgdsim run` only: every unstated fact above at its ends together, where two or more are.
  std::optional<CombinedRange> combined_range;
  // With a sharding section: the model cut into units, the settings as completed (parameter
  // bytes, optimizer state), replicated data parallelism's memory, and every strategy.
  ShardedModel sharded_model;
  ShardingSettings sharding_settings;
  ShardMemory replicated_memory;
  std::vector<ShardingOutcome> sharding;
  // With a jobs section: every job, the scenario's own first.
  std::vector<JobOutcome> jobs;
  int fabric_gpus = 0;
};

// The averaging rounds among, and the time of, the first `iterations` iterations of a schedule.
std::int64_t rounds_in_prefix(const ScheduleOutcome& outcome, std::int64_t iterations);
Time time_of_prefix(const ScheduleOutcome& outcome, std::int64_t iterations);

std::string outcome_label(const PolicyOutcome& outcome);

// The profile an outcome's plan indexes: per tensor or per layer.
const BackwardProfile& profile_of(const ScenarioResult& result, const PolicyOutcome& outcome);

// The share of a stream's busy time that kernels run (Collective::kernel_time), at most 1: over
// one iteration's messages, their kernels' time over the union of their spans (a message's
// gathered rows left out: the collectives that gather are all kernels or none, NCCL's allgather
// and parameter servers, whose share is never measured); for a profile, that of its largest
// message alone, exactly 1 or 0 for a collective that is all kernels or none, and 0 where
// nothing is sent (one GPU).
double kernel_share_of(const Collective& collective, const IterationTimeline& iteration);
double kernel_share_of(const Collective& collective, const BackwardProfile& profile);
// Compute at 1 / kernel_slowdown for `share` of the time a collective is in flight and at full
// speed for the rest runs, on average, at 1 / (1 - share + share / kernel_slowdown) of its speed.
double overlap_slowdown_of(double kernel_slowdown, double share);

CollectivePtr make_collective(const ScenarioConfig& config);
// The collective as a framework calls it: chunked (communication.collective.chunks) and with its
// cost per call.
std::shared_ptr<const Collective> as_called(std::shared_ptr<const Collective> collective,
                                            const ScenarioConfig& config, Time call_overhead);
ScenarioResult run_scenario(const ScenarioConfig& config);
ScenarioResult run_scenario(const ScenarioConfig& config, Workload workload);

}  // namespace sgdsim
