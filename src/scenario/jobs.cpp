// Jobs sharing a fabric: read each as a scenario of its own, place them, run them together.
#include "sgdsim/scenario/jobs.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/rng.hpp"
#include "sgdsim/scenario/registry_reader.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/training/shared_fabric.hpp"

namespace sgdsim {

const std::vector<std::string>& job_placements() {
  static const std::vector<std::string> placements{"packed", "spread", "random", "shared"};
  return placements;
}

std::vector<std::vector<int>> place_jobs(const std::vector<int>& job_nodes, int fabric_nodes,
                                         int leaf_nodes, const std::string& placement,
                                         std::uint64_t seed, const std::string& where) {
  const bool shared = placement == "shared";
  const int needed = shared ? *std::max_element(job_nodes.begin(), job_nodes.end())
                            : std::accumulate(job_nodes.begin(), job_nodes.end(), 0);
  if (needed > fabric_nodes) {
    throw InputError(fmt::format(
        "{}: the jobs need {} nodes ({}), more than the fabric's {}; give a larger "
        "jobs.fabric_gpus or fewer GPUs",
        where, needed, shared ? "the largest job's, placed shared" : "every job's together",
        fabric_nodes));
  }
  std::vector<int> slots(static_cast<std::size_t>(fabric_nodes));
  std::iota(slots.begin(), slots.end(), 0);
  if (placement == "spread" && leaf_nodes > 0) {
    // Slot k on leaf k mod L, at its (k div L)-th node; a partly filled last leaf runs out first.
    const int leaves = (fabric_nodes + leaf_nodes - 1) / leaf_nodes;
    slots.clear();
    for (int position = 0; position < leaf_nodes; ++position) {
      for (int leaf = 0; leaf < leaves; ++leaf) {
        const int node = leaf * leaf_nodes + position;
        if (node < fabric_nodes) slots.push_back(node);
      }
    }
  } else if (placement == "random") {
    Rng rng(seed);  // Fisher-Yates with the project's generator: the same on every platform
    for (std::size_t i = slots.size(); i > 1; --i) {
      const std::size_t pick = static_cast<std::size_t>(rng.next_u64() % i);
      std::swap(slots[i - 1], slots[pick]);
    }
  }
  std::vector<std::vector<int>> nodes;
  std::size_t next = 0;
  for (const int count : job_nodes) {
    if (shared) next = 0;
    nodes.emplace_back(slots.begin() + static_cast<std::ptrdiff_t>(next),
                       slots.begin() + static_cast<std::ptrdiff_t>(next) + count);
    next += static_cast<std::size_t>(count);
  }
  return nodes;
}

namespace {

// The scenario's document as one job reads it: its own trace, GPUs, collective and policy on
// the scenario's cluster, data-parallel SGD alone (no other sections that compare or train).
nlohmann::json job_document(const ScenarioConfig& config, const std::string& name,
                            const nlohmann::json* trace, int gpus, const nlohmann::json* collective,
                            const std::string& policy) {
  nlohmann::json document = *config.document;
  for (const char* key : {"jobs", "sweep", "convergence"}) document.erase(key);
  document["name"] = name;
  if (trace != nullptr) {
    document["trace"] = *trace;
    // One GPU's measured throughput is the scenario's model's: a job of another trace keeps
    // its own times.
    if (document.contains("compute") && document["compute"].is_object()) {
      document["compute"].erase("single_gpu_samples_per_s");
    }
  }
  document["cluster"]["gpus"] = gpus;
  document["cluster"]["gpus_per_node"] = config.gpus_per_node;
  if (!document.contains("communication")) document["communication"] = nlohmann::json::object();
  nlohmann::json& communication = document["communication"];
  for (const char* key : {"averaging", "sharding", "compression", "compression_profile",
                          "concurrent_jobs", "allgather_gradients"}) {
    communication.erase(key);
  }
  if (collective != nullptr) communication["collective"] = *collective;
  communication["merge"]["policy"] = policy;
  document["fidelity"] = "flow";
  return document;
}

// A job's one merge policy: its `policy`, else `fallback`.
std::string read_policy(jsonio::ObjectReader& reader, const std::string& fallback) {
  const MergePolicyEntry& entry = reader.has("policy")
                                      ? read_member(reader, "policy", merge_policy_registry())
                                      : merge_policy_registry().at(fallback);
  if (entry.priority) {
    reader.fail("policy",
                "a policy that sends its messages in FIFO order (the next forward pass of a "
                "priority policy overlaps communication, which jobs sharing a fabric do not "
                "simulate)",
                entry.name);
  }
  return entry.name;
}

JobSpec read_job(const ScenarioConfig& config, const std::filesystem::path& base,
                 const std::string& path, const std::string& name, const nlohmann::json* trace,
                 int gpus, const nlohmann::json* collective, const std::string& policy,
                 Time start) {
  const jsonio::Document document{fmt::format("{} ({})", config.source, path),
                                  job_document(config, name, trace, gpus, collective, policy)};
  auto job = std::make_shared<ScenarioConfig>(read_scenario(document, base));
  // Parameter servers sit on the cluster, not among a job's GPUs; BytePS, even on one machine
  // without them, runs its partitions as a pipeline of stages, which a shared fabric does not
  // interleave with the other jobs' transfer programs.
  const bool servers = cluster_shape(*job).servers > 0;
  if (servers || job->collective->name == "byteps") {
    throw InputError(fmt::format(
        "{}: {}: the {} collective {}; jobs sharing a fabric run collectives among their own "
        "GPUs (ring_allreduce, halving_doubling, double_binary_tree, hierarchical)",
        config.source, path, job->collective->name,
        servers ? "puts parameter servers on the cluster"
                : "runs BytePS's pipeline of partitions, not transfers a fabric shares"));
  }
  return JobSpec{name, path, std::move(job), start};
}

}  // namespace

void read_jobs(jsonio::ObjectReader reader, ScenarioConfig& config,
               const std::filesystem::path& base) {
  const std::string where = fmt::format("{}: jobs", config.source);
  if (config.fidelity != "flow") {
    throw InputError(fmt::format(
        "{}: needs fidelity \"flow\" (only the flow level shares links between jobs)", where));
  }
  if (config.concurrent_jobs > 1) {
    throw InputError(fmt::format(
        "{}: with communication.concurrent_jobs; list the identical jobs in jobs.with instead "
        "(placement \"shared\" puts them on the same nodes)",
        where));
  }
  JobsSpec spec;
  spec.placement = reader.choice_or("placement", job_placements(), "packed");
  spec.seed = static_cast<std::uint64_t>(reader.integer_in_or(
      "seed", 0, std::numeric_limits<std::int64_t>::max(), static_cast<std::int64_t>(config.seed)));
  // The scenario's own policy where it names one (its default is every policy), else MG-WFBP;
  // the other jobs' default to it.
  const std::string own_policy = read_policy(
      reader, config.policies.size() == 1 ? config.policies.front().name() : std::string("mgwfbp"));
  spec.jobs.push_back(read_job(config, base, "jobs", config.name, nullptr, config.gpus, nullptr,
                               own_policy, Time::zero()));
  const nlohmann::json& list = reader.value("with");
  if (!list.is_array() || list.empty()) {
    reader.fail("with",
                "a non-empty array of jobs ({name, trace, gpus, collective, policy, start_ms})",
                list);
  }
  if (list.size() > max_other_jobs) {
    reader.fail("with", fmt::format("at most {} jobs besides the scenario's own", max_other_jobs),
                list.size());
  }
  for (std::size_t index = 0; index < list.size(); ++index) {
    const std::string path = jsonio::element_path(reader.path_of("with"), index);
    jsonio::ObjectReader item(list[index], reader.source(), path);
    const std::string name = item.text_or("name", fmt::format("job {}", index + 1));
    const nlohmann::json* trace = item.has("trace") ? &item.value("trace") : nullptr;
    const auto gpus = static_cast<int>(item.integer_in("gpus", 1, max_flow_gpus));
    if (gpus % config.gpus_per_node != 0) {
      item.fail("gpus",
                fmt::format("a multiple of the cluster's {} GPUs per node (jobs take whole nodes)",
                            config.gpus_per_node),
                gpus);
    }
    const nlohmann::json* collective = item.has("collective") ? &item.value("collective") : nullptr;
    const std::string policy = read_policy(item, own_policy);
    const Time start =
        item.duration_us("start_ms", item.non_negative_number_or("start_ms", 0.0) * 1000.0);
    item.reject_unknown_keys();
    spec.jobs.push_back(read_job(config, base, path, name, trace, gpus, collective, policy, start));
  }
  int total = 0;
  int largest = 0;
  for (const JobSpec& job : spec.jobs) {
    total += job.config->gpus;
    largest = std::max(largest, job.config->gpus);
  }
  const int fallback = spec.placement == "shared" ? largest : total;
  spec.fabric_gpus =
      static_cast<int>(reader.integer_in_or("fabric_gpus", 1, max_flow_gpus, fallback));
  if (spec.fabric_gpus % config.gpus_per_node != 0) {
    reader.fail("fabric_gpus",
                fmt::format("a multiple of the cluster's {} GPUs per node", config.gpus_per_node),
                spec.fabric_gpus);
  }
  reader.reject_unknown_keys();
  std::vector<int> job_nodes;
  for (const JobSpec& job : spec.jobs) job_nodes.push_back(job.config->gpus / config.gpus_per_node);
  // Placed once here so that a fabric too small is an input error before anything runs.
  place_jobs(job_nodes, spec.fabric_gpus / config.gpus_per_node, config.leaf_nodes, spec.placement,
             spec.seed, where);
  config.jobs = std::move(spec);
}

double JobOutcome::slowdown() const {
  return shared.mean_iteration().seconds() / alone.mean_iteration().seconds();
}

Time JobOutcome::communication() const {
  Time busy;
  std::int64_t iterations = 0;
  for (const IterationTimeline& iteration : shared.iterations) {
    for (const ScheduledMessage& message : iteration.messages) busy += message.end - message.start;
    ++iterations;
  }
  return iterations == 0 ? Time::zero() : Time::from_ps(busy.ps() / iterations);
}

namespace {

// One job's messages as the fabric runs them: its merge plan over its profile, each message's
// programs (chunked as the job calls its collective) moved from the job's own cluster onto its
// nodes of the fabric, and the framework's cost per collective call as local work, once per
// program as as_called() adds it to each allreduce and gather.
FabricJob fabric_job(const ScenarioConfig& job, const ScenarioResult& own, const Topology& fabric,
                     const std::vector<int>& nodes) {
  const PolicyOutcome& outcome = own.outcomes.front();
  const BackwardProfile& profile = profile_of(own, outcome);
  const std::shared_ptr<const Collective> called =
      as_called(make_collective(job), job, own.call_overhead);
  const TransferPrograms* programs = called->programs();
  SGDSIM_ASSERT(programs != nullptr, "a flow-level job's collective has transfer programs");
  const Topology cluster = Topology::build(cluster_shape(job));
  const auto unplaced = static_cast<Topology::Vertex>(-1);
  std::vector<Topology::Vertex> onto(boost::num_vertices(cluster.graph()), unplaced);
  const int per_node = job.gpus_per_node;
  for (int rank = 0; rank < job.gpus; ++rank) {
    onto[cluster.gpu(rank)] =
        fabric.gpu(nodes[static_cast<std::size_t>(rank / per_node)] * per_node + rank % per_node);
  }
  FabricJob fabric_job{profile.forward, profile.backward,        profile.optimizer, {}, {},
                       job.iterations,  outcome.overlap_slowdown};
  Time previous_ready;
  for (const MessageGroup& group : outcome.plan) {
    FabricMessage message;
    message.group = group;
    message.bytes = group_bytes(profile, group);
    previous_ready = std::max(previous_ready, group_ready(profile, group));
    message.ready = previous_ready;
    const GatheredBytes gathered = group_gathered(profile, group);
    if (gathered.contribution.count() == 0 || message.bytes.count() > 0) {
      message.programs.push_back(programs->program(message.bytes));
    }
    if (gathered.contribution.count() > 0) {
      message.programs.push_back(programs->gather_program(gathered.contribution, gathered.dense));
    }
    for (TransferProgram& program : message.programs) {
      for (TransferStep& step : program) {
        for (Transfer& transfer : step.transfers) {
          transfer.from = onto[transfer.from];
          transfer.to = onto[transfer.to];
          SGDSIM_ASSERT(transfer.from != unplaced && transfer.to != unplaced,
                        "a job's transfers run between its own GPUs");
        }
      }
    }
    message.local = own.call_overhead * static_cast<std::int64_t>(message.programs.size());
    fabric_job.messages.push_back(std::move(message));
  }
  return fabric_job;
}

// Per job, the jobs whose links it shares (links sorted, as links_crossed gives them).
std::vector<std::vector<std::size_t>> link_partners(const std::vector<std::vector<int>>& links) {
  std::vector<std::vector<std::size_t>> partners(links.size());
  for (std::size_t a = 0; a < links.size(); ++a) {
    for (std::size_t b = a + 1; b < links.size(); ++b) {
      std::vector<int> common;
      std::set_intersection(links[a].begin(), links[a].end(), links[b].begin(), links[b].end(),
                            std::back_inserter(common));
      if (common.empty()) continue;
      partners[a].push_back(b);
      partners[b].push_back(a);
    }
  }
  for (std::vector<std::size_t>& list : partners) std::sort(list.begin(), list.end());
  return partners;
}

// The jobs in groups joined by shared links (connected through partners), each group in job
// order.
std::vector<std::vector<std::size_t>> contention_groups(
    const std::vector<std::vector<std::size_t>>& partners) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<char> placed(partners.size(), 0);
  for (std::size_t first = 0; first < partners.size(); ++first) {
    if (placed[first]) continue;
    std::vector<std::size_t> group{first};
    placed[first] = 1;
    for (std::size_t next = 0; next < group.size(); ++next) {
      for (const std::size_t other : partners[group[next]]) {
        if (!placed[other]) {
          placed[other] = 1;
          group.push_back(other);
        }
      }
    }
    std::sort(group.begin(), group.end());
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

void run_jobs(ScenarioResult& result, bool one_network) {
  result.jobs.clear();
  const ScenarioConfig& config = result.config;
  const JobsSpec& spec = *config.jobs;
  ClusterShape shape = cluster_shape(config);
  shape.gpus = spec.fabric_gpus;
  shape.servers = 0;
  const Topology fabric = Topology::build(shape);
  std::vector<int> job_nodes;
  for (const JobSpec& job : spec.jobs) job_nodes.push_back(job.config->gpus / config.gpus_per_node);
  const std::vector<std::vector<int>> nodes =
      place_jobs(job_nodes, shape.nodes(), config.leaf_nodes, spec.placement, spec.seed,
                 config.source + ": jobs");
  std::vector<FabricJob> fabric_jobs;
  std::vector<std::vector<int>> links;
  std::vector<int> batches;
  for (std::size_t j = 0; j < spec.jobs.size(); ++j) {
    const JobSpec& job = spec.jobs[j];
    const ScenarioResult own = run_scenario(*job.config);
    batches.push_back(own.workload.batch_size * job.config->accumulation_steps);
    fabric_jobs.push_back(fabric_job(*job.config, own, fabric, nodes[j]));
    fabric_jobs.back().start = job.start;
    links.push_back(links_crossed(fabric, fabric_jobs.back()));
    JobOutcome outcome;
    outcome.name = job.name;
    outcome.trace = job.config->trace_reference;
    outcome.model = own.workload.model;
    outcome.batch_size = own.workload.batch_size;
    outcome.gradient_bytes = own.outcomes.front().breakdown.gradient_bytes.count();
    outcome.bytes_sent_per_gpu = own.outcomes.front().bytes_sent_per_gpu;
    outcome.gpus = job.config->gpus;
    outcome.nodes = nodes[j];
    outcome.collective = own.collective_name;
    outcome.policy = own.outcomes.front().policy;
    outcome.start = job.start;
    outcome.messages = static_cast<int>(own.outcomes.front().plan.size());
    outcome.compute = profile_of(own, own.outcomes.front()).compute();
    result.jobs.push_back(std::move(outcome));
  }
  const std::vector<std::vector<std::size_t>> partners = link_partners(links);
  std::vector<std::vector<std::size_t>> groups = contention_groups(partners);
  if (one_network) {
    groups.assign(1, std::vector<std::size_t>(fabric_jobs.size()));
    std::iota(groups.front().begin(), groups.front().end(), std::size_t{0});
  }
  // Each job alone on its nodes; then each group of jobs that share links together (a job in a
  // group of its own runs as alone).
  for (std::size_t j = 0; j < fabric_jobs.size(); ++j) {
    result.jobs[j].alone = simulate_shared_fabric(fabric, {&fabric_jobs[j]}, {false}).front();
  }
  for (const std::vector<std::size_t>& group : groups) {
    if (group.size() == 1 && !one_network) {
      result.jobs[group.front()].shared = result.jobs[group.front()].alone;
      continue;
    }
    std::vector<const FabricJob*> together;
    for (const std::size_t k : group) together.push_back(&fabric_jobs[k]);
    std::vector<SimulationResult> runs =
        simulate_shared_fabric(fabric, together, std::vector<bool>(group.size(), true));
    for (std::size_t m = 0; m < group.size(); ++m) {
      result.jobs[group[m]].shared = std::move(runs[m]);
    }
  }
  for (std::size_t j = 0; j < result.jobs.size(); ++j) {
    JobOutcome& outcome = result.jobs[j];
    for (const std::size_t k : partners[j]) outcome.contends_with.push_back(result.jobs[k].name);
    outcome.scaling =
        scaling(outcome.shared.mean_iteration(), outcome.compute, outcome.gpus, batches[j]);
  }
  result.fabric_gpus = spec.fabric_gpus;
}

}  // namespace sgdsim
