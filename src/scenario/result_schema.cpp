// The result file's JSON Schema: see result_schema.hpp. It mirrors report.cpp's result_json,
// rank_spread.cpp and provenance.cpp field for field; tests/outputs_test.py validates the
// example scenarios' results against it.
#include "sgdsim/scenario/result_schema.hpp"

#include <string>
#include <utility>
#include <vector>

#include "sgdsim/scenario/report.hpp"
#include "sgdsim/training/sharding.hpp"

namespace sgdsim {

namespace {

using Json = nlohmann::ordered_json;

// A field: its JSON type(s) (a "null" among them: absent from that result) and its meaning.
struct Field {
  std::string name;
  Json schema;
  bool always = true;  // false: absent where it does not apply (not required)
};

Json typed(Json type, std::string description) {
  return {{"type", std::move(type)}, {"description", std::move(description)}};
}
Json number(std::string description) {
  return typed("number", std::move(description));
}
Json integer(std::string description) {
  return typed("integer", std::move(description));
}
Json text(std::string description) {
  return typed("string", std::move(description));
}
Json or_null(const char* type, std::string description) {
  return typed(Json::array({type, "null"}), std::move(description));
}

Json object(std::vector<Field> fields, std::string description, bool nullable = false) {
  Json schema{{"type", nullable ? Json::array({"object", "null"}) : Json("object")},
              {"description", std::move(description)},
              {"properties", Json::object()}};
  Json required = Json::array();
  for (Field& field : fields) {
    if (field.always) required.push_back(field.name);
    schema["properties"][field.name] = std::move(field.schema);
  }
  schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

Json array(Json items, std::string description) {
  return {{"type", "array"}, {"description", std::move(description)}, {"items", std::move(items)}};
}

Json message_schema() {
  return object(
      {{"layers", text("the units whose gradients the message carries, \"first..last\" by name "
                       "(layers, or gradient tensors where the policy's merge_units are tensors)")},
       {"first_layer", integer("index of the message's first unit: a layer in BACKWARD order (0 "
                               "is the model's last layer, whose gradient is ready first), or, "
                               "where merge_units is \"tensors\", a gradient tensor in "
                               "readiness order")},
       {"last_layer", integer("index of its last unit, in the same order (>= first_layer)")},
       {"bytes", integer("bytes on the wire for one GPU's contribution")},
       {"ready_us", number("when its last gradient is ready, in us from the start of backward "
                           "(of the slowest rank at per_rank fidelity)")},
       {"start_us", number("when it starts on the communication stream, us from backward start")},
       {"end_us", number("when it ends, us from backward start")}},
      "one message of the last simulated iteration");
}

Json policy_schema() {
  return object(
      {{"policy", text("merge policy name (sgdsim list policies)")},
       {"label", text("policy and compressor as the table prints them")},
       {"compression", text("compressor label, \"none\" without compression")},
       {"merge_units",
        text("what the merge plan groups: \"layers\" or \"tensors\" (each "
             "gradient tensor in readiness order: communication.merge.granularity)")},
       {"error_feedback_bytes", integer("residual memory per GPU a biased compressor needs")},
       {"compressor_delta", or_null("number",
                                    "delta of the compressor's class B3(delta) over the "
                                    "whole model; null for unbiased compressors")},
       {"compressor_omega", or_null("number", "variance factor omega of an unbiased compressor")},
       {"time_to_target_us", or_null("number",
                                     "iterations_to_target x iteration_us, when the "
                                     "scenario gives iterations to target")},
       {"iteration_us", number("mean iteration time over the simulated iterations, us")},
       {"samples_per_second", number("samples per second over all GPUs")},
       {"tokens_per_second", or_null("number",
                                     "samples_per_second x sequence_length; null when "
                                     "the trace is not of a sequence model")},
       {"speedup", number("samples/s over one GPU's (single_gpu_iteration_us)")},
       {"scaling_efficiency", number("speedup / GPUs, 0 to 1")},
       {"compute_us", number("forward + backward + update per iteration, us")},
       {"communication_us", number("time the communication stream is busy per iteration, us")},
       {"exposed_communication_us", number("communication not hidden behind compute, us")},
       {"overlapped_communication_us", number("communication hidden behind backward, us")},
       {"overlap_slowdown",
        number("compute's slowdown beside this policy's collectives as run: 1 / (1 - f + f / "
               "S), S the slowdown beside kernels (compute.overlap_slowdown, unstated Lee et "
               "al.'s average, 1.189) and f kernel_share")},
       {"kernel_share",
        number("f: the share of the communication stream's busy time that GPU kernels run, as "
               "the slowdown was worked out from: exactly 1 for NCCL's collectives and BytePS on "
               "one machine in one group, 0 for parameter servers and on one GPU; for BytePS "
               "across machines or PCIe switches, its NCCL stages' share measured on the last "
               "iteration of a first run at its largest message's share alone (that share where "
               "the two agree within 0.001)")},
       {"messages", integer("messages per iteration (merge groups)")},
       {"simulated_events", integer("engine events (or rank-steps at per_rank) simulated")},
       {"gradient_bytes", integer("gradient bytes of the model per iteration")},
       {"bytes_sent_per_gpu", number("bytes each GPU sends per iteration")},
       {"per_rank",
        object({{"iteration_p50_us", number("median iteration (nearest rank), us")},
                {"iteration_p99_us", number("99th-percentile iteration (nearest rank), us")},
                {"iteration_max_us", number("slowest iteration, us")},
                {"slowest_rank", integer("the rank that ended backward last most often")},
                {"slowest_rank_share", number("share of iterations it did, 0 to 1")}},
               "distribution of iteration times over the simulated iterations, and the "
               "straggler; null except at per_rank fidelity",
               true)},
       {"message_breakdown", array(message_schema(), "messages in the order they were sent")}},
      "one merge policy (with one compressor)");
}

Json averaging_schema() {
  const Json schedule =
      object({{"schedule", text("schedule label (sgdsim list schedules)")},
              {"rounds", integer("averaging rounds over the run")},
              {"averaging_iterations",
               array(typed("integer", "iteration, 1-based"), "iterations followed by a round")},
              {"local_iteration_us", number("an iteration without communication, us")},
              {"averaging_iteration_us", number("an iteration followed by a round, us")},
              {"total_us", number("the whole run, us")},
              {"bytes_sent_per_gpu", number("over the whole run")},
              {"speedup_vs_full_sgd", number("full-communication SGD's total over this total")},
              {"iterations_to_target", integer("iterations to the target"), false},
              {"time_to_target_us", number("simulated time to the target, us"), false},
              {"target_source",
               {{"enum", {"given", "convergence"}},
                {"description",
                 "iterations from the scenario's iterations_to_target, "
                 "or from the convergence run of the same label"}},
               false}},
             "one averaging schedule");
  return object({{"run_iterations", integer("iterations of the run the rounds are placed in")},
                 {"baseline", text("the full-communication SGD policy (the fastest one)")},
                 {"schedules", array(schedule, "in the scenario's order")}},
                "averaging schedules over a run; null without communication.averaging", true);
}

Json sharding_result_schema() {
  const auto memory = [](std::string description) {
    return object({{"parameters_bytes", number("parameters held, bytes")},
                   {"gradients_bytes", number("gradients held, bytes")},
                   {"optimizer_bytes", number("optimizer state held, bytes")},
                   {"at_rest_bytes", number("the three at rest, bytes")},
                   {"peak_bytes", number("at rest plus the units gathered at once, bytes")}},
                  std::move(description));
  };
  const Json phase = object({{"busy_us", number("time on the stream per iteration, us")},
                             {"exposed_us", number("time compute waited for it, us")},
                             {"bytes_sent_per_gpu", number("per iteration")}},
                            "one phase's collectives");
  Json phases = object({{"forward_allgather", phase},
                        {"backward_allgather", phase},
                        {"reduce_scatter", phase},
                        {"replica_allreduce", phase},
                        {"allgather_after_step", phase}},
                       "per phase, means per iteration");
  const Json operation =
      object({{"phase", text("forward allgather, backward allgather, reduce-scatter, replica "
                             "allreduce or allgather after step")},
              {"unit", integer("the unit (or bucket); -1: the root")},
              {"bytes", integer("the buffer, bytes")},
              {"start_us", number("from the iteration's start, us")},
              {"end_us", number("from the iteration's start, us")}},
             "one collective of the last iteration");
  const Json strategy = object({{"strategy", text("its name (communication.sharding.strategy)")},
                                {"label", text("as the table prints it")},
                                {"group_gpus", integer("GPUs one parameter is sharded over")},
                                {"iteration_us", number("mean iteration, us")},
                                {"samples_per_second", number("throughput of the cluster")},
                                {"speedup", number("against one GPU")},
                                {"efficiency", number("speedup over GPUs")},
                                {"phases", std::move(phases)},
                                {"memory", memory("model states per GPU")},
                                {"operations", array(operation, "in stream order")}},
                               "one sharding strategy");
  const Json unit = object({{"name", text("the layers' common prefix")},
                            {"parameters", integer("parameters in the unit")}},
                           "one unit, gathered as one flat parameter");
  return object({{"parameters", integer("parameters of the model")},
                 {"root_parameters", integer("parameters of the layers in no unit")},
                 {"units", array(unit, "in forward order")},
                 {"parameter_bytes", integer("bytes per parameter and gradient element")},
                 {"optimizer_state_bytes", number("bytes of optimizer state per parameter")},
                 {"forward_prefetch", integer("units gathered ahead of forward")},
                 {"backward_prefetch", integer("units gathered ahead of backward")},
                 {"limit_all_gathers", integer("units gathered at once at most; 0: no limit")},
                 {"passes", integer("forward and backward passes per step (accumulation)")},
                 {"accumulation",
                  {{"enum", accumulation_modes()},
                   {"description", "FSDP's gradients reduced every pass, or the last only"}}},
                 {"replicated_memory", memory("replicated data parallelism (DDP), for comparison")},
                 {"strategies", array(strategy, "in the scenario's order")}},
                "sharded data parallelism; null without communication.sharding", true);
}

Json jobs_result_schema() {
  const Json iteration = object({{"start_us", number("on the shared clock, us")},
                                 {"end_us", number("on the shared clock, us")}},
                                "one iteration, shared");
  const Json job =
      object({{"name", text("as the scenario names it (its own: the scenario's name)")},
              {"trace", text("its trace, as the scenario names it")},
              {"gpus", integer("its GPUs")},
              {"nodes", array(integer("a node of the fabric"), "its nodes, in its ranks' order")},
              {"collective", text("its collective")},
              {"policy", text("its merge policy")},
              {"start_us", number("its first iteration's start, us")},
              {"messages", integer("messages per iteration")},
              {"alone_iteration_us", number("mean iteration by itself on its nodes, us")},
              {"iteration_us", number("mean iteration with every job, us")},
              {"slowdown", number("iteration_us over alone_iteration_us")},
              {"samples_per_second", number("its throughput, shared")},
              {"speedup", number("against one GPU, shared")},
              {"efficiency", number("speedup over its GPUs")},
              {"communication_us", number("its stream's busy time per iteration, shared, us")},
              {"contends_with", array(text("a job's name"),
                                      "the jobs whose flows cross a link "
                                      "its flows cross")},
              {"iterations", array(iteration, "the first 1,000")}},
             "one job");
  return object({{"fabric_gpus", integer("the fabric's GPUs")},
                 {"placement", text("packed, spread, random or shared")},
                 {"seed", integer("random placement's seed")},
                 {"jobs", array(job, "the scenario's own first, then jobs.with in order")}},
                "jobs sharing the fabric; null without a jobs section", true);
}

Json convergence_schema() {
  const Json point = object(
      {{"iteration", integer("iterations trained, 0 before training")},
       {"time_us", number("simulated wall time at its end, us")},
       {"loss", number("workers' mean mini-batch loss"), false},
       {"variance", number("variance of the parameters across workers"), false},
       {"test_accuracy", number("accuracy on the test set, 0 to 1"), false},
       {"test_loss", number("loss on the test set"), false},
       {"bits_sent", number("bits one GPU of the timed model sent so far (never the proxy task's)"),
        false}},
      "one evaluation");
  const Json seed_run = object(
      {{"seed", integer("the engine's seed")},
       {"iterations_to_target", or_null("integer", "first evaluation that met the target")},
       {"time_to_target_us", or_null("number", "simulated time to the target, us")},
       {"final_test_accuracy", or_null("number", "at the last evaluation")},
       {"bits_to_target", or_null("number", "bits one GPU of the timed model sent to the target")},
       {"rounds_to_target", or_null("integer",
                                    "local SGD: averaging rounds among the iterations to the "
                                    "target")}},
      "one seed's run");
  const auto or_null_interval = [](std::string description) {
    return object({{"samples", integer("seeds")},
                   {"mean", number("their mean")},
                   {"low", number("the 95% interval's lower end (Student's t)")},
                   {"high", number("its upper end")}},
                  std::move(description), true);
  };
  const Json configuration = object(
      {{"label", text("configuration: a compressor's or a schedule's label")},
       {"iterations_to_target", or_null("integer", "first evaluation that met the target")},
       {"iteration_us", number("simulated iteration time, us (mean over the run; the variance "
                               "rule's: over its first seed's trained iterations)")},
       {"bits_per_iteration",
        number("bits one GPU of the timed model sends per iteration (mean, as iteration_us)")},
       {"message_bits_per_iteration",
        number("the compressed gradient's own bits at the timed model's d per iteration (a "
               "worker's message to a parameter server; local SGD: the model per round, spread "
               "over the run)")},
       {"time_to_target_us", or_null("number", "simulated time to the target, us")},
       {"final_test_accuracy", or_null("number", "at the last evaluation")},
       {"final_test_loss", or_null("number", "at the last evaluation")},
       {"averaging_rounds", integer("averaging rounds taken")},
       {"measured_delta",
        or_null("number", "compression error factor delta measured on the proxy's gradients")},
       {"measured_omega",
        or_null("number", "variance factor omega measured on the proxy's gradients")},
       {"bound_delta", or_null("number", "delta the compressor guarantees at the proxy's d")},
       {"bound_omega", or_null("number", "omega the compressor guarantees at the proxy's d")},
       {"timed_bound_delta",
        or_null("number", "delta the compressor guarantees at the timed model's d")},
       {"timed_bound_omega",
        or_null("number", "omega the compressor guarantees at the timed model's d")},
       {"seeds", array(seed_run, "one run per seed, in seed order")},
       {"seconds_to_target",
        or_null_interval("simulated seconds to the target over the seeds; null unless "
                         "every seed reached it")},
       {"iterations_to_target_interval",
        or_null_interval("iterations to the target over the seeds; null unless every "
                         "seed reached it")},
       {"final_test_accuracy_interval", or_null_interval("final test accuracy over the seeds")},
       {"bits_to_target_interval",
        or_null_interval("bits one GPU of the timed model sent to the target over the seeds; "
                         "null unless every seed reached it")},
       {"curve", array(point, "the first seed's evaluations in iteration order")}},
      "one trained (or measured) configuration");
  return object({{"task", text("convergence task (the proxy), or \"measured\"")},
                 {"data", text("where its data came from")},
                 {"proxy_parameters", integer("the proxy task's parameters (0 for measured)")},
                 {"timed_model", text("the model the simulation times (its trace's)")},
                 {"timed_gradient_elements",
                  integer("the timed model's gradient elements: the d of bits and densities")},
                 {"workers", integer("logical workers trained")},
                 {"batch", integer("samples per worker per iteration")},
                 {"learning_rate", number("learning rate")},
                 {"learning_rate_schedule",
                  object({{"decay",
                           {{"enum", convergence::learning_rate_decays()},
                            {"description", "how the rate decays"}}},
                          {"warmup", integer("iterations of linear warm-up")},
                          {"milestones", array(integer("an iteration"), "step decay's milestones")},
                          {"gamma", number("step decay's factor per milestone")}},
                         "the learning rate per iteration")},
                 {"momentum", number("heavy-ball momentum")},
                 {"weight_decay", number("l2 weight decay")},
                 {"seeds", integer("runs per configuration (1 for measured curves)")},
                 {"first_to_target",
                  array(text("a configuration's label"),
                        "the configurations sharing first place to the target (the lowest mean "
                        "time and every one whose 95% interval overlaps it); empty where none "
                        "reached it in every seed")},
                 {"target", {{"enum", {"accuracy", "loss"}}, {"description", "target metric"}}},
                 {"target_value", number("target test accuracy or loss")},
                 {"configurations", array(configuration, "in label order")}},
                "time to accuracy; null without a convergence section", true);
}

// A range's fields, then the fastest policy's iteration as run and at the range's two ends.
std::vector<Field> with_fastest(std::vector<Field> fields, std::string low, std::string high) {
  fields.push_back(
      {"fastest_iteration_us", number("the fastest policy's mean iteration as run, us")});
  fields.push_back({"fastest_iteration_low_us", number(std::move(low))});
  fields.push_back({"fastest_iteration_high_us", number(std::move(high))});
  return fields;
}

Json node_range_schema() {
  return object(
      with_fastest({{"gpus_per_node", integer("GPUs per node of the scenario")},
                    {"presets", array(text("a preset"), "the node presets of that size")},
                    {"assumed_gbps", number("the intra-node link the scenario ran on, Gbit/s")},
                    {"low_gbps", number("the slowest preset's rings, Gbit/s per GPU")},
                    {"low_preset", text("that preset")},
                    {"high_gbps", number("the fastest preset's rings, Gbit/s per GPU")},
                    {"high_preset", text("that preset")}},
                   "the same on the slowest preset's node, us",
                   "the same on the fastest preset's node, us"),
      "sgdsim run only: a scenario with several GPUs per node that names no node (nor an "
      "intra-node bandwidth or fit), run again at both ends of the node presets of its size; "
      "null otherwise",
      true);
}

Json transport_range_schema() {
  return object(
      with_fastest(
          {{"transport", text("the scenario's transport")},
           {"connections", integer("connections a transfer spreads over")},
           {"assumed_gbps", number("the transport's default rate per connection, Gbit/s")},
           {"low_gbps", number("the low end of what one connection plausibly reaches, Gbit/s")},
           {"high_gbps", number("the high end, Gbit/s")},
           {"network_gbps", number("the network's rate as run, Gbit/s")},
           {"network_low_gbps", number("the network's rate at the low end, Gbit/s")},
           {"network_high_gbps", number("the network's rate at the high end, Gbit/s")}},
          "the same at the low end, us", "the same at the high end, us"),
      "sgdsim run only: a scenario whose transport caps each connection at its default (no "
      "flow_cap_gbps given), run again at both ends of what one connection plausibly reaches, "
      "where that moves the network's rate; null otherwise (sweeps and the Python API do not "
      "compute it)",
      true);
}

Json host_read_range_schema() {
  return object(
      with_fastest(
          {{"assumed",
            number("the GPUs' reads of host memory as a fraction of their writes, as run")},
           {"low", number("the low end of that fraction's plausible range")},
           {"high", number("the high end")},
           {"intra_node_gbps", number("the intra-node link as run, Gbit/s")},
           {"intra_node_low_gbps", number("the intra-node link at the low end, Gbit/s")},
           {"intra_node_high_gbps", number("the intra-node link at the high end, Gbit/s")},
           {"network_gbps", or_null("number",
                                    "the network's rate as run, Gbit/s; null for a "
                                    "job inside one node without a network")},
           {"network_low_gbps", or_null("number", "the network's rate at the low end, Gbit/s")},
           {"network_high_gbps", or_null("number", "the network's rate at the high end, Gbit/s")},
           {"server_gbps",
            number("a dedicated server's default link under the transport's cap, as run, Gbit/s "
                   "(parameter servers and BytePS; 0 otherwise)")},
           {"server_low_gbps", number("that link at the low end, Gbit/s")},
           {"server_high_gbps", number("that link at the high end, Gbit/s")}},
          "the same at the low end, us", "the same at the high end, us"),
      "sgdsim run only: a scenario whose node copies through host memory (rings without P2P, "
      "NICs without GPUDirect RDMA) and that gives no cluster.host_read_efficiency, run again "
      "with the GPUs' reads of host memory at both ends of their plausible range, where that "
      "moves the intra-node link or the network; null otherwise (sweeps and the Python API do "
      "not compute it)",
      true);
}

Json overlap_range_schema() {
  return object(
      with_fastest(
          {{"assumed", number("the slowdown of compute beside the collectives' kernels as run: "
                              "its default, 1.189, Lee et al.'s average beside NCCL's (each "
                              "policy's over its kernels' share, as run)")},
           {"low", number("at the range's low end: 1, the GPU at full speed")},
           {"high", number("at its high end: 1.40, Lee et al.'s maximum (each "
                           "policy's over its kernels' share)")}},
          "the same at the low end, us", "the same at the high end, us"),
      "sgdsim run only: a scenario without compute.overlap_slowdown, run again with compute at "
      "full speed and at public profiles' maximum slowdown beside its collectives, where that "
      "moves the fastest policy's iteration by 0.5% or more (the merge policies only, beside "
      "sharding too); null otherwise (per_rank fidelity, jobs, sweeps and the Python API do "
      "not compute it)",
      true);
}

Json combined_range_schema() {
  return object(
      with_fastest({{"facts", array(text("the key that states it"),
                                    "the unstated facts whose ranges are above")}},
                   "every fact at the end of its range that made it faster, together, us",
                   "every fact at its slower end, together, us"),
      "sgdsim run only: where two or more of node_range, transport_range, host_read_range and "
      "overlap_range are present, the scenario run again with all of those facts at their "
      "faster ends together and at their slower ends together; null otherwise",
      true);
}

Json provenance_schema() {
  const Json input = object({{"path", text("as the scenario reached it")},
                             {"bytes", integer("size")},
                             {"sha256", text("SHA-256 of its bytes, lower-case hex")}},
                            "one input file");
  return object(
      {{"sgdsim_version", text("sgdsim's version")},
       {"commit", text("git commit it was built from (\"-dirty\": with local changes), or "
                       "\"unknown\"")},
       {"inputs", array(input,
                        "the scenario file, its trace, compression profile and measured "
                        "curves (a convergence data set is named in convergence.data)")},
       {"scenario",
        {{"type", "object"},
         {"description", "the scenario as read (scenarios/scenario.schema.json)"}}},
       {"resolved",
        {{"type", "object"},
         {"description",
          "the main values the simulation used, presets and transports applied and defaults "
          "filled in: trace, cluster, network (bandwidth as set, goodput, latency, transport; null "
          "for a job inside one node without one), "
          "collective, merge policies, compressions, schedules, compute heterogeneity, "
          "fidelity, iterations, seed; the rest is in the scenario as read"}}}},
      "where the result comes from");
}

}  // namespace

nlohmann::ordered_json result_schema() {
  Json schema = object(
      {{"format", {{"const", "sgdsim-result"}, {"description", "file format"}}},
       {"schema_version", {{"const", result_schema_version}, {"description", "of this format"}}},
       {"scenario", text("scenario name")},
       {"scenario_file", text("scenario file as given")},
       {"model", text("the trace's model")},
       {"trace_method", text("how the trace was made: captured, estimated, imported")},
       {"batch_size", integer("samples per GPU per iteration")},
       {"sequence_length", or_null("integer", "tokens per sample of a sequence model")},
       {"gpus", integer("GPUs simulated")},
       {"gpus_per_node", integer("GPUs per node")},
       {"collective", text("collective as the table describes it")},
       {"bandwidth_gbps", or_null("number",
                                  "the network link as the scenario set it, Gbit/s; null for a "
                                  "job inside one node that gives no network")},
       {"goodput_gbps", or_null("number",
                                "what a transfer reaches of it after the transport, Gbit/s; null "
                                "without a network")},
       {"latency_us", or_null("number",
                              "per-message latency, transport overhead included, us; "
                              "null without a network")},
       {"collective_startup_us", number("alpha of the collective's t(S) = alpha + beta S, us")},
       {"collective_ns_per_byte", number("beta of t(S), ns per byte")},
       {"framework_iteration_overhead_us", number("framework time added per iteration, us")},
       {"framework_message_overhead_us", number("framework time added per message, us")},
       {"overlap_slowdown",
        number("compute's slowdown beside the kernels that run the collectives "
               "(compute.overlap_slowdown, or its default, 1.189, Lee et al.'s average beside "
               "NCCL's); each policy's as run, over its kernels' share, is its own "
               "overlap_slowdown")},
       {"fidelity", {{"enum", {"analytic", "per_rank", "flow"}}, {"description", "level"}}},
       {"iterations", integer("iterations simulated")},
       {"seed", integer("random seed")},
       {"single_gpu_iteration_us", number("one GPU's iteration: compute only, us")},
       {"policies", array(policy_schema(), "one per merge policy and compressor")},
       {"averaging", averaging_schema()},
       {"sharding", sharding_result_schema()},
       {"jobs", jobs_result_schema()},
       {"convergence", convergence_schema()},
       {"node_range", node_range_schema()},
       {"transport_range", transport_range_schema()},
       {"host_read_range", host_read_range_schema()},
       {"overlap_range", overlap_range_schema()},
       {"combined_range", combined_range_schema()},
       {"provenance", provenance_schema()}},
      "sgdsim run --json: the result of one scenario");
  Json out{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
           {"$id", "https://sgdsim.invalid/result.schema.json"},
           {"title", "sgdsim result"}};
  for (auto& [key, value] : schema.items()) out[key] = value;
  return out;
}

}  // namespace sgdsim
