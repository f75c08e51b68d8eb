// `sgdsim topology show | list | import`.
#include "topology_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "output_file.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/scenario/scenario.hpp"
#include "sgdsim/trace_io/node_description_io.hpp"

namespace sgdsim::cli {

namespace {

std::string show_text(const NodeTopology& node, const NodeModel& model) {
  const NodeDescription& d = node.description();
  std::string out = fmt::format("node:    {}\nsource:  {}\n", d.name.empty() ? "-" : d.name,
                                d.source.empty() ? "-" : d.source);
  out +=
      fmt::format("layout:  {} CPU socket(s), {} PCIe switch(es), {} GPU(s), {} NIC(s); P2P {}\n",
                  d.cpus.size(), d.switches.size(), d.gpus.size(), d.nics.size(),
                  d.p2p_supported ? "supported" : "disabled by the cards or platform");
  out +=
      "\npaths as NCCL classifies them (type/GB/s per direction; * no P2P: through host memory)\n";
  out += fmt::format("{:>8}", "");
  for (const NodeGpu& gpu : d.gpus) out += fmt::format("{:>11}", gpu.name);
  for (const NodeNic& nic : d.nics) out += fmt::format("{:>11}", nic.name);
  out += '\n';
  for (int a = 0; a < node.gpus(); ++a) {
    out += fmt::format("{:>8}", d.gpus[static_cast<std::size_t>(a)].name);
    for (int b = 0; b < node.gpus(); ++b) {
      if (a == b) {
        out += fmt::format("{:>11}", "X");
        continue;
      }
      const bool p2p = node.p2p(a, b);
      const auto path = p2p ? node.gpu_path(a, b) : node.host_path(a, b);
      out +=
          fmt::format("{:>11}", fmt::format("{}{}/{:.1f}", p2p ? "" : "*",
                                            path_type_name(path.type), path.gigabytes_per_second));
    }
    for (int n = 0; n < node.nics(); ++n) {
      const auto& path = node.nic_path(a, n);
      out +=
          fmt::format("{:>11}", fmt::format("{}{}/{:.1f}", node.gdr(a, n) ? "" : "*",
                                            path_type_name(path.type), path.gigabytes_per_second));
    }
    out += '\n';
  }
  if (node.nics() > 0) out += "(NIC columns: * no GPUDirect RDMA, staged through host memory)\n";
  out += "\nrings (NCCL's search: each channel the ring of highest bottleneck left)\n";
  for (std::size_t c = 0; c < model.channels.size(); ++c) {
    const RingChannel& channel = model.channels[c];
    std::string order;
    for (const int g : channel.order) order += fmt::format("{} ", g);
    out += fmt::format("  channel {:>2}: {:>7.2f} GB/s  {}{}\n", c, channel.gigabytes_per_second,
                       order, channel.through_host ? " (through host memory)" : "");
  }
  if (model.channels.empty()) out += "  none (one GPU)\n";
  out += "\nwhat a scenario takes from it\n";
  out += fmt::format("  cluster.gpus_per_node             {}\n", model.gpus);
  out += fmt::format(
      "  cluster.intra_node_bandwidth_gbps {:.1f}  (rings' bus bandwidth, worst hop {})\n",
      model.gpus > 1 ? model.ring_gbps : default_intra_node_gbps,
      path_type_name(model.worst_ring_hop));
  if (node.nics() > 0) {
    out += fmt::format("  cluster.nic                       {}\n",
                       model.nic_per_gpu ? "per_gpu" : "per_node");
    out += fmt::format(
        "  network.bandwidth_gbps            {:.1f}  (NIC line rate; the GPU-NIC "
        "paths cap it at {:.1f})\n",
        model.nic_line_gbps, model.nic_path_gbps);
    out += fmt::format("  GPUDirect RDMA                    {}\n", model.gdr ? "yes" : "no");
    if (model.nic_staged_gbps != model.nic_path_gbps) {
      out += fmt::format(
          "  over sockets (tcp, ipoib)         {:.1f}  (no GPUDirect RDMA through the kernel's "
          "sockets: the GPUs read the NICs' data from host memory)\n",
          model.nic_staged_gbps);
    }
  } else if (model.nic_path_gbps > 0.0) {
    out += fmt::format(
        "  no NIC in the description: give network.bandwidth_gbps; the GPUs have no GPUDirect "
        "RDMA, so any NIC's traffic is read from host memory, which caps it at {:.1f}\n",
        model.nic_path_gbps);
  } else {
    out += "  no NIC in the description: give network.bandwidth_gbps\n";
  }
  if (node.gpus() % 2 == 0) {
    // BytePS's two groups (BYTEPS_PCIE_SWITCH_SIZE at half the node; BytePS adds two groups'
    // buffers only): their rings and copies to host memory (collectives/byteps.hpp).
    const int half = node.gpus() / 2;
    const std::string rings =
        half > 1 ? fmt::format("rings {:.1f} Gbit/s a GPU, ", first_gpus_ring_gbps(node, half))
                 : "no rings, ";
    out += fmt::format(
        "\nBytePS in two groups of {} GPU{} (communication.collective.pcie_switch_size {}): {}"
        "copies to host memory {:.1f} Gbit/s a group\n",
        half, half == 1 ? "" : "s", half, rings, host_copy_gbps(node, half));
  }
  return out;
}

}  // namespace

TopologyCommands add_topology_commands(CLI::App& app, TopologyOptions& options) {
  CLI::App* topology = app.add_subcommand(
      "topology", "Nodes as NCCL sees them: show one, list the presets, import a real node's");
  topology->require_subcommand(1);
  TopologyCommands commands;
  commands.show = topology->add_subcommand(
      "show", "Print a node's paths, P2P and GPUDirect RDMA, rings, and what a scenario takes");
  commands.show
      ->add_option("node", options.node,
                   "A preset (sgdsim topology list) or a file: node description, NCCL XML dump, "
                   "nvidia-smi topo -m output")
      ->required();
  commands.show->add_flag("--json", options.json, "Print the node description as JSON instead");
  commands.show
      ->add_option("--gpus", options.gpus,
                   "Only the node's first N GPUs, as a scenario with N GPUs a node runs on them")
      ->check(CLI::Range(1, 1024));
  commands.list = topology->add_subcommand("list", "List the node presets with their sources");
  commands.import = topology->add_subcommand(
      "import", "Write the node description of an NCCL_TOPO_DUMP_FILE XML or nvidia-smi topo -m");
  commands.import->add_option("file", options.input, "The dump or the matrix")->required();
  commands.import->add_option("-o,--output", options.output, "Node description to write (JSON)")
      ->required();
  commands.import->add_option("--from", options.from, "nccl_xml, nvidia_smi or auto (default)")
      ->check(CLI::IsMember({"auto", "nccl_xml", "nvidia_smi"}));
  commands.import->add_option("--name", options.name, "Name of the node (default: the file's)");
  commands.import->add_option("--pcie", options.pcie,
                              "nvidia-smi: every PCIe link, as \"GEN.0 xLANES\" (default 3.0 x16)");
  commands.import
      ->add_option("--sm", options.sm,
                   "the GPUs' compute capability x 10 where the file has none (default 70)")
      ->check(CLI::Range(30, 200));
  commands.import
      ->add_option("--nic-gbps", options.nic_gbps,
                   "each NIC's line rate, Gbit/s, where the file has none (default 100)")
      ->check(CLI::Range(1e-3, 1e5));
  commands.import->add_option("--cpu", options.cpu, "nvidia-smi: the CPUs' vendor (default intel)")
      ->check(CLI::IsMember(cpu_vendor_names()));
  commands.import
      ->add_option("--cpu-generation", options.generation,
                   "nvidia-smi: Intel CPUs' generation, which prices the link between sockets: "
                   "before_skylake, skylake (default), sapphire_rapids, emerald_rapids")
      ->check(CLI::IsMember(intel_generation_names()));
  commands.import->add_flag(
      "--no-p2p", options.no_p2p,
      "nvidia-smi: the cards do not allow P2P (GeForce; topo -p2p r shows NS)");
  commands.import->add_flag(
      "--no-gdr", options.no_gdr,
      "the cards do not support GPUDirect RDMA (GeForce), where the file does not say: NICs' "
      "traffic is then staged through host memory");
  return commands;
}

void topology_command(const TopologyCommands& commands, const TopologyOptions& options) {
  if (commands.list->parsed()) {
    std::string out;
    for (const NodePresetEntry& entry : node_preset_entries()) {
      out += fmt::format("{:<28} {}\n{:<28} source: {}\n", entry.name, entry.summary, "",
                         entry.source);
    }
    std::fputs(out.c_str(), stdout);
    return;
  }
  if (commands.show->parsed()) {
    const NodeDescription description = resolve_node(options.node, "", "topology show");
    for (const std::string& warning : description.warnings) {
      std::fprintf(stderr, "warning: %s: %s\n", options.node.c_str(), warning.c_str());
    }
    NodeTopology node = NodeTopology::build(description, options.node);
    if (options.gpus > node.gpus()) {
      throw InputError(
          fmt::format("topology show: --gpus {}: the node has {} GPUs", options.gpus, node.gpus()));
    }
    if (options.gpus > 0 && options.gpus < node.gpus()) {
      node = NodeTopology::build(node.first_gpus(options.gpus), options.node);
    }
    std::fputs(options.json ? (node_description_json(node.description()).dump(2) + "\n").c_str()
                            : show_text(node, model_node(node)).c_str(),
               stdout);
    return;
  }
  check_outputs({options.output}, {options.input});
  std::string kind = options.from;
  if (kind == "auto") {
    kind = node_file_kind(options.input);
    if (kind.empty()) {
      throw InputError(fmt::format(
          "{}: neither an NCCL topology dump (XML with a <system> root) nor nvidia-smi topo -m "
          "output (a header row starting with GPU0)",
          options.input));
    }
  }
  NodeDescription description;
  {
    NodeImportFacts facts;
    const std::optional<PcieLink> pcie = parse_pcie(options.pcie);
    if (!pcie) {
      throw InputError(fmt::format(
          "--pcie \"{}\": a PCIe link as \"GEN.0 xLANES\" (generation 1 to 6, 1 to 32 lanes), "
          "e.g. \"4.0 x16\"",
          options.pcie));
    }
    facts.pcie = *pcie;
    facts.sm = options.sm;
    facts.nic_gbps = options.nic_gbps;
    facts.vendor = cpu_vendor_of(options.cpu);
    facts.generation = intel_generation_of(options.generation);
    facts.p2p_supported = !options.no_p2p;
    facts.gdr_capable = !options.no_gdr;
    description = kind == "nccl_xml" ? import_nccl_topology(options.input, facts)
                                     : import_nvidia_smi_topo(options.input, facts);
  }
  if (!options.name.empty()) description.name = options.name;
  for (const std::string& warning : description.warnings) {
    std::fprintf(stderr, "warning: %s: %s\n", options.input.c_str(), warning.c_str());
  }
  write_file(options.output, node_description_json(description).dump(2) + "\n");
  const NodeTopology node = NodeTopology::build(description, options.input);
  const NodeModel model = model_node(node);
  std::fprintf(stderr, "topology: %s: %zu GPUs, %zu NICs; rings %.1f Gbit/s per GPU; wrote %s\n",
               options.input.c_str(), description.gpus.size(), description.nics.size(),
               model.ring_gbps, options.output.c_str());
}

}  // namespace sgdsim::cli
