// Scenario JSON Schema from declarations. The fixed sections' keys mirror scenario_reader.cpp
// (same names, ranges and defaults); the unit tests check that every example scenario passes
// both the reader and this schema.
#include "sgdsim/scenario/scenario_schema.hpp"

#include "sgdsim/scenario/node_presets.hpp"

#include <limits>

#include "sgdsim/collectives/chunked_collective.hpp"
#include "sgdsim/collectives/collective_registry.hpp"
#include "sgdsim/compression/compressor.hpp"
#include "sgdsim/jsonio/declared_keys.hpp"
#include "sgdsim/scenario/jobs.hpp"
#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/topology/topology.hpp"
#include "sgdsim/training/averaging_schedule.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/sharding.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

namespace {

using Json = nlohmann::ordered_json;

Json object_of(const std::vector<KeySpec>& keys, std::string description = {}) {
  Json schema{{"type", "object"}};
  if (!description.empty()) schema["description"] = std::move(description);
  schema["properties"] = Json::object();
  jsonio::add_key_schemas(schema, keys);
  schema["additionalProperties"] = false;
  return schema;
}

Json array_of(Json items, std::string description) {
  return {{"type", "array"}, {"description", std::move(description)}, {"items", std::move(items)}};
}

// One branch per member, told apart by the value of `selector` (required unless `fallback` is
// that member's name).
template <class Entry>
Json members_schema(const Registry<Entry>& registry, const std::string& selector,
                    const std::vector<KeySpec>& common, const std::string& fallback = {}) {
  Json branches = Json::array();
  for (const Entry& entry : registry.entries()) {
    std::vector<std::string> names{entry.name};
    names.insert(names.end(), entry.aliases.begin(), entry.aliases.end());
    Json branch = object_of(common, entry.description);
    branch["properties"][selector] = {{"enum", names}};
    jsonio::add_key_schemas(branch, entry.keys);
    if (entry.name != fallback) branch["required"].push_back(selector);
    branches.push_back(std::move(branch));
  }
  return {{"oneOf", branches}};
}

// communication.sharding (training/sharding.hpp; read by communication_reader.cpp).
Json sharding_schema() {
  std::vector<std::string> names;
  for (const ShardingEntry& entry : sharding_registry().entries()) names.push_back(entry.name);
  Json schema = object_of(
      {KeySpec::integer("group_gpus",
                        "HYBRID_SHARD's shard group, a divisor or a multiple of the GPUs per "
                        "node that divides the GPUs (default: the GPUs per node)",
                        1, max_cluster_gpus)
           .optional(),
       KeySpec::integer("forward_prefetch", "units allgathered ahead of the forward", 0, 64, 1),
       KeySpec::integer("backward_prefetch",
                        "units allgathered ahead of the backward (1: FSDP's BACKWARD_PRE)", 0, 64,
                        1),
       KeySpec::integer("limit_all_gathers",
                        "units gathered at once at most (FSDP's limit_all_gathers: 2; 0: none)", 0,
                        64, 2),
       KeySpec::optional_choice("parameter_dtype",
                                "parameters and gradients as gathered and reduced (default: "
                                "the trace's gradient dtype)",
                                gradient_dtypes()),
       KeySpec::choice("optimizer", "sets the optimizer state per parameter",
                       {"adam", "sgd_momentum", "sgd"}, "adam"),
       KeySpec::integer("reduce_bucket_elements", "ZeRO-1/2 reduce-scatter bucket (DeepSpeed)", 1,
                        std::int64_t{1} << 40, 500'000'000),
       KeySpec::integer("allgather_bucket_elements", "ZeRO-1/2 allgather bucket (DeepSpeed)", 1,
                        std::int64_t{1} << 40, 500'000'000),
       KeySpec::choice("accumulation",
                       "FSDP with compute.accumulation_steps > 1: reduce-scatter every pass's "
                       "gradients, or (no_sync) only the last pass's, keeping whole gradients",
                       accumulation_modes(), accumulation_modes().front())},
      "sharded data-parallel strategies compared side by side (ZeRO, FSDP)");
  const Json strategy{{"enum", names}};
  schema["properties"]["strategy"] = {
      {"description", "a strategy or a list of them (default: all)"},
      {"oneOf",
       Json::array({strategy, Json{{"type", "array"}, {"minItems", 1}, {"items", strategy}}})}};
  schema["properties"]["units"] = {
      {"description",
       "units gathered as one flat parameter: \"blocks\" (numbered blocks), \"layers\", "
       "\"repeats\" (repeated runs of layers, for profiler imports), or layer-name prefixes"},
      {"oneOf", Json::array({Json{{"enum", unit_modes()}},
                             Json{{"type", "array"},
                                  {"minItems", 1},
                                  {"items", {{"type", "string"}, {"minLength", 1}}}}})}};
  return schema;
}

Json cluster_schema() {
  Json schema = object_of(
      {KeySpec::integer("gpus", "GPUs in the cluster", 1, max_cluster_gpus),
       KeySpec::string("node",
                       "a node preset, or a node file (sgdsim topology import's description, an "
                       "NCCL XML dump, nvidia-smi topo -m output), presetting the keys below")
           .optional(),
       KeySpec::integer("gpus_per_node", "GPUs per node (default: the node preset's, else 1)", 1,
                        1024)
           .optional(),
       KeySpec::positive("intra_node_bandwidth_gbps",
                         "link inside a node (default: the node preset's, else 256)")
           .optional(),
       KeySpec::non_negative("intra_node_latency_us", "latency inside a node", 1.0),
       KeySpec::fraction("host_read_efficiency",
                         "with node: the GPUs' reads of host memory as a fraction of their "
                         "writes (default 35.19/52.77, nvbandwidth on H100)")
           .optional(),
       KeySpec::optional_choice("nic",
                                "one NIC per node or per GPU (default: the node preset's, else "
                                "per_node)",
                                {"per_node", "per_gpu"})});
  // A preset's name, or a file's (a path has a dot or a slash).
  schema["properties"]["node"]["anyOf"] =
      Json::array({Json{{"enum", node_preset_names()}}, Json{{"pattern", "[./]"}}});
  return schema;
}

Json network_schema() {
  Json measurement =
      object_of({KeySpec::integer("gpus", "GPUs of the measurement", 2, max_cluster_gpus),
                 KeySpec::positive("alpha_us", "fitted startup of the whole allreduce"),
                 KeySpec::positive("beta_ns_per_byte", "fitted time per message byte"),
                 KeySpec::integer("gpus_per_node",
                                  "GPUs per node in the measurement (= gpus: "
                                  "inside one node)",
                                  1, max_cluster_gpus, 1)});
  Json schema = object_of(
      {KeySpec::positive("bandwidth_gbps",
                         "per-link bandwidth (required unless a fit across nodes or the node "
                         "preset gives it, or the job is inside one node)")
           .optional(),
       KeySpec::non_negative("latency_us", "per-message latency", 5.0),
       KeySpec::non_negative("reduction_ns_per_byte", "local reduction cost", 0.0),
       KeySpec::optional_choice("transport", "how messages cross the network", transport_names()),
       KeySpec::positive("goodput_fraction", "fraction of the line rate reached").optional(),
       KeySpec::non_negative("message_overhead_us", "software cost per message").optional(),
       KeySpec::positive("flow_cap_gbps", "rate one connection can reach").optional(),
       KeySpec::integer("connections", "connections a transfer spreads over", 1, 4096).optional()});
  schema["properties"]["goodput_fraction"]["maximum"] = 1;
  schema["properties"]["measured_allreduce"] =
      array_of(measurement,
               "allreduce fits: inside one node for the intra-node link, across nodes instead "
               "of bandwidth_gbps");
  schema["properties"]["measured_allreduce"]["minItems"] = 1;
  Json fat_tree =
      object_of({KeySpec::integer("leaf_nodes", "nodes per leaf switch", 1, max_cluster_gpus),
                 KeySpec::number_at_least("oversubscription", "leaf downlink over uplink capacity",
                                          1.0, 1.0)});
  schema["properties"]["fat_tree"] = fat_tree;
  return schema;
}

Json compression_schema() {
  const std::vector<KeySpec> common{
      KeySpec::choice("aggregation", "how compressed messages are combined",
                      {"automatic", "allreduce", "gather"}, "automatic"),
      KeySpec::integer("iterations_to_target", "iterations SGD with it needed (your logs)", 1,
                       1'000'000'000)
          .optional()};
  Json one = members_schema(compressor_registry(), "name", common);
  one["oneOf"].push_back(Json{{"type", "number"},
                              {"description", "a bare compression ratio"},
                              {"exclusiveMinimum", 0},
                              {"maximum", 1}});
  return {{"oneOf", Json::array({one, Json{{"type", "array"}, {"minItems", 1}, {"items", one}}})}};
}

Json communication_schema() {
  Json schema =
      object_of({KeySpec::integer("concurrent_jobs", "identical jobs sharing the links", 1, 64, 1),
                 KeySpec::optional_choice("wire_dtype",
                                          "gradient precision on the wire (default: the trace's)",
                                          gradient_dtypes()),
                 KeySpec::string("compression_profile", "gpu_probe profile file").optional(),
                 KeySpec::non_negative("framework_overhead_us",
                                       "framework cost per collective call, us (default: the "
                                       "trace's measured one, else 0)")
                     .optional()});
  schema["properties"]["collective"] =
      members_schema(collective_registry(), "algorithm",
                     {KeySpec::integer("chunks",
                                       "chunks per message, run one after another (1: the "
                                       "collective's pipelined form)",
                                       1, max_collective_chunks, 1)},
                     "ring_allreduce");
  std::vector<std::string> policies;
  for (const MergePolicyEntry& entry : merge_policy_registry().entries()) {
    policies.push_back(entry.name);
  }
  Json merge = object_of(merge_keys(), "merge policies and their keys");
  const Json policy{{"enum", policies}};
  merge["properties"]["policy"] = {
      {"oneOf",
       Json::array({policy, Json{{"type", "array"}, {"minItems", 1}, {"items", policy}}})}};
  schema["properties"]["merge"] = merge;
  schema["properties"]["compression"] = compression_schema();
  schema["properties"]["allgather_gradients"] = array_of(
      object_of({KeySpec::string("tensor", "gradient tensor name in the trace"),
                 KeySpec::integer("rows_per_sample", "rows one sample touches", 1, 1 << 24),
                 KeySpec::integer("row_elements", "elements per row", 1, std::int64_t{1} << 40)}),
      "tensors sent as rows by allgather (sparse embedding gradients)");
  schema["properties"]["allgather_gradients"]["minItems"] = 1;
  Json averaging =
      object_of({KeySpec::integer("run_iterations", "iterations of the run", 1, 10'000'000)});
  Json one_schedule = members_schema(
      averaging_registry(), "schedule",
      {KeySpec::integer("iterations_to_target", "iterations to target (your logs)", 1, 10'000'000)
           .optional()});
  averaging["properties"]["schedules"] = array_of(one_schedule, "schedules compared side by side");
  averaging["properties"]["schedules"]["minItems"] = 1;
  averaging["required"].push_back("schedules");
  schema["properties"]["averaging"] = averaging;
  schema["properties"]["sharding"] = sharding_schema();
  return schema;
}

// compute.overlap_slowdown: at least 1, Lee et al.'s average unless stated; each policy's run
// weighs it by its kernels' share (scenario_run.cpp).
KeySpec overlap_slowdown_key() {
  KeySpec spec = KeySpec::positive(
                     "overlap_slowdown",
                     "compute runs at 1 / this beside the GPU kernels that run a collective (Lee "
                     "et al.'s average beside NCCL's by default); each policy, at 1 / (1 - f + f "
                     "/ this) while one is in flight, f the share of its communication that "
                     "kernels run: 1 for NCCL's collectives and BytePS on one machine in one "
                     "group, 0 for parameter servers and one GPU, between for BytePS's NCCL "
                     "stages beside its copies, network and servers",
                     default_overlap_slowdown)
                     .at_most(1000.0);
  spec.minimum = 1.0;
  spec.minimum_exclusive = false;
  return spec;
}

Json compute_schema() {
  Json schema = object_of(
      {KeySpec::non_negative("jitter_cv", "lognormal jitter's CV", 0.0),
       KeySpec::integer("accumulation_steps", "passes per optimizer step", 1, 1'000'000, 1),
       KeySpec::non_negative("framework_overhead_us",
                             "framework cost per iteration, us (default: the trace's measured "
                             "one, else 0)")
           .optional(),
       KeySpec::choice("layer_times",
                       "per-layer times as traced (a profiler import: GPU kernel time), scaled to "
                       "the measured step, or on the GPU's timeline with the waits for the host "
                       "(wall: profiler imports)",
                       {"as_traced", "scaled_to_measured", "wall"}, "as_traced"),
       KeySpec::positive("single_gpu_samples_per_s",
                         "one GPU's measured samples/s at the trace's batch: the layers are "
                         "scaled to batch / it (implies layer_times scaled_to_measured)")
           .optional(),
       overlap_slowdown_key()});
  schema["properties"]["stragglers"] =
      array_of(object_of({KeySpec::integer("rank", "the slow GPU", 0, max_cluster_gpus - 1),
                          KeySpec::positive("slowdown", "factor on its compute times")}),
               "named slow GPUs");
  schema["properties"]["groups"] = array_of(
      object_of({KeySpec::integer("first_rank", "first GPU of the group", 0, max_cluster_gpus - 1),
                 KeySpec::integer("last_rank", "last GPU of the group", 0, max_cluster_gpus - 1),
                 KeySpec::positive("scale", "factor on its compute times")}),
      "heterogeneous GPU groups");
  return schema;
}

Json convergence_schema() {
  Json schema = object_of(
      {KeySpec::optional_choice("task", "what the convergence engine trains", convergence_tasks()),
       KeySpec::integer("workers", "the engine's logical workers", 1, 1 << 20, 16),
       KeySpec::integer("batch", "mini-batch per worker", 1, 1 << 16, 32),
       KeySpec::positive("learning_rate", "SGD step (the schedule's base rate)", 0.1),
       KeySpec::non_negative("momentum", "heavy-ball momentum, in [0, 1)", 0.0),
       KeySpec::non_negative("weight_decay", "l2 weight decay, added to the gradient locally", 0.0),
       KeySpec::integer("seeds", "runs per configuration, one per seed", 1, 1000, 5),
       KeySpec::integer("test_examples", "the first test examples evaluated (default: all)", 1,
                        10000)
           .optional(),
       KeySpec::integer("max_iterations",
                        "iterations at most (default: averaging.run_iterations, else 1000)", 1,
                        10'000'000)
           .optional(),
       KeySpec::integer("evaluate_every",
                        "iterations between test evaluations (default: max_iterations / 50)", 1,
                        1 << 30)
           .optional(),
       KeySpec::integer("hidden", "hidden units of fashion_mnist_mlp", 1, 1 << 16, 64),
       KeySpec::integer("threads", "threads the engine uses", 1, 1024, 1),
       KeySpec::choice("error_feedback",
                       "which compressors train with error feedback (both: each twice)",
                       error_feedback_modes(), "biased"),
       KeySpec::choice("stop", "stop at the target, or train every iteration", convergence_stops(),
                       "target"),
       KeySpec::integer("variance_budget",
                        "rounds for sgdsim's closed-loop variance rule (local SGD)", 1, 10'000'000)
           .optional()},
      "train the task for real and compare time to target (scenario/convergence_run.hpp)");
  Json target = object_of({KeySpec::fraction("accuracy", "test accuracy to reach").optional(),
                           KeySpec::positive("loss", "test loss to reach").optional()},
                          "exactly one of accuracy or loss");
  target["minProperties"] = 1;
  target["maxProperties"] = 1;
  schema["properties"]["target"] = target;
  Json schedule = object_of(
      {KeySpec::choice("decay", "how the rate decays after the warm-up",
                       convergence::learning_rate_decays(), "constant"),
       KeySpec::integer("warmup", "iterations of linear warm-up", 0, 1 << 30, 0),
       KeySpec::positive("gamma", "step: the factor per milestone, in (0, 1)").optional()},
      "the learning rate per iteration");
  schedule["properties"]["milestones"] = array_of({{"type", "integer"}, {"minimum", 1}},
                                                  "step: iterations after which the rate decays");
  schema["properties"]["learning_rate_schedule"] = schedule;
  schema["properties"]["curves"] = {
      {"type", "object"},
      {"description",
       "task measured: {configuration label: CSV file with iteration and accuracy or loss}"},
      {"additionalProperties", {{"type", "string"}}}};
  schema["required"] = Json::array({"task", "target"});
  return schema;
}

Json sweep_schema() {
  const Json range{{"type", "object"},
                   {"properties",
                    {{"from", {{"type", "number"}}},
                     {"to", {{"type", "number"}}},
                     {"step", {{"type", "number"}, {"exclusiveMinimum", 0}}},
                     {"times", {{"type", "number"}, {"exclusiveMinimum", 1}}}}},
                   {"required", {"from", "to"}},
                   {"additionalProperties", false}};
  return {{"type", "object"},
          {"description", "dotted scenario keys -> a list of values or a range"},
          {"additionalProperties",
           {{"oneOf", Json::array({Json{{"type", "array"}, {"minItems", 1}}, range})}}}};
}

}  // namespace

// `jobs` (scenario/jobs.hpp): the jobs sharing the cluster's fabric with the scenario's own.
Json jobs_schema(const Json& collective, const Json& policy) {
  Json job = object_of(
      {KeySpec::string("name", "in reports; default: job 1, job 2, ...").optional(),
       KeySpec::string("trace",
                       "its trace, relative to the scenario's folder; default: the "
                       "scenario's")
           .optional(),
       KeySpec::integer("gpus", "its GPUs, whole nodes of the cluster", 1, max_flow_gpus),
       KeySpec::non_negative("start_ms", "its first iteration's start on the shared clock", 0.0)},
      "one more job on the fabric: the scenario's cluster, network and compute keys apply");
  job["properties"]["collective"] = collective;
  job["properties"]["policy"] = policy;
  Json schema = object_of(
      {KeySpec::integer("fabric_gpus",
                        "the fabric's GPUs (default: every job's together; shared: the largest "
                        "job's)",
                        1, max_flow_gpus)
           .optional(),
       KeySpec::choice("placement", "how the jobs take the fabric's nodes", job_placements(),
                       "packed"),
       KeySpec::integer("seed", "random placement's seed (default: the scenario's)", 0,
                        std::numeric_limits<std::int64_t>::max())
           .optional()},
      "training jobs sharing the cluster's fabric at flow fidelity, the scenario's own first");
  schema["properties"]["policy"] = policy;
  schema["properties"]["with"] = array_of(job, "the other jobs");
  schema["properties"]["with"]["minItems"] = 1;
  schema["properties"]["with"]["maxItems"] = max_other_jobs;
  schema["required"].push_back("with");
  return schema;
}

Json scenario_schema() {
  Json schema{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "https://sgdsim.invalid/scenario.schema.json"},
              {"title", "sgdsim scenario"}};
  Json top = object_of(
      {KeySpec::string("$schema", "the schema file, for editors").optional(),
       KeySpec::integer("schema_version", "scenario schema version", 1, 1, 1),
       KeySpec::string("name", "name in reports; default: the file name").optional(),
       KeySpec::string("description", "free text").optional(),
       KeySpec::string("trace", "trace file, relative to the scenario's folder"),
       KeySpec::choice("fidelity", "analytic, per_rank or flow (packet: the old name of flow)",
                       {"analytic", "per_rank", "flow", "packet"}, "analytic"),
       KeySpec::integer("iterations", "iterations simulated", 1, 100000, 10),
       KeySpec::integer("seed", "seed of every random draw", 0,
                        std::numeric_limits<std::int64_t>::max(), 1)},
      "a what-if scenario (scenarios/README.md)");
  top["properties"]["cluster"] = cluster_schema();
  top["properties"]["network"] = network_schema();
  top["properties"]["communication"] = communication_schema();
  top["properties"]["compute"] = compute_schema();
  top["properties"]["convergence"] = convergence_schema();
  top["properties"]["sweep"] = sweep_schema();
  std::vector<std::string> fifo_policies;
  for (const MergePolicyEntry& entry : merge_policy_registry().entries()) {
    if (!entry.priority) fifo_policies.push_back(entry.name);
  }
  top["properties"]["jobs"] =
      jobs_schema(top["properties"]["communication"]["properties"]["collective"],
                  Json{{"enum", fifo_policies},
                       {"description",
                        "its merge policy, one that sends in FIFO order (default: the scenario's "
                        "when it names one, else mgwfbp)"}});
  top["required"].push_back("cluster");
  // `network` may be left out by a job inside one node without dedicated servers: the reader
  // checks that (it depends on cluster.gpus, the node and the collective).
  top["properties"]["network"]["description"] =
      "the network between nodes; a job inside one node, without dedicated servers, may leave "
      "it out";
  // Without a node preset (whose NICs give a default), the network needs its bandwidth or a fit.
  top["if"] = {{"properties", {{"cluster", {{"not", {{"required", {"node"}}}}}}}}};
  top["then"] = {{"properties",
                  {{"network",
                    {{"anyOf", Json::array({Json{{"required", {"bandwidth_gbps"}}},
                                            Json{{"required", {"measured_allreduce"}}}})}}}}}};
  schema.update(top);
  return schema;
}

}  // namespace sgdsim
