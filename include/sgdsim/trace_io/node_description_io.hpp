// Node descriptions on disk: sgdsim's own JSON (what `sgdsim topology import` writes and
// `cluster.node` reads; format in docs/topology.md), and the two ways a real node describes
// itself: NCCL's topology dump (NCCL_TOPO_DUMP_FILE, XML) and `nvidia-smi topo -m`.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sgdsim/topology/node_topology.hpp"

namespace sgdsim {

// The JSON node description; every error names the file and the JSON path.
NodeDescription read_node_description(const std::filesystem::path& path);
NodeDescription node_description_from_json(const nlohmann::json& root, const std::string& source,
                                           const std::string& path);
nlohmann::json node_description_json(const NodeDescription& node);

// What a file does not say, given by the user (or these defaults, stated in docs/topology.md):
// for `nvidia-smi topo -m`, every PCIe link's generation and width, the CPUs' vendor and
// generation and whether the cards allow P2P; for both, the GPUs' compute capability, whether
// they support GPUDirect RDMA and the NICs' speed where the file has none (NCCL_TOPO_FILE
// overrides list bare PCI devices).
struct NodeImportFacts {
  PcieLink pcie;
  int sm = 70;
  double nic_gbps = 100.0;
  CpuVendor vendor = CpuVendor::intel;
  IntelGeneration generation = IntelGeneration::skylake;
  bool p2p_supported = true;
  bool gdr_capable = true;  // the cards support GPUDirect RDMA (GeForce cards do not)
};

NodeDescription import_nccl_topology(const std::filesystem::path& path,
                                     const NodeImportFacts& facts = {});
NodeDescription import_nvidia_smi_topo(const std::filesystem::path& path,
                                       const NodeImportFacts& facts = {});
// Which of the two a file is, by its content: "nccl_xml", "nvidia_smi", or "" for neither.
std::string node_file_kind(const std::filesystem::path& path);

}  // namespace sgdsim
