// A validated what-if scenario (format documented in scenarios/README.md). Everything here has
// been checked; modelling code never sees raw JSON.
#pragma once

#include <algorithm>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sgdsim/collectives/collective_registry.hpp"
#include "sgdsim/collectives/nccl_tuning.hpp"
#include "sgdsim/compression/cost_model.hpp"
#include "sgdsim/convergence/learning_rate.hpp"
#include "sgdsim/network/link_model.hpp"
#include "sgdsim/topology/node_topology.hpp"
#include "sgdsim/topology/topology.hpp"
#include "sgdsim/training/averaging_schedule.hpp"
#include "sgdsim/training/gradient_layers.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/per_rank_simulation.hpp"
#include "sgdsim/training/sharding.hpp"

namespace sgdsim {

inline constexpr int scenario_schema_version = 1;

// How messages cross the network (`network.transport`): the fraction of the line rate a
// transfer achieves, a software overhead added to every message's latency, and the rate one
// connection can reach (zero: the link's) with how many connections a transfer spreads over.
// Defaults per transport and their sources are in scenarios/README.md ("Transports").
struct Transport {
  std::string name;
  double goodput_fraction = 1.0;
  Time message_overhead;
  Bandwidth flow_cap;  // per connection; zero: no cap below the link
  // What one connection plausibly reaches where the scenario does not say (zero: no range):
  // the honest-uncertainty range of a default cap (scenario/node_range.hpp).
  Bandwidth flow_cap_low;
  Bandwidth flow_cap_high;
  bool flow_cap_given = false;  // the scenario gave flow_cap_gbps
  int connections = 0;          // given; zero: the collective's (default_connections)
  int connections_used = 0;     // what the link's rate was computed with
  // Through the kernel's sockets, which take host memory only: never GPUDirect RDMA, whatever
  // the node (NCCL's socket transport, src/transport/net_socket.cc: ptrSupport NCCL_PTR_HOST).
  bool host_memory_only = false;
};

// Every transport with its defaults, in the order scenarios/README.md lists them.
const std::vector<Transport>& transports();
std::vector<std::string> transport_names();

// The link inside a node where no node and no cluster.intra_node_bandwidth_gbps says: a GPU's
// default link (topology/topology.hpp).
inline constexpr double default_intra_node_gbps = default_gpu_link_gbps;

// cluster.node: a preset or a node file, as the scenario names it, and what the cluster model
// takes from it (topology/node_topology.hpp); the keys it presets are listed in
// scenarios/README.md ("Nodes").
struct NodeChoice {
  std::string name;
  NodeDescription description;
  // The description built once as the reader checked it; what the collective and the ranges
  // model the node from (its GPUs' reads of host memory apart).
  std::shared_ptr<const NodeTopology> topology = nullptr;
  NodeModel model{};
  // What the GPUs' reads of host memory reach, as a fraction of their writes
  // (cluster.host_read_efficiency; topology/node_topology.hpp), and whether the scenario said.
  double read_efficiency = host_read_efficiency;
  bool read_efficiency_given = false;
  // The node's rings set the intra-node link (no intra_node_bandwidth_gbps, no fit inside a
  // node, several GPUs).
  bool sets_intra_node = false;
};

// The scenario's `convergence` section: what the convergence engine trains to judge schedules
// and compressors by time to target (scenario/convergence_run.hpp).
struct ConvergenceSpec {
  std::string task;  // fashion_mnist_softmax, fashion_mnist_mlp, synthetic_logistic
  std::optional<double> target_accuracy;
  std::optional<double> target_loss;
  int workers = 16;
  int batch = 32;
  double learning_rate = 0.1;  // the schedule's base rate
  convergence::LearningRateSchedule schedule;
  double momentum = 0.0;
  double weight_decay = 0.0;
  int seeds = 5;                     // runs per configuration: seeds seed, seed + 1, ...
  std::optional<int> test_examples;  // the first ones of the test set; none: all
  int max_iterations = 1000;
  int evaluate_every = 20;  // the reader's default: max_iterations / 50
  int hidden = 64;          // fashion_mnist_mlp
  int threads = 1;
  // Which compressors train with error feedback: "biased" (the biased ones), "always", "never",
  // or "both" (every compressor twice, with and without).
  std::string error_feedback = "biased";
  // Whether training stops at the first evaluation that meets the target, or runs every
  // iteration (full curves, as for loss against bits communicated).
  bool stop_at_target = true;
  // Also local SGD under sgdsim's closed-loop variance rule with this budget of rounds
  // (scenario/convergence_run.hpp); needs a local averaging schedule to time its iterations.
  std::optional<int> variance_budget;
  // Task "measured": curves from the user's own runs, per configuration label (a compressor's
  // label or a schedule's), instead of the engine.
  std::vector<std::pair<std::string, std::filesystem::path>> curves;
  std::string path;  // "convergence", for messages
};

// The tasks a convergence section may name, its error-feedback modes and stopping rules.
const std::vector<std::string>& convergence_tasks();
const std::vector<std::string>& error_feedback_modes();
const std::vector<std::string>& convergence_stops();

struct NetworkConfig {
  // Exactly one of the two is used: a link, or measured allreduce fits.
  LinkSpec link;
  std::vector<MeasuredAllreduce> measured_allreduce;
  // Whether a fit across nodes sets the link (fits inside one node set the intra-node link).
  bool measures_network() const {
    return std::any_of(measured_allreduce.begin(), measured_allreduce.end(),
                       [](const MeasuredAllreduce& m) { return !m.inside_one_node(); });
  }
  std::optional<Transport> transport;  // none: the link at its line rate
  // The rate before a transport's cap per connection (line x goodput), which the fabric's
  // switches and a dedicated server's link see, whatever the workers' GPU-NIC paths (zero:
  // the link's), and that server link's default (one connection from every worker that pushes
  // to it).
  Bandwidth fabric;
  Bandwidth server_default;
  // With a transport: the workers' link before its cap per connection, line x goodput under the
  // node's GPU-NIC paths.
  Bandwidth worker_path;
  // The link's bandwidth as the scenario set it (or a fit across nodes gives it);
  // `link.bandwidth` is what a transfer reaches of it after the transport (its goodput) and the
  // node's GPU-NIC paths (apply_node_cap).
  Bandwidth line_rate;
  // False where a one-node job left `network` out: nothing it runs crosses a network, and the
  // link above is a stand-in that nothing prices (the reader refuses a job that would).
  bool stated = true;
};

// A compressor, and optionally how many iterations SGD with it needed to reach the user's
// target accuracy (from their own training logs).
struct CompressionChoice {
  CompressorSpec spec;
  std::optional<std::int64_t> iterations_to_target;
};

// communication.allgather_gradients[i]: the rows to gather, and where the scenario gave them.
struct GatheredTensor {
  RowGather rows;
  std::string path;
};

// communication.sharding: sharded data-parallel strategies compared side by side
// (training/sharding.hpp).
struct ShardingSpec {
  std::vector<ShardingStrategy> strategies;
  ShardingSettings settings;  // gpus, group_gpus and dtype completed by the run
  std::string units = "blocks";
  std::vector<std::string> unit_prefixes;
  std::string optimizer = "adam";
  std::string parameter_dtype;  // empty: the trace's gradient dtype
};

struct ScenarioConfig;

// `jobs`: training jobs sharing the cluster's fabric at flow fidelity (scenario/jobs.hpp). The
// scenario's own job comes first; each job is read as a scenario of its own (its trace, GPUs,
// collective and one merge policy on the scenario's cluster), then placed on whole nodes.
struct JobSpec {
  std::string name;
  std::string path;  // where the scenario describes it ("jobs.with[0]"; "jobs" for its own)
  std::shared_ptr<const ScenarioConfig> config;
  Time start;  // on the shared clock
};

struct JobsSpec {
  std::vector<JobSpec> jobs;
  int fabric_gpus = 0;  // the fabric's GPUs: the cluster with this many GPUs, no servers
  std::string placement = "packed";
  std::uint64_t seed = 1;  // random placement
};

// The placements `jobs.placement` names, in the order scenarios/README.md lists them.
const std::vector<std::string>& job_placements();

struct ScenarioConfig {
  std::string source;  // scenario file as given
  std::string name;
  std::string description;
  std::filesystem::path trace_path;  // resolved against the scenario's folder
  std::string trace_reference;       // as written in the scenario
  int gpus = 1;
  int gpus_per_node = 1;
  bool nic_per_gpu = false;
  LinkSpec intra_node;
  bool intra_node_given = false;   // cluster.intra_node_* present
  std::optional<NodeChoice> node;  // cluster.node
  NetworkConfig network;
  int leaf_nodes = 0;  // fat-tree leaf size; 0 for one switch
  double oversubscription = 1.0;
  double reduction_ps_per_byte = 0.0;
  // NCCL-style latency table for ring and tree: none (route latencies), one protocol, or several,
  // each message taking the fastest (nccl_protocol "auto", collectives/protocol_choice.hpp).
  std::vector<NcclProtocol> nccl_protocols;
  int concurrent_jobs = 1;
  ComputeHeterogeneity compute;
  // compute.layer_times: "as_traced", "scaled_to_measured" or "wall" (the GPU timeline's times)
  std::string layer_times = "as_traced";
  // compute.single_gpu_samples_per_s: one GPU's measured throughput at the trace's batch; the
  // iteration the layers are scaled to is batch / it (layer_times "scaled_to_measured").
  std::optional<double> single_gpu_samples_per_s;
  // compute.overlap_slowdown: compute runs at 1 / this beside the GPU kernels that run a
  // collective; each policy's run weighs it by the share of its communication they run into the
  // slowdown while a collective is in flight (PolicyOutcome::overlap_slowdown,
  // training/iteration_simulation.hpp). Unstated, default_overlap_slowdown, Lee et al.'s average.
  double overlap_slowdown = 1.0;
  bool overlap_slowdown_given = false;  // the scenario states it (even 1)
  // compute.accumulation_steps: forward and backward passes per optimizer step; gradients are
  // communicated once, during the last pass's backward.
  int accumulation_steps = 1;
  // What the framework adds: compute.framework_overhead_us per iteration and
  // communication.framework_overhead_us per collective call; unset: the trace's measured
  // framework_overheads, else nothing.
  std::optional<Time> iteration_overhead;
  std::optional<Time> call_overhead;
  // communication.wire_dtype: bytes per gradient element on the wire (0: the trace's dtype).
  int wire_bytes_per_element = 0;
  std::vector<GatheredTensor> gathered_tensors;  // communication.allgather_gradients
  const CollectiveEntry* collective = &collective_registry().at("ring_allreduce");
  Settings collective_settings;  // the keys `collective` declares, validated
  // communication.collective.chunks: each message split into this many chunks, run one after
  // another (collectives/chunked_collective.hpp); 1: the collective's own pipelined form.
  int collective_chunks = 1;
  std::vector<MergePolicy> policies;
  MergeSettings merge = merge_defaults();
  std::vector<CompressionChoice> compressions{CompressionChoice{}};  // compared side by side
  CompressionProfile compression_profile;  // empty: the default encode/decode cost model
  std::string compression_profile_source;
  std::vector<AveragingSpec> schedules;        // empty: no averaging comparison
  std::optional<ConvergenceSpec> convergence;  // judge by time to target
  std::optional<ShardingSpec> sharding;
  std::optional<JobsSpec> jobs;
  int run_iterations = 0;             // length of the run the schedules are placed in
  std::string fidelity = "analytic";  // "analytic", "per_rank" or "flow"
  int iterations = 10;
  bool has_sweep = false;
  std::uint64_t seed = 1;
  // What the reader accepted but the user should hear about (an old name, say); the CLI prints
  // each as "note: ..." on standard error.
  std::vector<std::string> notes;
  // Every file the scenario reads (the scenario itself, its trace, its compression profile), so
  // that no output is ever written over one of them.
  std::vector<std::filesystem::path> input_files;
  // The scenario document as read (a sweep point's with its values set), for provenance, and
  // whether it came from the file named `source` (a Python dict's source is only a label).
  std::shared_ptr<const nlohmann::json> document;
  bool source_is_file = false;
};

// The cluster a scenario describes, with what its collective adds (parameter servers).
ClusterShape cluster_shape(const ScenarioConfig& config);

}  // namespace sgdsim
