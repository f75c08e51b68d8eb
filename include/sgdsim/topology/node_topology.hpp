// The inside of one server as NCCL sees it: CPU sockets joined by their inter-socket link, PCIe
// switches, GPUs, NICs, NVLinks and NVSwitches. Every GPU-GPU and GPU-NIC path is classified
// as NCCL classifies it (NVL, PIX, PXB, PHB, SYS), priced from NCCL's own per-link bandwidth
// table (values and sources in node_topology.cpp), and judged for peer-to-peer access and
// GPUDirect RDMA by NCCL's default rules. Rings are searched over the graph as NCCL searches
// them: channel after channel, each the ring of highest bottleneck over what earlier channels
// left of every link. What a cluster of such nodes then sees is NodeModel: the ring's bus
// bandwidth per GPU inside a node and the rate a node's traffic reaches its NICs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sgdsim {

// What NCCL's XML names each CPU's vendor and micro-architecture; they set the inter-socket
// link's bandwidth and whether peer-to-peer traffic may cross a host bridge.
enum class CpuVendor : std::uint8_t { intel, amd, zhaoxin, power, arm, other };
// The names node descriptions and the command line use, in the enum's order.
const std::vector<std::string>& cpu_vendor_names();
CpuVendor cpu_vendor_of(const std::string& name);  // a name from cpu_vendor_names()

// Intel only: the generation NCCL prices the inter-socket link by (QPI before Skylake, UPI
// after), told from the family 6 model number: 0x55 Skylake, 0x8F Sapphire Rapids, 0xCF Emerald
// Rapids, each "or later".
enum class IntelGeneration : std::uint8_t {
  before_skylake,
  skylake,
  sapphire_rapids,
  emerald_rapids
};
const std::vector<std::string>& intel_generation_names();
IntelGeneration intel_generation_of(const std::string& name);  // from intel_generation_names()
IntelGeneration intel_generation_of_model(int family, int model);

struct NodeCpu {
  std::string name;  // "cpu0"
  CpuVendor vendor = CpuVendor::intel;
  IntelGeneration generation = IntelGeneration::skylake;
};

// A PCIe link: generation (1 to 6) and lanes; NCCL prices it from the two (node_topology.cpp).
// Generation 0: no PCI link (a NIC NCCL found on no PCI device), priced as NCCL's LOC_BW.
struct PcieLink {
  int generation = 3;
  int lanes = 16;
  double gigabytes_per_second() const;
};
// "GEN.0 xLANES" (e.g. "4.0 x16") and back; none for text of another form or out of range.
std::optional<PcieLink> parse_pcie(std::string_view text);
std::string pcie_text(const PcieLink& link);

struct NodePciSwitch {
  std::string name;    // "sw0"
  std::string parent;  // a CPU or another switch
  PcieLink uplink;
};

struct NodeGpu {
  std::string name;    // "gpu0"
  std::string parent;  // a CPU or a PCIe switch
  PcieLink link;
  int sm = 70;  // compute capability x 10: NVLink's per-link bandwidth depends on it
  // Direct NVLinks to other GPUs (peer name, link count), and links into the node's NVSwitch
  // fabric (0: none).
  std::vector<std::pair<std::string, int>> nvlinks;
  int nvswitch_links = 0;
  // The card supports GPUDirect RDMA: Tesla/datacenter and Quadro cards do, GeForce cards do not
  // (NVIDIA GPUDirect RDMA User Manual v1.8, "System Requirements": Tesla and Quadro GPUs only);
  // NCCL's topology dump records it per GPU (gdr="1").
  bool gdr_capable = true;
};

struct NodeNic {
  std::string name;  // "nic0"
  std::string parent;
  PcieLink link;
  double speed_gbps = 100.0;  // line rate, Gbit/s
  bool gdr_capable = true;    // the NIC and its driver support GPUDirect RDMA (nvidia-peermem)
};

// A node as the user describes it (or `sgdsim topology import` writes it).
struct NodeDescription {
  std::string name;
  std::string source;  // where the layout comes from
  std::vector<NodeCpu> cpus;
  std::vector<NodePciSwitch> switches;
  std::vector<NodeGpu> gpus;
  std::vector<NodeNic> nics;
  // Whether the GPUs and platform allow peer-to-peer transfers at all (false for GeForce cards
  // whose driver disables it, and for platforms that block it: NCCL then copies through host
  // memory, its SHM transport).
  bool p2p_supported = true;
  // What an importer could not take from its file, for the user to hear (not written out).
  std::vector<std::string> warnings;
};

// NCCL's path types, best first (NCCL's PATH_LOC .. PATH_SYS).
enum class PathType : std::uint8_t { loc, nvl, pix, pxb, phb, sys };
const char* path_type_name(PathType type);

class NodeTopology {
 public:
  enum class Kind : std::uint8_t { cpu, pci_switch, gpu, nic, nvswitch };
  struct Vertex {
    Kind kind = Kind::cpu;
    std::string name;
    int index = 0;  // GPU, NIC or CPU number
  };
  enum class LinkKind : std::uint8_t { pci, nvlink, inter_cpu };
  // One direction of a physical link.
  struct Link {
    int from = 0;
    int to = 0;
    LinkKind kind = LinkKind::pci;
    double gigabytes_per_second = 0.0;
  };
  struct Path {
    PathType type = PathType::loc;
    double gigabytes_per_second = 0.0;  // the slowest link's
    std::vector<int> links;             // indices into links(), in order
  };

  // Checks the description (names unique, every parent known, every GPU reachable); throws
  // InputError naming `where` and the element at fault.
  static NodeTopology build(const NodeDescription& description, const std::string& where);

  const NodeDescription& description() const { return description_; }
  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  int gpus() const { return static_cast<int>(gpu_vertices_.size()); }
  int nics() const { return static_cast<int>(nic_vertices_.size()); }

  // The best path between two GPUs, or GPU `gpu` and NIC `nic`: NVLink when there is one, else
  // the PCIe route; its type the worst hop's, its bandwidth the slowest link's.
  const Path& gpu_path(int from, int to) const;
  const Path& nic_path(int gpu, int nic) const;
  // NCCL's default rules (2.23.4 on): P2P between two GPUs over NVLink, and over PCIe when the
  // platform allows it and their path is no worse than PXB (any path on AMD hosts of at most two
  // GPUs); GPUDirect RDMA when the NIC and the GPU support it and their path is no worse than PXB.
  bool p2p(int from, int to) const;
  // The path a pair without P2P takes: from the sender to the receiver's CPU (its memory), and
  // from there to the receiver (NCCL's SHM route); its type the worse half's.
  Path host_path(int from, int to) const;
  // The path from a CPU (its memory) down to a GPU: what carries a GPU's reads of host memory.
  const Path& cpu_path(int cpu, int gpu) const;
  // The socket a GPU hangs under.
  int gpu_cpu(int gpu) const { return gpu_cpus_.at(static_cast<std::size_t>(gpu)); }
  bool gdr(int gpu, int nic) const;
  // The NIC NCCL would give a GPU: the one on its best path (then the fastest, then the first).
  int nearest_nic(int gpu) const;
  // The node as a job on its first `count` GPUs sees it (a job of fewer ranks than GPUs takes
  // the first ones CUDA numbers, and descriptions list GPUs in that order: the presets, and the
  // importers, by nvidia-smi's columns or the dump's dev): those GPUs, NVLinks only among them,
  // and the NICs they would use (each GPU's NICs of its best path type, where the whole node's
  // model sums all its NICs); CPUs stay, switches left empty go.
  NodeDescription first_gpus(int count) const;

 private:
  Path search(int from_vertex, int to_vertex) const;

  NodeDescription description_;
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::vector<int> gpu_vertices_;
  std::vector<int> nic_vertices_;
  std::vector<int> gpu_cpus_;                // per GPU: the index of its CPU
  std::vector<std::vector<int>> out_links_;  // per vertex: the links leaving it
  std::vector<Path> to_cpu_;                 // gpus x cpus: each GPU up to each CPU
  std::vector<Path> from_cpu_;               // cpus x gpus: each CPU down to each GPU
  bool amd_host_ = false;                    // every CPU an AMD one (NCCL's P2P exception)
  std::vector<Path> gpu_paths_;              // gpus x gpus
  std::vector<Path> nic_paths_;              // gpus x nics
};

// One ring channel: the GPU order and the bandwidth every step of it gets.
struct RingChannel {
  std::vector<int> order;
  double gigabytes_per_second = 0.0;
  bool through_host = false;  // some step has no P2P and is copied through host memory (SHM)
  PathType worst_hop = PathType::loc;  // of its steps' routes (through the CPU where SHM)
};

// What a GPU's kernel reading host memory over PCIe reaches, as a fraction of what its writes
// to host memory reach: 35.19 against 52.77 GB/s (nvbandwidth's host_to_device_memcpy_sm and
// device_to_host_memcpy_sm on an H100 node, NVIDIA/nvbandwidth issue #24, where H20 and H800
// users report the same gap). NCCL leaves received data in host memory for the receiving GPU's
// kernel to load in two cases: its SHM transport (buffers on the receiver's side by default,
// NCCL_SHM_LOCALITY, src/transport/shm.cc) and its network transport without GPUDirect RDMA
// (receive buffers in host memory unless GDR is used, src/transport/net.cc). NCCL's topology
// model has no such cost; sgdsim charges it on the links that carry those reads. Plausibly from
// 0.5 (an A100's copy engines reading while writing: 12-13 against 24 GB/s, nvbandwidth issue
// #11) to 1 (an A100's kernels reading alone at its copy engines' 25.13 GB/s, issue #42).
inline constexpr double host_read_efficiency = 35.19 / 52.77;
inline constexpr double host_read_efficiency_low = 0.5;
inline constexpr double host_read_efficiency_high = 1.0;

// The rings NCCL would build inside the node: at most `max_channels`, each the ring of highest
// bottleneck over the capacity earlier channels left on every link. A step without P2P is
// routed through host memory on the receiver's socket (NCCL's SHM path), and a step whose path
// goes through an Intel host bridge (PHB) costs the PCIe links on it 6/5 of its bandwidth. The
// receiver of a step through host memory reads it from there, which its PCIe links carry at
// `read_efficiency` of their rate.
std::vector<RingChannel> search_rings(const NodeTopology& node, int max_channels = 16,
                                      double read_efficiency = host_read_efficiency);

// What the cluster model takes from a node.
struct NodeModel {
  int gpus = 0;
  // The rings' bus bandwidth per GPU and direction (their channels summed), Gbit/s; 0 for one GPU.
  double ring_gbps = 0.0;
  bool ring_through_host = false;
  PathType worst_ring_hop = PathType::loc;
  // The node's NICs: their line rate (summed per node, or each GPU's), whether each GPU has its
  // own, and what the GPU-NIC paths carry (the best GPU's path to each NIC, summed per node, or
  // the worst GPU's own; where GPUDirect RDMA is off, through host memory, at most what the
  // GPU's reads of host memory reach), Gbit/s. A node that names no NIC but whose GPUs cannot
  // use GPUDirect RDMA still stages whatever NIC it has through host memory: nic_path_gbps is
  // then the best GPU's reads of host memory, and nic_line_gbps 0.
  double nic_line_gbps = 0.0;
  bool nic_per_gpu = false;
  double nic_path_gbps = 0.0;
  // The same as if no GPU used GPUDirect RDMA (a transport through the kernel's sockets).
  double nic_staged_gbps = 0.0;
  bool gdr = false;
  std::vector<RingChannel> channels;
};

// `read_efficiency`: what the GPUs' reads of host memory reach, as a fraction of their writes.
NodeModel model_node(const NodeTopology& node, double read_efficiency = host_read_efficiency);

// The rings' bus bandwidth per GPU (Gbit/s; 0 for one GPU) on the node's first `count` GPUs
// alone (NodeTopology::first_gpus): a job of fewer ranks, or one of BytePS's groups.
double first_gpus_ring_gbps(const NodeTopology& node, int count,
                            double read_efficiency = host_read_efficiency);

// What each group of `group` consecutive GPUs reaches copying a buffer to host memory on its
// GPUs' copy engines, a share of 1 / group each to its own socket's memory, while every group
// of the node copies its own at once (cudaMemcpy device to host; the copies back cross the same
// PCIe links the other way, at the same rate), Gbit/s of one group's buffer: a link that
// several GPUs' paths to their CPUs share (a PCIe switch's uplink) carries all their shares.
double host_copy_gbps(const NodeTopology& node, int group);

// The read fraction at which the node's rings reach `ring_gbps` per GPU (a measured run inside
// the node, for cluster.host_read_efficiency). The rings grow with the fraction until other links
// bind, so `fitted` holds the fraction where they first reach it; the other outcomes say why
// there is none: the rings do not go through host memory, or the measurement lies above what
// reads as fast as writes give (the node described is slower than the one measured), or below
// what reads at 1% of the writes give.
struct ReadEfficiencyFit {
  enum class Outcome : std::uint8_t { fitted, not_through_host, above, below };
  Outcome outcome = Outcome::fitted;
  double efficiency = 0.0;  // fitted only
};
ReadEfficiencyFit fit_read_efficiency(const NodeTopology& node, double ring_gbps);

}  // namespace sgdsim
