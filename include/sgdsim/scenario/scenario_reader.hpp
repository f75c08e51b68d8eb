// Scenario JSON to a validated ScenarioConfig; every problem is an InputError with the file,
// the JSON path, what was expected and what was found.
#pragma once

#include <filesystem>

#include "sgdsim/jsonio/json_reader.hpp"
#include "sgdsim/scenario/scenario.hpp"

namespace sgdsim {

// The most GPUs flow fidelity simulates (docs/guide.md, "Limits").
inline constexpr int max_flow_gpus = 65536;

ScenarioConfig read_scenario(const std::filesystem::path& path);
// `base` is the folder that relative trace paths are resolved from.
ScenarioConfig read_scenario(const jsonio::Document& document, const std::filesystem::path& base);

// How many connections a transfer of the scenario's collective spreads over when
// network.connections is not given (scenarios/README.md, "Transports").
int default_connections(const ScenarioConfig& config);
// What a transfer reaches over `transport` on a link of `line` rate: min(line x goodput,
// flow_cap x connections); a zero flow_cap caps nothing.
Bandwidth transport_rate(const Transport& transport, Bandwidth line, Bandwidth flow_cap,
                         int connections);
// The network's link and a dedicated server's default link with one connection at
// `per_connection`, under `config.network.worker_path` and `fabric` respectively (what the reader
// does with the transport's cap; scenario/node_range.hpp reruns a scenario with others).
void cap_connections(ScenarioConfig& config, Bandwidth per_connection);
// The network's link from its line rate: the transport's goodput, then the node's GPU-NIC paths
// (cluster.node): what the reader does, and what scenario/node_range.hpp redoes on a node
// modelled again. Then the transport's cap, where there is one (apply_transport_cap).
void apply_node_cap(ScenarioConfig& config);
void apply_transport_cap(ScenarioConfig& config);
// Where the scenario runs `byteps`: the GPUs of a group that runs NCCL (its machine's, or a
// PCIe switch's with pcie_switch_size below it; collectives/byteps.hpp). Nothing for another
// collective.
std::optional<int> byteps_group_of(const ScenarioConfig& config);

}  // namespace sgdsim
