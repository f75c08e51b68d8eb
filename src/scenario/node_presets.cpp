// Node presets, each written from its vendor's documented layout; scenarios/README.md ("Node
// presets") lists the same sources. Where a document does not show the PCIe tree (cloud
// instances), the preset follows the server it is built on, and says so.
#include "sgdsim/scenario/node_presets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/registry.hpp"
#include "sgdsim/trace_io/node_description_io.hpp"

namespace sgdsim {

namespace {

// A two-level server: sockets, PCIe switches under each (none: GPUs and NICs on the CPU's own
// root ports), GPUs and NICs under each switch.
struct Layout {
  int sockets = 2;
  CpuVendor vendor = CpuVendor::intel;
  IntelGeneration cpu_generation = IntelGeneration::skylake;
  int switches_per_socket = 2;   // 0: on the root ports
  int gpus_per_switch = 2;       // per socket without switches
  int nics_per_switch = 0;       // per socket without switches; with nics_on_socket0, in all
  bool nics_on_socket0 = false;  // the NICs on socket 0's root ports only
  int pcie_generation = 3;
  int sm = 70;
  int nvswitch_links = 0;
  double nic_gbps = 100.0;
  bool p2p = true;
  bool gdr = true;         // the cards support GPUDirect RDMA (GeForce cards do not)
  bool cube_mesh = false;  // DGX-1's NVLinks (8 GPUs)
};

NodeDescription layout(const Layout& l) {
  NodeDescription node;
  node.p2p_supported = l.p2p;
  const PcieLink x16{l.pcie_generation, 16};
  int gpu = 0;
  int nic = 0;
  auto add_gpus = [&](const std::string& parent, int count) {
    for (int i = 0; i < count; ++i) {
      NodeGpu g;
      g.name = fmt::format("gpu{}", gpu++);
      g.parent = parent;
      g.link = x16;
      g.sm = l.sm;
      g.nvswitch_links = l.nvswitch_links;
      g.gdr_capable = l.gdr;
      node.gpus.push_back(g);
    }
  };
  auto add_nics = [&](const std::string& parent, int count) {
    for (int i = 0; i < count; ++i) {
      node.nics.push_back(NodeNic{fmt::format("nic{}", nic++), parent, x16, l.nic_gbps, true});
    }
  };
  for (int s = 0; s < l.sockets; ++s) {
    const std::string cpu = fmt::format("cpu{}", s);
    node.cpus.push_back(NodeCpu{cpu, l.vendor, l.cpu_generation});
    if (l.switches_per_socket == 0) {
      add_gpus(cpu, l.gpus_per_switch);
      if (!l.nics_on_socket0) add_nics(cpu, l.nics_per_switch);
    }
    for (int w = 0; w < l.switches_per_socket; ++w) {
      const std::string sw = fmt::format("sw{}", s * l.switches_per_socket + w);
      node.switches.push_back(NodePciSwitch{sw, cpu, x16});
      add_gpus(sw, l.gpus_per_switch);
      if (!l.nics_on_socket0) add_nics(sw, l.nics_per_switch);
    }
    if (l.nics_on_socket0 && s == 0) add_nics(cpu, l.nics_per_switch);
  }
  return node;
}

// DGX-1's hybrid cube-mesh: two fully connected quads (GPUs 0-3 and 4-7) joined GPU i to i+4,
// six NVLinks per V100, doubled where nvidia-smi topo -m on a DGX-1V shows NV2.
void cube_mesh(NodeDescription& node) {
  const int links[8][8] = {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0},
                           {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
                           {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
                           {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      if (links[a][b] > 0) {
        node.gpus[static_cast<std::size_t>(a)].nvlinks.emplace_back(fmt::format("gpu{}", b),
                                                                    links[a][b]);
      }
    }
  }
}

// A preset as its table row gives it: the layout, then the description named and sourced.
struct PresetRow {
  std::string name;
  std::string summary;
  std::string source;
  Layout layout;
};

std::vector<NodePresetEntry> with_descriptions(const std::vector<PresetRow>& rows) {
  std::vector<NodePresetEntry> entries;
  for (const PresetRow& row : rows) {
    NodeDescription description = layout(row.layout);
    if (row.layout.cube_mesh) cube_mesh(description);
    description.name = row.name;
    description.source = row.source;
    entries.push_back({row.name, row.summary, row.source, std::move(description)});
  }
  return entries;
}

}  // namespace

const std::vector<NodePresetEntry>& node_preset_entries() {
  static const std::vector<NodePresetEntry> all = with_descriptions({
      {"dgx1_v100",
       "8 V100, NVLink 2 hybrid cube-mesh, 2 Broadwell sockets, 4 x 100 Gb/s EDR",
       "NVIDIA DGX-1 with Tesla V100 system architecture whitepaper (WP-08437-002): four PCIe "
       "switches, each with two GPUs and one EDR NIC; NVLink counts as nvidia-smi topo -m on a "
       "DGX-1V shows them",
       {.cpu_generation = IntelGeneration::before_skylake,
        .nics_per_switch = 1,
        .cube_mesh = true}},
      {"dgx2",
       "16 V100, NVSwitch, 2 Skylake sockets, 8 x 100 Gb/s EDR",
       "NVIDIA DGX-2 datasheet and system user guide: 12 NVSwitches give each V100 its six links; "
       "two GPUs and one EDR NIC per PCIe switch",
       {.switches_per_socket = 4, .nics_per_switch = 1, .nvswitch_links = 6}},
      {"dgx_a100",
       "8 A100, NVSwitch, 2 AMD Rome sockets, 8 x 200 Gb/s HDR (one per GPU)",
       "NVIDIA DGX A100 user guide and architecture whitepaper: four PCIe 4.0 switches, each with "
       "two GPUs and two ConnectX-6",
       {.vendor = CpuVendor::amd,
        .nics_per_switch = 2,
        .pcie_generation = 4,
        .sm = 80,
        .nvswitch_links = 12,
        .nic_gbps = 200.0}},
      {"dgx_h100",
       "8 H100, NVSwitch, 2 Sapphire Rapids sockets, 8 x 400 Gb/s NDR (one per GPU)",
       "NVIDIA DGX H100 user guide: four PCIe 5.0 switch complexes, each with two GPUs and two "
       "ConnectX-7",
       {.cpu_generation = IntelGeneration::sapphire_rapids,
        .nics_per_switch = 2,
        .pcie_generation = 5,
        .sm = 90,
        .nvswitch_links = 18,
        .nic_gbps = 400.0}},
      {"pcie3_4gpu",
       "4 GPUs under one PCIe 3.0 switch, no NIC stated",
       "a single-switch PCIe box (PCI-SIG 3.0: 8 GT/s per lane)",
       {.sockets = 1, .switches_per_socket = 1, .gpus_per_switch = 4}},
      {"pcie3_8gpu",
       "8 GPUs under one PCIe 3.0 switch, no NIC stated",
       "a single-switch PCIe box (PCI-SIG 3.0)",
       {.sockets = 1, .switches_per_socket = 1, .gpus_per_switch = 8}},
      {"pcie4_4gpu",
       "4 GPUs under one PCIe 4.0 switch, no NIC stated",
       "a single-switch PCIe box (PCI-SIG 4.0: 16 GT/s per lane)",
       {.sockets = 1, .switches_per_socket = 1, .gpus_per_switch = 4, .pcie_generation = 4}},
      {"pcie4_8gpu",
       "8 GPUs under one PCIe 4.0 switch, no NIC stated",
       "a single-switch PCIe box (PCI-SIG 4.0)",
       {.sockets = 1, .switches_per_socket = 1, .gpus_per_switch = 8, .pcie_generation = 4}},
      {"pcie3_2socket_4gpu",
       "4 GPUs, 2 on each Broadwell socket's root ports (PCIe 3.0), no NIC stated",
       "Supermicro SYS-7048GR-TR user manual, block diagram: two x16 GPU slots per CPU",
       {.cpu_generation = IntelGeneration::before_skylake, .switches_per_socket = 0}},
      {"pcie3_2socket_8gpu",
       "8 GPUs in 4 PCIe 3.0 switches, 2 per Broadwell socket, no NIC stated",
       "Supermicro SYS-4028GR-TR user manual, block diagram: two PEX 8747 switches per CPU, two "
       "GPUs each",
       {.cpu_generation = IntelGeneration::before_skylake}},
      {"pcie3_2socket_2switch_8gpu",
       "8 GPUs in 2 PCIe 3.0 switches of 4, one per Broadwell socket, no NIC stated",
       "the servers of horovod/horovod issue #416 (\"4 GPUs are connected with one PCIe Switch "
       "over PCIX16\", one switch per CPU, 22-core CPUs joined by QPI) and of BytePS's PCIe "
       "benchmark (docs/performance.md: \"4 GPUs under one PCIe switch, and each machine "
       "contains two PCIe switches\")",
       {.cpu_generation = IntelGeneration::before_skylake,
        .switches_per_socket = 1,
        .gpus_per_switch = 4}},
      {"geforce_pcie3_2socket_8gpu",
       "pcie3_2socket_8gpu with GeForce RTX 2080 Ti cards: no P2P (NCCL copies through host "
       "memory), no GPUDirect RDMA",
       "the same layout; GeForce drivers do not enable peer-to-peer (nvidia-smi topo -p2p r shows "
       "NS on such cards); GPUDirect RDMA is for Tesla and Quadro cards only (NVIDIA GPUDirect "
       "RDMA User Manual v1.8, System Requirements)",
       {.cpu_generation = IntelGeneration::before_skylake, .sm = 75, .p2p = false, .gdr = false}},
      {"geforce_pcie3_4gpu",
       "4 GeForce RTX 2080 Ti under one PCIe 3.0 switch, no P2P or GPUDirect RDMA, no NIC stated",
       "pcie3_4gpu with GeForce cards: GeForce drivers do not enable peer-to-peer (nvidia-smi "
       "topo -p2p r shows NS); two such cards under one switch measured 4.00 GB/s of bus "
       "bandwidth in nccl-tests (tests/data/nccl_tests_2080ti_x2_shm.txt)",
       {.sockets = 1,
        .switches_per_socket = 1,
        .gpus_per_switch = 4,
        .sm = 75,
        .p2p = false,
        .gdr = false}},
      {"geforce_pcie3_2socket_4gpu",
       "4 GeForce RTX 2080 Ti, 2 on each Broadwell socket's root ports (PCIe 3.0), no P2P or "
       "GPUDirect RDMA, no NIC stated",
       "pcie3_2socket_4gpu's layout (Supermicro SYS-7048GR-TR user manual, block diagram) with "
       "GeForce cards, which do not enable peer-to-peer",
       {.cpu_generation = IntelGeneration::before_skylake,
        .switches_per_socket = 0,
        .sm = 75,
        .p2p = false,
        .gdr = false}},
      {"geforce_pcie4_4gpu",
       "4 GeForce RTX 4090 on one AMD socket's PCIe 4.0 root ports, no P2P or GPUDirect RDMA, no "
       "NIC stated",
       "a one-socket workstation (Threadripper/EPYC root ports); NVIDIA's driver disables P2P on "
       "the RTX 4090 (NVIDIA developer forum, 2022-2023)",
       {.sockets = 1,
        .vendor = CpuVendor::amd,
        .switches_per_socket = 0,
        .gpus_per_switch = 4,
        .pcie_generation = 4,
        .sm = 89,
        .p2p = false,
        .gdr = false}},
      {"p2_8xlarge",
       "AWS p2.8xlarge: 8 K80 GPUs (four boards of two), one socket, one 10 Gb/s NIC",
       "AWS EC2 P2 instance page: p2.8xlarge, 8 GPUs, 32 vCPUs of a Xeon E5-2686 v4 (Broadwell), "
       "10 Gigabit networking; Tesla K80 board specification: two GK210 GPUs behind a PCIe "
       "switch on the board; one socket assumed (32 vCPUs, half of p2.16xlarge's 64)",
       {.sockets = 1,
        .cpu_generation = IntelGeneration::before_skylake,
        .switches_per_socket = 4,
        .nics_per_switch = 1,
        .nics_on_socket0 = true,
        .sm = 37,
        .nic_gbps = 10.0}},
      {"p3_16xlarge",
       "AWS p3.16xlarge: 8 V100 in DGX-1's cube-mesh, one 25 Gb/s ENA",
       "AWS EC2 P3 instance page: 8 V100 with NVLink, 25 Gbps networking; PCIe tree assumed as "
       "DGX-1's (not published)",
       {.cpu_generation = IntelGeneration::before_skylake,
        .nics_per_switch = 1,
        .nics_on_socket0 = true,
        .nic_gbps = 25.0,
        .cube_mesh = true}},
      {"p3dn_24xlarge",
       "AWS p3dn.24xlarge: 8 V100 in DGX-1's cube-mesh, one 100 Gb/s EFA",
       "AWS EC2 P3 instance page: 100 Gbps, Skylake Xeon 8175M; PCIe tree assumed as DGX-1's",
       {.nics_per_switch = 1, .nics_on_socket0 = true, .cube_mesh = true}},
      {"p4d_24xlarge",
       "AWS p4d.24xlarge: 8 A100 through NVSwitch, 4 x 100 Gb/s EFA",
       "AWS EC2 P4d instance page: 400 Gbps in four EFA NICs, Cascade Lake; one NIC per PCIe "
       "switch of two GPUs assumed",
       {.nics_per_switch = 1, .pcie_generation = 4, .sm = 80, .nvswitch_links = 12}},
      {"a2_highgpu_8g",
       "Google Cloud a2-highgpu-8g: 8 A100 through NVSwitch, 100 Gb/s",
       "Google Cloud GPU machine types: a2-highgpu-8g, 100 Gbps egress; one NIC on socket 0 "
       "assumed",
       {.nics_per_switch = 1,
        .nics_on_socket0 = true,
        .pcie_generation = 4,
        .sm = 80,
        .nvswitch_links = 12}},
      {"nd96asr_v4",
       "Azure ND96asr v4: 8 A100 through NVSwitch, 8 x 200 Gb/s HDR (one per GPU)",
       "Azure ND A100 v4 series page: 8 A100 NVLink 3.0, 200 Gb/s HDR InfiniBand per GPU, AMD "
       "Rome; laid out as DGX A100",
       {.vendor = CpuVendor::amd,
        .nics_per_switch = 2,
        .pcie_generation = 4,
        .sm = 80,
        .nvswitch_links = 12,
        .nic_gbps = 200.0}},
  });
  return all;
}

std::vector<std::string> node_preset_names() {
  std::vector<std::string> names;
  for (const NodePresetEntry& entry : node_preset_entries()) names.push_back(entry.name);
  return names;
}

NodeDescription node_preset(const std::string& name, const std::string& where) {
  for (const NodePresetEntry& entry : node_preset_entries()) {
    if (entry.name == name) return entry.description;
  }
  const auto names = node_preset_names();
  const auto near = closest_name(name, names);
  throw InputError(fmt::format("{}: unknown node \"{}\"{} (a preset: {}; or a node file)", where,
                               name, near ? fmt::format(", did you mean \"{}\"?", *near) : "",
                               fmt::join(names, ", ")));
}

std::optional<std::filesystem::path> node_file(const std::string& name_or_file,
                                               const std::filesystem::path& base) {
  if (name_or_file.find_first_of("/.") == std::string::npos) return std::nullopt;
  return base.empty() ? std::filesystem::path(name_or_file) : base / name_or_file;
}

NodeDescription resolve_node(const std::string& name_or_file, const std::filesystem::path& base,
                             const std::string& where) {
  const auto file = node_file(name_or_file, base);
  if (!file) return node_preset(name_or_file, where);
  const std::filesystem::path& path = *file;
  if (!std::filesystem::exists(path)) {
    throw InputError(fmt::format("{}: node file {} does not exist", where, path.string()));
  }
  const std::string kind = node_file_kind(path);
  if (kind == "nccl_xml") return import_nccl_topology(path);
  if (kind == "nvidia_smi") return import_nvidia_smi_topo(path);
  return read_node_description(path);
}

}  // namespace sgdsim
