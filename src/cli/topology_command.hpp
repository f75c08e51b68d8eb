// `sgdsim topology`: show a node as NCCL would see it (paths, P2P, GPUDirect RDMA, rings, what
// the cluster model takes), list the presets, and import a real node's NCCL XML dump or
// `nvidia-smi topo -m` output as a node description.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sgdsim::cli {

struct TopologyOptions {
  std::string node;    // show: a preset or a file
  bool json = false;   // show: the description as JSON
  int gpus = 0;        // show: only the node's first GPUs (0: all)
  std::string input;   // import
  std::string output;  // import: the node description to write
  std::string from = "auto";
  std::string name;
  std::string pcie = "3.0 x16";
  int sm = 70;
  double nic_gbps = 100.0;
  std::string cpu = "intel";
  std::string generation = "skylake";
  bool no_p2p = false;
  bool no_gdr = false;
};

struct TopologyCommands {
  CLI::App* show = nullptr;
  CLI::App* list = nullptr;
  CLI::App* import = nullptr;
};

TopologyCommands add_topology_commands(CLI::App& app, TopologyOptions& options);
// Runs whichever of the commands was parsed.
void topology_command(const TopologyCommands& commands, const TopologyOptions& options);

}  // namespace sgdsim::cli
