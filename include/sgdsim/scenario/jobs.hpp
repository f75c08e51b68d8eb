// Training jobs that share a fabric (the scenario's `jobs` section, flow fidelity only): the
// scenario's own job and the jobs it lists, each read as a scenario of its own on the scenario's
// cluster (its trace, GPUs, collective, one merge policy), placed on whole nodes of a fabric of
// `fabric_gpus` GPUs, and run together from their start times (training/shared_fabric.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

// The jobs a `jobs` section may list besides the scenario's own (64 in all, as
// communication.concurrent_jobs): the groups that share links are found pairwise.
inline constexpr std::size_t max_other_jobs = 63;

// The fabric's nodes each job runs on (`job_nodes[j]` of them), in job order and in each job's
// rank order:
// - packed: consecutive nodes, the first job first;
// - spread: node slots dealt round-robin over the fabric's leaves (`leaf_nodes` nodes each; 0:
//   one switch, as packed), so consecutive nodes of a job sit on different leaves;
// - random: a shuffle of the nodes drawn from `seed`;
// - shared: every job on the first nodes (the jobs' GPUs share their nodes' links, as
//   communication.concurrent_jobs does; their compute does not contend).
// Throws InputError (naming `where`) when the jobs need more nodes than the fabric has.
std::vector<std::vector<int>> place_jobs(const std::vector<int>& job_nodes, int fabric_nodes,
                                         int leaf_nodes, const std::string& placement,
                                         std::uint64_t seed, const std::string& where);

// Reads the scenario's `jobs` section into config.jobs; the rest of the scenario must be read.
void read_jobs(jsonio::ObjectReader reader, ScenarioConfig& config,
               const std::filesystem::path& base);

// Runs every job alone on its nodes of the fabric and all of them together, into result.jobs:
// jobs in groups that share links, each group on a network of its own, a job that shares no link
// as alone; `one_network`: every job flow by flow on one network (what the groups must equal, to
// the picosecond; for tests).
void run_jobs(ScenarioResult& result, bool one_network = false);

}  // namespace sgdsim
