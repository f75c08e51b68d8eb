// A server's inside, priced as NCCL's topology model prices it. The bandwidths are NCCL's own
// (src/graph/topo.h and topo.cc of NVIDIA/nccl, v2.23; GB/s per direction of one link):
// - PCIe: NCCL reads each link's speed and width and multiplies them out: per lane 0.1875 GB/s
//   at 2.5 GT/s, doubling with each generation (0.75 at 8 GT/s, 3.0), so a 3.0 x16 link is
//   12 GB/s (its PCI_BW), 4.0 x16 24 GB/s;
// - NVLink per link by GPU generation: 18 (SM60), 20 (SM70, SM80), 12 (SM86), 20.6 (SM90),
//   40.1 (SM100);
// - between CPU sockets: Intel QPI 6 before Skylake, UPI 10 from Skylake, 22 from Sapphire
//   Rapids, 40 from Emerald Rapids; AMD Infinity Fabric 16, Zhaoxin 6, IBM POWER9 32, ARM 6.
// The rules (src/graph/paths.cc, NCCL 2.23.4 on): a path's type is its worst hop's; P2P is
// allowed up to PXB (up to SYS between the GPUs of an AMD host with at most two); a pair without
// P2P goes through the receiver's CPU (host memory, the SHM transport); GPUDirect RDMA up to
// PXB. The ring search (src/graph/search.cc) charges the PCIe links of a path through an Intel
// host bridge 6/5 of its bandwidth ("Intel CPU convert GPU P2P traffic into 64B PCI TLPs").
#include "sgdsim/topology/node_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// NCCL's LOC_BW: what it gives a link it has no figure for (a NIC on no PCI link, an unknown CPU).
constexpr double local_bandwidth = 5000.0;

double nvlink_bandwidth(int sm) {
  if (sm >= 100) return 40.1;
  if (sm >= 90) return 20.6;
  if (sm == 86) return 12.0;
  if (sm >= 70) return 20.0;
  if (sm >= 60) return 18.0;
  return 20.0;  // NCCL's fallback (SM80's)
}

double inter_cpu_bandwidth(const NodeCpu& cpu) {
  switch (cpu.vendor) {
    case CpuVendor::intel:
      switch (cpu.generation) {
        case IntelGeneration::before_skylake: return 6.0;
        case IntelGeneration::skylake: return 10.0;
        case IntelGeneration::sapphire_rapids: return 22.0;
        case IntelGeneration::emerald_rapids: return 40.0;
      }
      return 6.0;
    case CpuVendor::amd: return 16.0;
    case CpuVendor::power: return 32.0;
    case CpuVendor::zhaoxin:
    case CpuVendor::arm: return 6.0;
    case CpuVendor::other: return local_bandwidth;
  }
  return 6.0;
}

constexpr double intel_p2p_overhead = 6.0 / 5.0;

}  // namespace

const std::vector<std::string>& cpu_vendor_names() {
  static const std::vector<std::string> names{"intel", "amd", "zhaoxin", "power", "arm", "other"};
  return names;
}

CpuVendor cpu_vendor_of(const std::string& name) {
  const auto& names = cpu_vendor_names();
  const auto found = std::find(names.begin(), names.end(), name);
  SGDSIM_ASSERT(found != names.end(), "not a CPU vendor's name");
  return static_cast<CpuVendor>(found - names.begin());
}

IntelGeneration intel_generation_of(const std::string& name) {
  const auto& names = intel_generation_names();
  const auto found = std::find(names.begin(), names.end(), name);
  SGDSIM_ASSERT(found != names.end(), "not an Intel generation's name");
  return static_cast<IntelGeneration>(found - names.begin());
}

std::optional<PcieLink> parse_pcie(std::string_view text) {
  PcieLink link;
  int minor = 0;
  char dot = 0;
  char x = 0;
  std::istringstream stream{std::string(text)};
  if (!(stream >> link.generation >> dot >> minor >> x >> link.lanes) || dot != '.' || minor != 0 ||
      x != 'x' || !stream.eof() || link.generation < 1 || link.generation > 6 || link.lanes < 1 ||
      link.lanes > 32) {
    return std::nullopt;
  }
  return link;
}

std::string pcie_text(const PcieLink& link) {
  if (link.generation == 0) return "none";
  return fmt::format("{}.0 x{}", link.generation, link.lanes);
}

const std::vector<std::string>& intel_generation_names() {
  static const std::vector<std::string> names{"before_skylake", "skylake", "sapphire_rapids",
                                              "emerald_rapids"};
  return names;
}

IntelGeneration intel_generation_of_model(int family, int model) {
  if (family != 6) return IntelGeneration::skylake;
  if (model >= 0xCF) return IntelGeneration::emerald_rapids;
  if (model >= 0x8F) return IntelGeneration::sapphire_rapids;
  if (model >= 0x55) return IntelGeneration::skylake;
  return IntelGeneration::before_skylake;
}

double PcieLink::gigabytes_per_second() const {
  if (generation == 0) return local_bandwidth;
  return 0.1875 * std::pow(2.0, generation - 1) * lanes;
}

const char* path_type_name(PathType type) {
  switch (type) {
    case PathType::loc: return "LOC";
    case PathType::nvl: return "NVL";
    case PathType::pix: return "PIX";
    case PathType::pxb: return "PXB";
    case PathType::phb: return "PHB";
    case PathType::sys: return "SYS";
  }
  return "?";
}

NodeTopology NodeTopology::build(const NodeDescription& description, const std::string& where) {
  NodeTopology node;
  node.description_ = description;
  std::map<std::string, int> by_name;
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}: {}", where, what));
  };
  auto add = [&](Kind kind, const std::string& name, int index) {
    if (name.empty()) fail("an element without a name");
    if (!by_name.emplace(name, static_cast<int>(node.vertices_.size())).second) {
      fail(fmt::format("two elements named \"{}\"", name));
    }
    node.vertices_.push_back(Vertex{kind, name, index});
    return static_cast<int>(node.vertices_.size()) - 1;
  };
  auto link = [&](int a, int b, LinkKind kind, double bandwidth) {
    node.links_.push_back(Link{a, b, kind, bandwidth});
    node.links_.push_back(Link{b, a, kind, bandwidth});
  };
  if (description.cpus.empty()) fail("no CPU: a node has at least one socket");
  if (description.gpus.empty()) fail("no GPU");
  for (std::size_t i = 0; i < description.cpus.size(); ++i) {
    add(Kind::cpu, description.cpus[i].name, static_cast<int>(i));
  }
  for (const NodePciSwitch& sw : description.switches) add(Kind::pci_switch, sw.name, 0);
  for (std::size_t i = 0; i < description.gpus.size(); ++i) {
    node.gpu_vertices_.push_back(add(Kind::gpu, description.gpus[i].name, static_cast<int>(i)));
  }
  for (std::size_t i = 0; i < description.nics.size(); ++i) {
    node.nic_vertices_.push_back(add(Kind::nic, description.nics[i].name, static_cast<int>(i)));
  }
  auto parent = [&](const std::string& child, const std::string& name) {
    const auto found = by_name.find(name);
    if (found == by_name.end()) {
      fail(fmt::format("\"{}\" hangs from \"{}\", which is no CPU or PCIe switch of the node",
                       child, name));
    }
    const Kind kind = node.vertices_[static_cast<std::size_t>(found->second)].kind;
    if (kind != Kind::cpu && kind != Kind::pci_switch) {
      fail(fmt::format("\"{}\" hangs from \"{}\", a GPU or NIC, not a CPU or PCIe switch", child,
                       name));
    }
    return found->second;
  };
  auto check_link = [&](const std::string& name, const PcieLink& pcie) {
    if (pcie.generation == 0) return pcie.gigabytes_per_second();  // no PCI link
    if (pcie.generation < 1 || pcie.generation > 6 || pcie.lanes < 1 || pcie.lanes > 32) {
      fail(fmt::format("\"{}\": PCIe generation {} x{} (generation 1 to 6, 1 to 32 lanes)", name,
                       pcie.generation, pcie.lanes));
    }
    return pcie.gigabytes_per_second();
  };
  // CPU sockets: all joined pairwise, each pair at the slower end's rate (NCCL's SYS link).
  for (std::size_t a = 0; a < description.cpus.size(); ++a) {
    for (std::size_t b = a + 1; b < description.cpus.size(); ++b) {
      link(static_cast<int>(a), static_cast<int>(b), LinkKind::inter_cpu,
           std::min(inter_cpu_bandwidth(description.cpus[a]),
                    inter_cpu_bandwidth(description.cpus[b])));
    }
  }
  for (const NodePciSwitch& sw : description.switches) {
    if (sw.parent == sw.name) fail(fmt::format("switch \"{}\" hangs from itself", sw.name));
    link(by_name.at(sw.name), parent(sw.name, sw.parent), LinkKind::pci,
         check_link(sw.name, sw.uplink));
  }
  bool nvswitch = false;
  for (const NodeGpu& gpu : description.gpus) {
    link(by_name.at(gpu.name), parent(gpu.name, gpu.parent), LinkKind::pci,
         check_link(gpu.name, gpu.link));
    if (gpu.sm < 30 || gpu.sm > 200) {
      fail(fmt::format("\"{}\": compute capability {} (sm is major x 10 + minor, 30 to 200)",
                       gpu.name, gpu.sm));
    }
    if (gpu.nvswitch_links < 0) fail(fmt::format("\"{}\": negative NVSwitch links", gpu.name));
    nvswitch = nvswitch || gpu.nvswitch_links > 0;
  }
  if (nvswitch) {
    const int fabric = add(Kind::nvswitch, "nvswitch", 0);
    for (const NodeGpu& gpu : description.gpus) {
      if (gpu.nvswitch_links > 0) {
        link(by_name.at(gpu.name), fabric, LinkKind::nvlink,
             gpu.nvswitch_links * nvlink_bandwidth(gpu.sm));
      }
    }
  }
  std::map<std::pair<int, int>, int> nvlink_counts;
  for (const NodeGpu& gpu : description.gpus) {
    for (const auto& [peer, count] : gpu.nvlinks) {
      const auto found = by_name.find(peer);
      if (found == by_name.end() ||
          node.vertices_[static_cast<std::size_t>(found->second)].kind != Kind::gpu ||
          peer == gpu.name) {
        fail(fmt::format("\"{}\": NVLink to \"{}\", which is no other GPU of the node", gpu.name,
                         peer));
      }
      if (count < 1 || count > 18) {
        fail(fmt::format("\"{}\": {} NVLinks to \"{}\" (1 to 18)", gpu.name, count, peer));
      }
      // A pair may be listed by either end or both, with the same count: one set of links.
      const int self = by_name.at(gpu.name);
      const auto pair = std::minmax(self, found->second);
      const auto [listed, fresh] = nvlink_counts.emplace(pair, count);
      if (!fresh && listed->second != count) {
        fail(fmt::format("\"{}\" and \"{}\" list {} and {} NVLinks to each other", gpu.name, peer,
                         count, listed->second));
      }
      if (fresh) {
        const NodeGpu& other = description.gpus[static_cast<std::size_t>(
            node.vertices_[static_cast<std::size_t>(found->second)].index)];
        link(self, found->second, LinkKind::nvlink,
             count * std::min(nvlink_bandwidth(gpu.sm), nvlink_bandwidth(other.sm)));
      }
    }
  }
  for (const NodeNic& nic : description.nics) {
    link(by_name.at(nic.name), parent(nic.name, nic.parent), LinkKind::pci,
         check_link(nic.name, nic.link));
    if (!(nic.speed_gbps > 0.0) || nic.speed_gbps > 1e5) {
      fail(fmt::format("\"{}\": speed {} Gbit/s (above 0, at most 100,000)", nic.name,
                       nic.speed_gbps));
    }
  }
  // Each GPU's socket: up the parents to a CPU.
  std::map<std::string, std::string> parents;
  for (const NodePciSwitch& sw : description.switches) parents[sw.name] = sw.parent;
  for (const NodeGpu& g : description.gpus) {
    std::string at = g.parent;
    for (std::size_t guard = 0; guard <= parents.size() && parents.count(at); ++guard) {
      at = parents.at(at);
    }
    const auto found = by_name.find(at);
    if (found == by_name.end() ||
        node.vertices_[static_cast<std::size_t>(found->second)].kind != Kind::cpu) {
      fail(fmt::format("\"{}\" does not reach a CPU through its switches (a cycle of parents?)",
                       g.name));
    }
    node.gpu_cpus_.push_back(node.vertices_[static_cast<std::size_t>(found->second)].index);
  }
  node.out_links_.assign(node.vertices_.size(), {});
  for (std::size_t i = 0; i < node.links_.size(); ++i) {
    node.out_links_[static_cast<std::size_t>(node.links_[i].from)].push_back(static_cast<int>(i));
  }
  node.amd_host_ = std::all_of(description.cpus.begin(), description.cpus.end(),
                               [](const NodeCpu& cpu) { return cpu.vendor == CpuVendor::amd; });
  // Paths (CPU c is vertex c: CPUs are added first): every GPU to and from every CPU (host
  // memory), every pair of GPUs, every GPU to every NIC.
  const int cpus = static_cast<int>(description.cpus.size());
  for (int g = 0; g < node.gpus(); ++g) {
    for (int c = 0; c < cpus; ++c) {
      node.to_cpu_.push_back(node.search(node.gpu_vertices_[static_cast<std::size_t>(g)], c));
    }
  }
  for (int c = 0; c < cpus; ++c) {
    for (int g = 0; g < node.gpus(); ++g) {
      node.from_cpu_.push_back(node.search(c, node.gpu_vertices_[static_cast<std::size_t>(g)]));
    }
  }
  const int gpus = node.gpus();
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      node.gpu_paths_.push_back(a == b
                                    ? Path{}
                                    : node.search(node.gpu_vertices_[static_cast<std::size_t>(a)],
                                                  node.gpu_vertices_[static_cast<std::size_t>(b)]));
      if (a != b && node.gpu_paths_.back().links.empty()) {
        fail(fmt::format("no path between \"{}\" and \"{}\"",
                         description.gpus[static_cast<std::size_t>(a)].name,
                         description.gpus[static_cast<std::size_t>(b)].name));
      }
    }
    for (int n = 0; n < node.nics(); ++n) {
      node.nic_paths_.push_back(node.search(node.gpu_vertices_[static_cast<std::size_t>(a)],
                                            node.nic_vertices_[static_cast<std::size_t>(n)]));
      if (node.nic_paths_.back().links.empty()) {
        fail(fmt::format("no path from GPU \"{}\" to NIC \"{}\"",
                         description.gpus[static_cast<std::size_t>(a)].name,
                         description.nics[static_cast<std::size_t>(n)].name));
      }
    }
  }
  return node;
}

// Every simple path from `from` to `to` whose inner vertices are CPUs, switches or the NVSwitch
// (GPUs and NICs forward nothing); the best is the one of best type, then highest bottleneck,
// then fewest links. Node graphs are trees of PCIe links plus NVLinks, so there are few.
NodeTopology::Path NodeTopology::search(int from_vertex, int to_vertex) const {
  const std::vector<std::vector<int>>& out = out_links_;
  int cpu_hops = 0;  // a path crosses at most one link between sockets: they are all joined
  Path best;
  bool found = false;
  std::vector<int> stack;
  std::vector<bool> visited(vertices_.size(), false);
  auto type_of = [&](const std::vector<int>& route) {
    bool nvlink_only = true;
    int switches = 0;
    bool cpu = false;
    bool inter_cpu = false;
    for (const int l : route) {
      const Link& hop = links_[static_cast<std::size_t>(l)];
      nvlink_only = nvlink_only && hop.kind == LinkKind::nvlink;
      inter_cpu = inter_cpu || hop.kind == LinkKind::inter_cpu;
      if (l != route.back()) {
        const Kind kind = vertices_[static_cast<std::size_t>(hop.to)].kind;
        switches += kind == Kind::pci_switch ? 1 : 0;
        cpu = cpu || kind == Kind::cpu;
      }
    }
    if (nvlink_only) return PathType::nvl;
    if (inter_cpu) return PathType::sys;
    if (cpu) return PathType::phb;
    return switches <= 1 ? PathType::pix : PathType::pxb;
  };
  std::function<void(int)> walk = [&](int at) {
    if (at == to_vertex) {
      Path candidate;
      candidate.links = stack;
      candidate.type = type_of(stack);
      candidate.gigabytes_per_second = std::numeric_limits<double>::infinity();
      for (const int l : stack) {
        candidate.gigabytes_per_second =
            std::min(candidate.gigabytes_per_second,
                     links_[static_cast<std::size_t>(l)].gigabytes_per_second);
      }
      const bool better = !found || candidate.type < best.type ||
                          (candidate.type == best.type &&
                           (candidate.gigabytes_per_second > best.gigabytes_per_second ||
                            (candidate.gigabytes_per_second == best.gigabytes_per_second &&
                             candidate.links.size() < best.links.size())));
      if (better) best = candidate;
      found = true;
      return;
    }
    if (at != from_vertex) {
      const Kind kind = vertices_[static_cast<std::size_t>(at)].kind;
      if (kind == Kind::gpu || kind == Kind::nic) return;
    }
    visited[static_cast<std::size_t>(at)] = true;
    for (const int l : out[static_cast<std::size_t>(at)]) {
      const Link& link = links_[static_cast<std::size_t>(l)];
      if (visited[static_cast<std::size_t>(link.to)]) continue;
      const int hop = link.kind == LinkKind::inter_cpu ? 1 : 0;
      if (cpu_hops + hop > 1) continue;
      cpu_hops += hop;
      stack.push_back(l);
      walk(link.to);
      stack.pop_back();
      cpu_hops -= hop;
    }
    visited[static_cast<std::size_t>(at)] = false;
  };
  walk(from_vertex);
  return best;
}

const NodeTopology::Path& NodeTopology::gpu_path(int from, int to) const {
  return gpu_paths_.at(static_cast<std::size_t>(from * gpus() + to));
}

const NodeTopology::Path& NodeTopology::nic_path(int gpu, int nic) const {
  return nic_paths_.at(static_cast<std::size_t>(gpu * nics() + nic));
}

bool NodeTopology::p2p(int from, int to) const {
  if (from == to) return true;
  const Path& path = gpu_path(from, to);
  if (path.type == PathType::nvl) return true;
  if (!description_.p2p_supported) return false;
  return path.type <= PathType::pxb || (amd_host_ && gpus() <= 2);
}

const NodeTopology::Path& NodeTopology::cpu_path(int cpu, int gpu) const {
  return from_cpu_.at(static_cast<std::size_t>(cpu) * static_cast<std::size_t>(gpus()) +
                      static_cast<std::size_t>(gpu));
}

NodeTopology::Path NodeTopology::host_path(int from, int to) const {
  const auto cpus = description_.cpus.size();
  const auto cpu = static_cast<std::size_t>(gpu_cpu(to));
  const Path& up = to_cpu_[static_cast<std::size_t>(from) * cpus + cpu];
  const Path& down = cpu_path(static_cast<int>(cpu), to);
  // Joined in this order: ring_step finds the receiver's reads as the last cpu_path links.
  Path joined = up;
  joined.links.insert(joined.links.end(), down.links.begin(), down.links.end());
  joined.gigabytes_per_second = std::min(up.gigabytes_per_second, down.gigabytes_per_second);
  // Through a CPU at least: PHB on one socket, SYS across.
  joined.type = std::max({up.type, down.type, PathType::phb});
  return joined;
}

bool NodeTopology::gdr(int gpu, int nic) const {
  return description_.gpus.at(static_cast<std::size_t>(gpu)).gdr_capable &&
         description_.nics.at(static_cast<std::size_t>(nic)).gdr_capable &&
         nic_path(gpu, nic).type <= PathType::pxb;
}

int NodeTopology::nearest_nic(int gpu) const {
  int best = -1;
  for (int n = 0; n < nics(); ++n) {
    if (best < 0) {
      best = n;
      continue;
    }
    const Path& candidate = nic_path(gpu, n);
    const Path& current = nic_path(gpu, best);
    const double speed = description_.nics[static_cast<std::size_t>(n)].speed_gbps;
    const double best_speed = description_.nics[static_cast<std::size_t>(best)].speed_gbps;
    if (candidate.type < current.type || (candidate.type == current.type && speed > best_speed)) {
      best = n;
    }
  }
  return best;
}

NodeDescription NodeTopology::first_gpus(int count) const {
  SGDSIM_ASSERT(count >= 1 && count <= gpus(), "first_gpus: count out of range");
  NodeDescription part = description_;
  part.gpus.resize(static_cast<std::size_t>(count));
  std::set<std::string> kept;
  for (const NodeGpu& gpu : part.gpus) kept.insert(gpu.name);
  for (NodeGpu& gpu : part.gpus) {
    std::erase_if(gpu.nvlinks, [&kept](const auto& link) { return !kept.contains(link.first); });
  }
  // Each kept GPU's best path type to a NIC, then the NICs of that type to some kept GPU.
  std::vector<PathType> best;
  if (nics() > 0) {
    for (int g = 0; g < count; ++g) best.push_back(nic_path(g, nearest_nic(g)).type);
  }
  part.nics.clear();
  for (int n = 0; n < nics(); ++n) {
    bool used = false;
    for (int g = 0; g < count && !used; ++g) {
      used = nic_path(g, n).type == best[static_cast<std::size_t>(g)];
    }
    if (used) part.nics.push_back(description_.nics[static_cast<std::size_t>(n)]);
  }
  // Switches left with nothing under them go too.
  for (bool pruned = true; pruned;) {
    const auto below = [&part](const std::string& name) {
      const auto child = [&name](const auto& item) { return item.parent == name; };
      return std::any_of(part.gpus.begin(), part.gpus.end(), child) ||
             std::any_of(part.nics.begin(), part.nics.end(), child) ||
             std::any_of(part.switches.begin(), part.switches.end(), child);
    };
    pruned = std::erase_if(part.switches,
                           [&below](const NodePciSwitch& s) { return !below(s.name); }) > 0;
  }
  part.name = fmt::format("{} (its first {} of {} GPUs)", description_.name, count, gpus());
  return part;
}

namespace {

// One ring step: the links it loads, each with what the step costs it per unit of bandwidth (the
// P2P path, or the route through the receiver's host memory; PCIe links on a path through an
// Intel host bridge, PHB, cost 6/5; those that carry the receiver's reads of host memory cost
// 1 / read_efficiency, the larger charge where both apply), and the route's type.
struct Step {
  std::vector<std::pair<int, double>> loads;
  bool through_host = false;
  PathType type = PathType::loc;
};

Step ring_step(const NodeTopology& node, int from, int to, double read_efficiency) {
  Step step;
  step.through_host = !node.p2p(from, to);
  const NodeTopology::Path path =
      step.through_host ? node.host_path(from, to) : node.gpu_path(from, to);
  step.type = path.type;
  bool intel = false;
  for (const int l : path.links) {
    const auto& at =
        node.vertices()[static_cast<std::size_t>(node.links()[static_cast<std::size_t>(l)].to)];
    intel = intel || (at.kind == NodeTopology::Kind::cpu &&
                      node.description().cpus[static_cast<std::size_t>(at.index)].vendor ==
                          CpuVendor::intel);
  }
  const bool overhead = intel && path.type == PathType::phb;
  // The route through host memory ends with the receiver's CPU down to it: its reads.
  const std::size_t reads_from =
      step.through_host ? path.links.size() - node.cpu_path(node.gpu_cpu(to), to).links.size()
                        : path.links.size();
  for (std::size_t i = 0; i < path.links.size(); ++i) {
    const int l = path.links[i];
    const bool pci = node.links()[static_cast<std::size_t>(l)].kind == NodeTopology::LinkKind::pci;
    double cost = overhead && pci ? intel_p2p_overhead : 1.0;
    if (pci && i >= reads_from) cost = std::max(cost, 1.0 / read_efficiency);
    step.loads.emplace_back(l, cost);
  }
  return step;
}

}  // namespace

std::vector<RingChannel> search_rings(const NodeTopology& node, int max_channels,
                                      double read_efficiency) {
  const int gpus = node.gpus();
  std::vector<RingChannel> channels;
  if (gpus < 2) return channels;
  std::vector<double> residual;
  for (const NodeTopology::Link& l : node.links()) residual.push_back(l.gigabytes_per_second);
  // Each ordered pair's step, and each GPU's candidates nearest first (best type, then
  // bandwidth), as NCCL tries them; computed once.
  std::vector<Step> steps(static_cast<std::size_t>(gpus * gpus));
  std::vector<std::vector<int>> nearest(static_cast<std::size_t>(gpus));
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      if (a == b) continue;
      steps[static_cast<std::size_t>(a * gpus + b)] = ring_step(node, a, b, read_efficiency);
      nearest[static_cast<std::size_t>(a)].push_back(b);
    }
    std::stable_sort(nearest[static_cast<std::size_t>(a)].begin(),
                     nearest[static_cast<std::size_t>(a)].end(), [&](int x, int y) {
                       const Step& sx = steps[static_cast<std::size_t>(a * gpus + x)];
                       const Step& sy = steps[static_cast<std::size_t>(a * gpus + y)];
                       if (sx.type != sy.type) return sx.type < sy.type;
                       return node.gpu_path(a, x).gigabytes_per_second >
                              node.gpu_path(a, y).gigabytes_per_second;
                     });
  }
  const auto step_of = [&](int a, int b) -> const Step& {
    return steps[static_cast<std::size_t>(a * gpus + b)];
  };
  // A budget of search steps per channel keeps large nodes bounded; the search is
  // deterministic, so a cut-off search still gives the same ring every run.
  constexpr long budget = 2'000'000;
  // The first channel takes any step type; later ones no worse than its worst, as NCCL searches
  // every channel of a graph at one type (no ring through host memory beside NVLink rings).
  PathType allowed = PathType::sys;
  for (int c = 0; c < max_channels; ++c) {
    std::vector<double> load(residual.size(), 0.0);
    std::vector<int> order{0};
    std::vector<bool> used(static_cast<std::size_t>(gpus), false);
    used[0] = true;
    std::vector<int> best_order;
    double best = 0.0;
    long searched = 0;
    auto bottleneck_after = [&](int a, int b, double current) {
      for (const auto& [l, cost] : step_of(a, b).loads) {
        load[static_cast<std::size_t>(l)] += cost;
        current = std::min(
            current, residual[static_cast<std::size_t>(l)] / load[static_cast<std::size_t>(l)]);
      }
      return current;
    };
    auto undo = [&](int a, int b) {
      for (const auto& [l, cost] : step_of(a, b).loads) load[static_cast<std::size_t>(l)] -= cost;
    };
    std::function<void(double)> extend = [&](double current) {
      if (++searched > budget) return;
      const int last = order.back();
      if (static_cast<int>(order.size()) == gpus) {
        if (step_of(last, 0).type > allowed) return;
        const double closed = bottleneck_after(last, 0, current);
        undo(last, 0);
        if (closed > best) {
          best = closed;
          best_order = order;
        }
        return;
      }
      for (const int g : nearest[static_cast<std::size_t>(last)]) {
        if (used[static_cast<std::size_t>(g)] || step_of(last, g).type > allowed) continue;
        const double after = bottleneck_after(last, g, current);
        if (after > best) {
          used[static_cast<std::size_t>(g)] = true;
          order.push_back(g);
          extend(after);
          order.pop_back();
          used[static_cast<std::size_t>(g)] = false;
        }
        undo(last, g);
      }
    };
    extend(std::numeric_limits<double>::infinity());
    // Channels stop when none is left, or at a sliver (under 1% of the first channel).
    if (best_order.empty() ||
        (!channels.empty() && best < 0.01 * channels.front().gigabytes_per_second)) {
      break;
    }
    RingChannel channel{best_order, best, false, PathType::loc};
    for (int i = 0; i < gpus; ++i) {
      const Step& step = step_of(best_order[static_cast<std::size_t>(i)],
                                 best_order[static_cast<std::size_t>((i + 1) % gpus)]);
      channel.through_host = channel.through_host || step.through_host;
      channel.worst_hop = std::max(channel.worst_hop, step.type);
      for (const auto& [l, cost] : step.loads) {
        residual[static_cast<std::size_t>(l)] =
            std::max(0.0, residual[static_cast<std::size_t>(l)] - best * cost);
      }
    }
    if (channels.empty()) allowed = channel.worst_hop;
    channels.push_back(std::move(channel));
  }
  return channels;
}

double first_gpus_ring_gbps(const NodeTopology& node, int count, double read_efficiency) {
  const NodeTopology part = NodeTopology::build(node.first_gpus(count), node.description().name);
  return model_node(part, read_efficiency).ring_gbps;
}

double host_copy_gbps(const NodeTopology& node, int group) {
  SGDSIM_ASSERT(group >= 1 && group <= node.gpus(), "host_copy_gbps: group out of range");
  std::map<int, double> shares;  // link -> the shares of a group's buffer it carries
  for (int g = 0; g < node.gpus(); ++g) {
    for (int link : node.cpu_path(node.gpu_cpu(g), g).links) shares[link] += 1.0 / group;
  }
  double seconds_per_gigabyte = 0.0;
  for (const auto& [link, share] : shares) {
    seconds_per_gigabyte =
        std::max(seconds_per_gigabyte,
                 share / node.links()[static_cast<std::size_t>(link)].gigabytes_per_second);
  }
  return seconds_per_gigabyte > 0.0 ? 8.0 / seconds_per_gigabyte
                                    : std::numeric_limits<double>::infinity();
}

NodeModel model_node(const NodeTopology& node, double read_efficiency) {
  NodeModel model;
  model.gpus = node.gpus();
  model.channels = search_rings(node, 16, read_efficiency);
  double ring = 0.0;
  for (const RingChannel& channel : model.channels) {
    ring += channel.gigabytes_per_second;
    model.ring_through_host = model.ring_through_host || channel.through_host;
    model.worst_ring_hop = std::max(model.worst_ring_hop, channel.worst_hop);
  }
  model.ring_gbps = ring * 8.0;
  // What a GPU's reads of host memory reach over its path from its CPU, Gbit/s.
  const auto host_read_gbps = [&node, read_efficiency](int g) {
    return node.cpu_path(node.gpu_cpu(g), g).gigabytes_per_second * read_efficiency * 8.0;
  };
  if (node.nics() == 0) {
    for (int g = 0; g < node.gpus(); ++g) {
      if (!node.description().gpus[static_cast<std::size_t>(g)].gdr_capable) {
        model.nic_path_gbps = std::max(model.nic_path_gbps, host_read_gbps(g));
      }
      model.nic_staged_gbps = std::max(model.nic_staged_gbps, host_read_gbps(g));
    }
    return model;
  }
  // One NIC per GPU when there are as many NICs as GPUs and each GPU, in order, finds a NIC of
  // its best path type that no GPU before it took.
  std::vector<int> nearest;
  std::vector<bool> taken(static_cast<std::size_t>(node.nics()), false);
  model.nic_per_gpu = node.nics() == node.gpus();
  for (int g = 0; g < node.gpus(); ++g) {
    const PathType best = node.nic_path(g, node.nearest_nic(g)).type;
    int pick = -1;
    for (int n = 0; n < node.nics() && pick < 0; ++n) {
      if (!taken[static_cast<std::size_t>(n)] && node.nic_path(g, n).type == best) pick = n;
    }
    model.nic_per_gpu = model.nic_per_gpu && pick >= 0;
    if (pick >= 0) taken[static_cast<std::size_t>(pick)] = true;
    nearest.push_back(pick >= 0 ? pick : node.nearest_nic(g));
  }
  // What a NIC's traffic reaches: its line rate, at most the best GPU path to it (a GPU's PCIe
  // link without GPUDirect RDMA too: the data then goes through host memory on the same links).
  // Without GPUDirect RDMA the NIC's received data waits in the GPU's host memory for the
  // GPU to read, which its path from its CPU carries at host_read_efficiency.
  const auto nic_gbps = [&node, &host_read_gbps](int g, int n, bool staged) {
    const double path = node.nic_path(g, n).gigabytes_per_second * 8.0;
    return node.gdr(g, n) && !staged ? path : std::min(path, host_read_gbps(g));
  };
  model.gdr = true;
  if (model.nic_per_gpu) {
    model.nic_line_gbps = std::numeric_limits<double>::infinity();
    model.nic_path_gbps = std::numeric_limits<double>::infinity();
    model.nic_staged_gbps = std::numeric_limits<double>::infinity();
    for (int g = 0; g < node.gpus(); ++g) {
      const int nic = nearest[static_cast<std::size_t>(g)];
      model.nic_line_gbps = std::min(
          model.nic_line_gbps, node.description().nics[static_cast<std::size_t>(nic)].speed_gbps);
      model.nic_path_gbps = std::min(model.nic_path_gbps, nic_gbps(g, nic, false));
      model.nic_staged_gbps = std::min(model.nic_staged_gbps, nic_gbps(g, nic, true));
      model.gdr = model.gdr && node.gdr(g, nic);
    }
    return model;
  }
  for (int n = 0; n < node.nics(); ++n) {
    double path = 0.0;
    double staged = 0.0;
    bool gdr = false;
    for (int g = 0; g < node.gpus(); ++g) {
      path = std::max(path, nic_gbps(g, n, false));
      staged = std::max(staged, nic_gbps(g, n, true));
      gdr = gdr || node.gdr(g, n);
    }
    const double line = node.description().nics[static_cast<std::size_t>(n)].speed_gbps;
    model.nic_line_gbps += line;
    model.nic_path_gbps += path;
    model.nic_staged_gbps += staged;
    model.gdr = model.gdr && gdr;
  }
  return model;
}

ReadEfficiencyFit fit_read_efficiency(const NodeTopology& node, double ring_gbps) {
  using Outcome = ReadEfficiencyFit::Outcome;
  const auto ring = [&node](double efficiency) { return model_node(node, efficiency).ring_gbps; };
  double low = 0.01;
  double high = 1.0;
  const double slowest = ring(low);
  const double fastest = ring(high);
  if (slowest == fastest) return {Outcome::not_through_host, 0.0};
  if (ring_gbps > fastest) return {Outcome::above, 0.0};
  if (ring_gbps < slowest) return {Outcome::below, 0.0};
  // The rings never shrink as the reads get faster: halve [low, high] around the first
  // fraction that reaches ring_gbps, to well under the figures' three digits.
  for (int i = 0; i < 40; ++i) {
    const double middle = 0.5 * (low + high);
    (ring(middle) >= ring_gbps ? high : low) = middle;
  }
  return {Outcome::fitted, high};
}

}  // namespace sgdsim
