// Node descriptions: sgdsim's JSON, NCCL's XML topology dump and nvidia-smi's topology matrix.
#include "sgdsim/trace_io/node_description_io.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/jsonio/json_reader.hpp"

namespace sgdsim {

namespace {

constexpr const char* node_format = "sgdsim-node";

// "3.0 x16" (or "none" where `none_allowed`: a NIC on no PCI link, NCCL's LOC_BW).
PcieLink pcie_from_text(jsonio::ObjectReader& reader, std::string_view key,
                        bool none_allowed = false) {
  const std::string text = reader.text(key);
  if (none_allowed && text == "none") return PcieLink{0, 0};
  const std::optional<PcieLink> link = parse_pcie(text);
  if (!link) {
    reader.fail(key,
                none_allowed ? "a PCIe link as \"GEN.0 xLANES\" (generation 1 to 6, 1 to 32 "
                               "lanes), or \"none\" for a NIC on no PCI link"
                             : "a PCIe link as \"GEN.0 xLANES\" (generation 1 to 6, 1 to 32 lanes)",
                reader.value(key));
  }
  return *link;
}

std::string require_name(jsonio::ObjectReader& reader) {
  std::string name = reader.text("name");
  if (name.empty()) reader.fail("name", "a non-empty name", reader.value("name"));
  return name;
}

template <typename Element, typename Read>
std::vector<Element> read_array(jsonio::ObjectReader& reader, std::string_view key, bool required,
                                Read read) {
  std::vector<Element> out;
  if (!required && !reader.has(key)) return out;
  const nlohmann::json& items = reader.value(key);
  if (!items.is_array() || (required && items.empty())) {
    reader.fail(key, required ? "a non-empty array" : "an array", items);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    jsonio::ObjectReader item(items[i], reader.source(),
                              jsonio::element_path(reader.path_of(key), i));
    out.push_back(read(item));
    item.reject_unknown_keys();
  }
  return out;
}

}  // namespace

NodeDescription node_description_from_json(const nlohmann::json& root, const std::string& source,
                                           const std::string& path) {
  jsonio::ObjectReader reader(root, source, path);
  if (reader.text("format") != node_format) {
    reader.fail("format", fmt::format("\"{}\" (a node description)", node_format),
                reader.value("format"));
  }
  reader.integer_in("version", 1, 1);
  NodeDescription node;
  node.name = reader.text_or("name", "");
  node.source = reader.text_or("source", "");
  node.p2p_supported =
      reader.choice_or("p2p", {"supported", "disabled"}, "supported") == "supported";
  node.cpus = read_array<NodeCpu>(reader, "cpus", true, [](jsonio::ObjectReader& item) {
    NodeCpu cpu;
    cpu.name = require_name(item);
    cpu.vendor = cpu_vendor_of(item.choice_or("vendor", cpu_vendor_names(), "intel"));
    cpu.generation =
        intel_generation_of(item.choice_or("generation", intel_generation_names(), "skylake"));
    return cpu;
  });
  node.switches =
      read_array<NodePciSwitch>(reader, "switches", false, [](jsonio::ObjectReader& item) {
        NodePciSwitch sw;
        sw.name = require_name(item);
        sw.parent = item.text("parent");
        sw.uplink = pcie_from_text(item, "pcie");
        return sw;
      });
  node.gpus = read_array<NodeGpu>(reader, "gpus", true, [](jsonio::ObjectReader& item) {
    NodeGpu gpu;
    gpu.name = require_name(item);
    gpu.parent = item.text("parent");
    gpu.link = pcie_from_text(item, "pcie");
    gpu.sm = static_cast<int>(item.integer_in_or("sm", 30, 200, 70));
    if (item.has("nvlinks")) {
      const nlohmann::json& links = item.value("nvlinks");
      if (!links.is_object()) item.fail("nvlinks", "an object {GPU name: link count}", links);
      for (const auto& [peer, count] : links.items()) {
        if (!count.is_number_integer() || count.get<std::int64_t>() < 1 ||
            count.get<std::int64_t>() > 18) {
          throw value_error(item.source(), item.path_of("nvlinks") + "." + peer,
                            "a link count from 1 to 18", jsonio::describe(count));
        }
        gpu.nvlinks.emplace_back(peer, count.get<int>());
      }
    }
    gpu.nvswitch_links = static_cast<int>(item.integer_in_or("nvswitch_links", 0, 18, 0));
    gpu.gdr_capable = item.choice_or("gdr", {"supported", "disabled"}, "supported") == "supported";
    return gpu;
  });
  node.nics = read_array<NodeNic>(reader, "nics", false, [](jsonio::ObjectReader& item) {
    NodeNic nic;
    nic.name = require_name(item);
    nic.parent = item.text("parent");
    nic.link = pcie_from_text(item, "pcie", true);
    nic.speed_gbps = item.positive_number("speed_gbps");
    nic.gdr_capable = item.choice_or("gdr", {"supported", "disabled"}, "supported") == "supported";
    return nic;
  });
  reader.reject_unknown_keys();
  // The graph's own checks (parents, paths), named after the file.
  NodeTopology::build(node, path.empty() ? source : fmt::format("{}: {}", source, path));
  return node;
}

NodeDescription read_node_description(const std::filesystem::path& path) {
  const jsonio::Document document = jsonio::parse_file(path);
  return node_description_from_json(document.root, document.source, "");
}

nlohmann::json node_description_json(const NodeDescription& node) {
  nlohmann::ordered_json out;
  out["format"] = node_format;
  out["version"] = 1;
  out["name"] = node.name;
  out["source"] = node.source;
  out["p2p"] = node.p2p_supported ? "supported" : "disabled";
  for (const NodeCpu& cpu : node.cpus) {
    nlohmann::ordered_json item{
        {"name", cpu.name}, {"vendor", cpu_vendor_names()[static_cast<std::size_t>(cpu.vendor)]}};
    if (cpu.vendor == CpuVendor::intel) {
      item["generation"] = intel_generation_names()[static_cast<std::size_t>(cpu.generation)];
    }
    out["cpus"].push_back(item);
  }
  for (const NodePciSwitch& sw : node.switches) {
    out["switches"].push_back(
        {{"name", sw.name}, {"parent", sw.parent}, {"pcie", pcie_text(sw.uplink)}});
  }
  for (const NodeGpu& gpu : node.gpus) {
    nlohmann::ordered_json item{
        {"name", gpu.name}, {"parent", gpu.parent}, {"pcie", pcie_text(gpu.link)}, {"sm", gpu.sm}};
    if (!gpu.nvlinks.empty()) {
      nlohmann::ordered_json links = nlohmann::ordered_json::object();
      for (const auto& [peer, count] : gpu.nvlinks) links[peer] = count;
      item["nvlinks"] = links;
    }
    if (gpu.nvswitch_links > 0) item["nvswitch_links"] = gpu.nvswitch_links;
    if (!gpu.gdr_capable) item["gdr"] = "disabled";
    out["gpus"].push_back(item);
  }
  for (const NodeNic& nic : node.nics) {
    out["nics"].push_back({{"name", nic.name},
                           {"parent", nic.parent},
                           {"pcie", pcie_text(nic.link)},
                           {"speed_gbps", nic.speed_gbps},
                           {"gdr", nic.gdr_capable ? "supported" : "disabled"}});
  }
  return nlohmann::json::parse(out.dump());
}

// ---------------------------------------------------------------------------------------------
// NCCL's XML dump: <system><cpu ...><pci class=...>...<gpu/>...<nic><net/></nic></pci></cpu>.

namespace {

// "8.0 GT/s PCIe" or "8 GT/s" -> generation 3; 0 when absent or unknown.
int generation_of(std::string speed) {
  const double gts = std::atof(speed.c_str());
  if (gts <= 0.0) return 0;
  int generation = 1;
  for (double rate = 2.5; rate * 1.5 < gts && generation < 6; rate *= 2.0) ++generation;
  // 2.5, 5, 8, 16, 32, 64 GT/s: 8 is 3.0 although not double 5.
  return generation;
}

struct XmlImport {
  std::string source;
  NodeImportFacts facts;
  bool bare_gpus = false;   // GPUs listed as bare PCI devices (an NCCL_TOPO_FILE override)
  bool bare_links = false;  // NVLinks sgdsim does not price (to a POWER9 CPU)
  int depth = 0;
  NodeDescription node;
  std::map<std::string, std::string> gpu_by_busid;  // "0000:05:00.0" -> "gpu3"
  std::map<std::string, int> dev_of;  // each GPU's CUDA device number, where the dump gives it
  std::vector<std::pair<std::string, std::pair<std::string, int>>> nvlink_targets;  // gpu, busid
  int switches = 0;

  [[noreturn]] void fail(const pugi::xml_node& at, const std::string& what) const {
    throw InputError(
        fmt::format("{}: <{}> at offset {}: {}", source, at.name(), at.offset_debug(), what));
  }

  // NCCL reads an unknown speed as 8 GT/s and a width of 0 as 16 lanes.
  static PcieLink link_of(const pugi::xml_node& pci) {
    PcieLink link;
    link.generation = generation_of(pci.attribute("link_speed").as_string());
    if (link.generation == 0) link.generation = 3;
    link.lanes = pci.attribute("link_width").as_int(0);
    if (link.lanes <= 0) link.lanes = 16;
    link.lanes = std::min(link.lanes, 32);
    return link;
  }

  void add_gpu(const pugi::xml_node& pci, const pugi::xml_node& gpu, const std::string& parent) {
    NodeGpu out;
    const int dev = gpu ? gpu.attribute("dev").as_int(-1) : -1;
    out.name = fmt::format("gpu{}", dev >= 0 ? dev : static_cast<int>(node.gpus.size()));
    if (dev >= 0) dev_of[out.name] = dev;
    out.parent = parent;
    out.link = link_of(pci);
    bare_gpus = bare_gpus || !gpu;
    const std::string sm = gpu ? gpu.attribute("sm").as_string() : "";
    out.sm = sm.empty() ? facts.sm : std::atoi(sm.c_str());
    if (out.sm < 30 || out.sm > 200) fail(gpu, fmt::format("compute capability sm=\"{}\"", sm));
    gpu_by_busid[pci.attribute("busid").as_string()] = out.name;
    for (const pugi::xml_node& nvlink : gpu.children("nvlink")) {
      const int count = nvlink.attribute("count").as_int(0);
      if (count < 1 || count > 18) fail(nvlink, "an <nvlink> count outside 1 to 18");
      const std::string tclass = nvlink.attribute("tclass").as_string();
      if (tclass == "0x068000") {
        out.nvswitch_links += count;  // an NVSwitch
      } else if (tclass == "0x068001") {
        bare_links = true;  // NVLink to a POWER9 CPU: not priced
      } else {
        nvlink_targets.push_back({out.name, {nvlink.attribute("target").as_string(), count}});
      }
    }
    if (out.nvswitch_links > 18) fail(gpu, "more than 18 NVLinks into NVSwitches");
    // NCCL writes gdr="1" or "0" as it will use GPUDirect RDMA: from CUDA's
    // cudaDevAttrGPUDirectRDMASupported since CUDA 11.3 (GeForce cards: 0), before that from
    // registering GPU memory with a NIC, so an older dump's 0 may also mean a missing
    // nvidia-peermem (NCCL src/plugin/net.cc, ncclGpuGdrSupport); either way NCCL then stages
    // through host memory. Without the attribute (an override file), --no-gdr says.
    out.gdr_capable =
        gpu && gpu.attribute("gdr") ? gpu.attribute("gdr").as_int(0) == 1 : facts.gdr_capable;
    node.gpus.push_back(out);
  }

  static bool is_class(const pugi::xml_node& pci, const char* prefix) {
    return std::string(pci.attribute("class").as_string()).rfind(prefix, 0) == 0;
  }

  void add_nics(const pugi::xml_node& nic_element, const std::string& parent, PcieLink link) {
    for (const pugi::xml_node& net : nic_element.children("net")) {
      NodeNic nic;
      nic.name = net.attribute("name").as_string();
      if (nic.name.empty()) nic.name = fmt::format("nic{}", node.nics.size());
      nic.parent = parent;
      nic.link = link;
      // NCCL records speed in Mbit/s.
      nic.speed_gbps = net.attribute("speed").as_double(0.0) / 1000.0;
      if (!(nic.speed_gbps > 0.0)) fail(net, "a <net> without a positive speed (Mbit/s)");
      nic.gdr_capable = net.attribute("gdr").as_int(0) == 1;
      node.nics.push_back(nic);
    }
  }

  void walk(const pugi::xml_node& element, const std::string& parent) {
    // Real dumps nest a few bridges deep; a deeper file is refused before recursion runs out.
    constexpr int max_depth = 64;
    if (++depth > max_depth)
      fail(element, fmt::format("PCI bridges nested over {} deep", max_depth));
    for (const pugi::xml_node& child : element.children()) {
      const std::string name = child.name();
      if (name == "nic") {
        // A NIC NCCL could not place on a PCI link hangs from the CPU on no PCI link (NCCL's
        // LOC_BW).
        add_nics(child, parent, PcieLink{0, 0});
      } else if (name == "pci") {
        const PcieLink link = link_of(child);
        const pugi::xml_node gpu = child.child("gpu");
        const pugi::xml_node nic = child.child("nic");
        if (gpu || is_class(child, "0x0302") || is_class(child, "0x0300")) {
          add_gpu(child, gpu, parent);  // a bare GPU in an NCCL_TOPO_FILE override too
        } else if (nic) {
          add_nics(nic, parent, link);
        } else if (is_class(child, "0x0200") || is_class(child, "0x0207")) {
          // A bare Ethernet or InfiniBand controller (an override file): the given speed.
          node.nics.push_back(
              NodeNic{fmt::format("nic{}", node.nics.size()), parent, link, facts.nic_gbps, true});
        } else if (is_class(child, "0x0604")) {
          NodePciSwitch sw;
          sw.name = fmt::format("sw{}", switches++);
          sw.parent = parent;
          sw.uplink = link;
          node.switches.push_back(sw);
          walk(child, sw.name);
        } else {
          walk(child, parent);  // other devices hold nothing sgdsim prices
        }
      }
    }
    --depth;
  }
};

}  // namespace

NodeDescription import_nccl_topology(const std::filesystem::path& path,
                                     const NodeImportFacts& facts) {
  const std::string text = read_input_file(path, "NCCL topology file");
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(text.data(), text.size());
  XmlImport import;
  import.source = path.string();
  import.facts = facts;
  if (!parsed) {
    throw InputError(fmt::format("{}: not XML ({} at offset {})", import.source,
                                 parsed.description(), parsed.offset));
  }
  const pugi::xml_node system = document.child("system");
  if (!system) {
    throw InputError(fmt::format(
        "{}: not an NCCL topology dump (no <system> root; write one with NCCL_TOPO_DUMP_FILE)",
        import.source));
  }
  import.node.name = path.filename().string();
  import.node.source = fmt::format("NCCL topology dump {}", path.filename().string());
  for (const pugi::xml_node& cpu : system.children("cpu")) {
    NodeCpu out;
    out.name = fmt::format(
        "cpu{}", cpu.attribute("numaid").as_int(static_cast<int>(import.node.cpus.size())));
    const std::string arch = cpu.attribute("arch").as_string();
    const std::string vendor = cpu.attribute("vendor").as_string();
    if (arch == "ppc64") {
      out.vendor = CpuVendor::power;
    } else if (arch == "arm64") {
      out.vendor = CpuVendor::arm;
    } else if (vendor == "GenuineIntel") {
      out.vendor = CpuVendor::intel;
    } else if (vendor == "AuthenticAMD") {
      out.vendor = CpuVendor::amd;
    } else if (vendor == "CentaurHauls" || vendor == "  Shanghai  ") {
      out.vendor = CpuVendor::zhaoxin;
    } else {
      out.vendor = CpuVendor::other;
    }
    out.generation = intel_generation_of_model(cpu.attribute("familyid").as_int(6),
                                               cpu.attribute("modelid").as_int(0x55));
    for (const NodeCpu& other : import.node.cpus) {
      if (other.name == out.name)
        import.fail(cpu, fmt::format("two CPUs with numaid of {}", out.name));
    }
    import.node.cpus.push_back(out);
    import.walk(cpu, out.name);
  }
  if (import.node.cpus.empty()) {
    throw InputError(fmt::format("{}: an NCCL topology dump without a <cpu>", import.source));
  }
  if (import.node.gpus.empty()) {
    throw InputError(fmt::format("{}: an NCCL topology dump without a <gpu>", import.source));
  }
  for (const auto& [gpu, target] : import.nvlink_targets) {
    const auto peer = import.gpu_by_busid.find(target.first);
    if (peer == import.gpu_by_busid.end()) continue;  // a link to a CPU or bridge: not priced
    for (NodeGpu& g : import.node.gpus) {
      if (g.name == gpu) g.nvlinks.emplace_back(peer->second, target.second);
    }
  }
  // GPUs in the order CUDA numbers them (the dump's dev), not the tree's: a job of fewer GPUs
  // runs on the first ones (NodeTopology::first_gpus).
  if (import.dev_of.size() == import.node.gpus.size()) {
    std::stable_sort(import.node.gpus.begin(), import.node.gpus.end(),
                     [&import](const NodeGpu& a, const NodeGpu& b) {
                       return import.dev_of.at(a.name) < import.dev_of.at(b.name);
                     });
  }
  if (import.bare_gpus) {
    import.node.warnings.push_back(
        "GPUs listed as bare PCI devices (an NCCL_TOPO_FILE override, not a dump): the file has "
        "no NVLinks, so the node is priced without them; take the dump NCCL writes with "
        "NCCL_TOPO_DUMP_FILE, or add nvlinks/nvswitch_links to the description written");
  }
  if (import.bare_links) {
    import.node.warnings.push_back("NVLinks to POWER9 CPUs are not priced");
  }
  NodeTopology::build(import.node, import.source);
  return import.node;
}

// ---------------------------------------------------------------------------------------------
// nvidia-smi topo -m: a matrix of connection types, GPUs and NICs by rows and columns.

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> out;
  for (std::string word; stream >> word;) out.push_back(word);
  return out;
}

// Strips the escape sequences some nvidia-smi versions print around the header.
std::string without_escapes(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b') {
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

}  // namespace

NodeDescription import_nvidia_smi_topo(const std::filesystem::path& path,
                                       const NodeImportFacts& facts) {
  const std::string source = path.string();
  const std::string text = read_input_file(path, "nvidia-smi topology file");
  std::istringstream stream(text);
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // name, then one entry per column
  std::vector<std::string> affinity;           // each row's CPU affinity ("" for a NIC's)
  for (std::string line; std::getline(stream, line);) {
    line = without_escapes(line);
    std::vector<std::string> w = words(line);
    if (w.empty()) {
      if (!columns.empty() && !rows.empty()) break;  // the legend follows
      continue;
    }
    if (columns.empty()) {
      if (w[0] == "GPU0") {
        for (const std::string& c : w) {
          if (c == "CPU" || c == "NUMA" || c == "GPU") break;
          columns.push_back(c);
        }
      }
      continue;
    }
    if (w[0] == "Legend:") break;
    if (w.size() < columns.size() + 1) {
      throw InputError(fmt::format("{}: row \"{}\" has {} entries for {} columns", source, w[0],
                                   w.size() - 1, columns.size()));
    }
    rows.push_back(
        std::vector<std::string>(w.begin(), w.begin() + static_cast<long>(columns.size()) + 1));
    affinity.push_back(w.size() > columns.size() + 1 ? w[columns.size() + 1] : "");
  }
  if (columns.empty() || rows.empty()) {
    throw InputError(fmt::format(
        "{}: not `nvidia-smi topo -m` output (no header row starting with GPU0)", source));
  }
  if (rows.size() != columns.size()) {
    throw InputError(
        fmt::format("{}: {} rows for {} columns", source, rows.size(), columns.size()));
  }
  const std::size_t n = columns.size();
  std::vector<bool> is_gpu(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i][0] != columns[i]) {
      throw InputError(fmt::format("{}: row {} is \"{}\", column {} \"{}\"", source, i + 1,
                                   rows[i][0], i + 1, columns[i]));
    }
    is_gpu[i] = columns[i].rfind("GPU", 0) == 0;
  }
  auto rel = [&](std::size_t a, std::size_t b) { return rows[a][b + 1]; };
  const std::set<std::string> known{"SYS", "NODE", "PHB", "PXB", "PIX", "SOC"};
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      const std::string r = rel(a, b);
      const bool nvlink = r.size() > 2 && r.rfind("NV", 0) == 0 && is_gpu[a] && is_gpu[b];
      if ((a == b) != (r == "X") || (a != b && !known.count(r) && !nvlink)) {
        throw InputError(fmt::format("{}: unknown connection \"{}\" between {} and {}", source, r,
                                     columns[a], columns[b]));
      }
      if (r != rel(b, a)) {
        throw InputError(fmt::format("{}: {} to {} is \"{}\" but {} to {} is \"{}\"", source,
                                     columns[a], columns[b], r, columns[b], columns[a], rel(b, a)));
      }
    }
  }
  // Classes of devices by union-find. NV# hides the PCIe relation of an NVLinked pair, so it
  // joins nothing; GPUs with the same CPU affinity share a socket.
  std::vector<std::size_t> parent(n);
  const auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const auto classes = [&](const auto& joined) {
    for (std::size_t i = 0; i < n; ++i) parent[i] = i;
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = a + 1; b < n; ++b) {
        if (joined(a, b)) parent[find(a)] = find(b);
      }
    }
    std::map<std::size_t, int> number;
    std::vector<int> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = number.emplace(find(i), static_cast<int>(number.size())).first->second;
    }
    return std::pair{out, static_cast<int>(number.size())};
  };
  const auto is_nvlink = [&](std::size_t a, std::size_t b) {
    return rel(a, b).rfind("NV", 0) == 0;
  };
  const auto socket_classes = classes([&](std::size_t a, std::size_t b) {
    const std::string r = rel(a, b);
    return (r != "SYS" && r != "SOC" && !is_nvlink(a, b)) ||
           (!affinity[a].empty() && affinity[a] == affinity[b]);
  });
  // (Named copies, not structured bindings: clang 14 cannot capture those in lambdas.)
  const std::vector<int>& socket = socket_classes.first;
  const int sockets = socket_classes.second;
  NodeDescription node;
  node.name = path.filename().string();
  node.source = fmt::format("nvidia-smi topo -m output {}", path.filename().string());
  node.p2p_supported = facts.p2p_supported;
  for (int s = 0; s < sockets; ++s) {
    node.cpus.push_back(NodeCpu{fmt::format("cpu{}", s), facts.vendor, facts.generation});
  }
  // Switches: devices joined by PIX share one; switches whose devices are PXB to each other
  // share a parent switch (a bridge); devices in neither hang from their CPU.
  const auto pix = classes([&](std::size_t a, std::size_t b) { return rel(a, b) == "PIX"; });
  const std::vector<int>& pix_class = pix.first;
  const int pix_classes = pix.second;
  std::vector<int> members(static_cast<std::size_t>(pix_classes), 0);
  std::vector<bool> pxb(n, false);
  for (std::size_t a = 0; a < n; ++a) {
    members[static_cast<std::size_t>(pix_class[a])] += 1;
    for (std::size_t b = 0; b < n; ++b) pxb[a] = pxb[a] || rel(a, b) == "PXB";
  }
  // A device is in a switch when it shares one (PIX) or is behind a bridge (PXB).
  const auto switched = [&](std::size_t d) {
    return members[static_cast<std::size_t>(pix_class[d])] > 1 || pxb[d];
  };
  const auto bridges = classes([&](std::size_t a, std::size_t b) {
    return rel(a, b) == "PXB" || (pxb[a] && pxb[b] && pix_class[a] == pix_class[b]);
  });
  const std::vector<int>& bridge_class = bridges.first;
  std::vector<std::string> parent_of(n);
  std::set<int> bridges_made;
  std::set<int> switches_made;
  for (std::size_t d = 0; d < n; ++d) {
    const std::string cpu = fmt::format("cpu{}", socket[d]);
    if (!switched(d)) {
      parent_of[d] = cpu;
      continue;
    }
    std::string up = cpu;
    if (pxb[d]) {
      up = fmt::format("bridge{}", bridge_class[d]);
      if (bridges_made.insert(bridge_class[d]).second) {
        node.switches.push_back(NodePciSwitch{up, cpu, facts.pcie});
      }
    }
    parent_of[d] = fmt::format("sw{}", pix_class[d]);
    if (switches_made.insert(pix_class[d]).second) {
      node.switches.push_back(NodePciSwitch{parent_of[d], up, facts.pcie});
    }
  }
  std::map<std::string, std::string> gpu_names;
  for (std::size_t d = 0; d < n; ++d) {
    if (!is_gpu[d]) continue;
    NodeGpu gpu;
    gpu.name = "gpu" + columns[d].substr(3);
    gpu.parent = parent_of[d];
    gpu.link = facts.pcie;
    gpu.sm = facts.sm;
    gpu.gdr_capable = facts.gdr_capable;
    for (std::size_t b = d + 1; b < n; ++b) {
      const std::string r = rel(d, b);
      if (is_gpu[b] && r.rfind("NV", 0) == 0) {
        const int count = std::atoi(r.c_str() + 2);
        if (count < 1 || count > 18) {
          throw InputError(fmt::format("{}: \"{}\" between {} and {} (NV1 to NV18)", source, r,
                                       columns[d], columns[b]));
        }
        gpu.nvlinks.emplace_back("gpu" + columns[b].substr(3), count);
      }
    }
    node.gpus.push_back(gpu);
  }
  // NVSwitch nodes show NV# between every pair: more links than a GPU has (18) means a fabric,
  // each GPU with its largest count of links into it.
  std::map<std::string, int> links_of;
  for (const NodeGpu& g : node.gpus) {
    for (const auto& [peer, count] : g.nvlinks) {
      links_of[g.name] += count;
      links_of[peer] += count;
    }
  }
  if (std::any_of(links_of.begin(), links_of.end(), [](const auto& l) { return l.second > 18; })) {
    std::map<std::string, int> widest;
    for (const NodeGpu& g : node.gpus) {
      for (const auto& [peer, count] : g.nvlinks) {
        widest[g.name] = std::max(widest[g.name], count);
        widest[peer] = std::max(widest[peer], count);
      }
    }
    for (NodeGpu& g : node.gpus) {
      g.nvlinks.clear();
      g.nvswitch_links = widest[g.name];
    }
  }
  for (std::size_t d = 0; d < n; ++d) {
    if (is_gpu[d]) continue;
    node.nics.push_back(NodeNic{columns[d], parent_of[d], facts.pcie, facts.nic_gbps, true});
  }
  NodeTopology::build(node, source);
  return node;
}

std::string node_file_kind(const std::filesystem::path& path) {
  const std::string text = read_input_file(path, "node topology file");
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && text[start] == '<') return "nccl_xml";
  for (std::istringstream stream(text); !stream.eof();) {
    std::string line;
    std::getline(stream, line);
    const std::vector<std::string> w = words(without_escapes(line));
    if (!w.empty() && w[0] == "GPU0") return "nvidia_smi";
  }
  return "";
}

}  // namespace sgdsim
