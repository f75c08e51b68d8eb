// Node types a scenario names in `cluster.node`, each a NodeDescription written from its
// vendor's documented layout (sources in node_presets.cpp and scenarios/README.md), and the
// other ways to name a node: a node description file, an NCCL topology dump, or
// `nvidia-smi topo -m` output.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sgdsim/topology/node_topology.hpp"

namespace sgdsim {

struct NodePresetEntry {
  std::string name;
  std::string summary;          // one line: GPUs, links, NICs
  std::string source;           // where the layout comes from
  NodeDescription description;  // named and sourced as above
};

// Every preset, in the order scenarios/README.md lists them.
const std::vector<NodePresetEntry>& node_preset_entries();
std::vector<std::string> node_preset_names();

// A preset by name, or an InputError naming `where` with a did-you-mean.
NodeDescription node_preset(const std::string& name, const std::string& where);

// The file a node name refers to (a name with a dot or a slash, relative to `base`), or none
// for a preset's name.
std::optional<std::filesystem::path> node_file(const std::string& name_or_file,
                                               const std::filesystem::path& base);

// A node as `cluster.node` or `sgdsim topology show` names it: a preset, or a file (a node
// description, an NCCL XML dump, nvidia-smi topo -m output with nvidia-smi's defaults).
NodeDescription resolve_node(const std::string& name_or_file, const std::filesystem::path& base,
                             const std::string& where);

}  // namespace sgdsim
