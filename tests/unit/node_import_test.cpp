// Tests for trace_io/node_description_io.hpp on real topologies (tests/data/topology/SOURCES.md).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/trace_io/node_description_io.hpp"

using namespace sgdsim;

namespace {

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(SGDSIM_TEST_DATA) / "topology" / name;
}

NodeModel model_of(const NodeDescription& node) {
  return model_node(NodeTopology::build(node, node.name));
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("an NCCL dump of an 8 x H100 node: sockets, NICs and NVSwitch links as dumped") {
  const NodeDescription node = import_nccl_topology(fixture("ibmcloud_gx3d_h100x8_nccl_dump.xml"));
  REQUIRE(node.cpus.size() == 2);
  // family 6, model 143 = 0x8F: Sapphire Rapids.
  CHECK(node.cpus[0].generation == IntelGeneration::sapphire_rapids);
  REQUIRE(node.gpus.size() == 8);
  CHECK(node.gpus[0].sm == 90);
  CHECK(node.gpus[0].nvswitch_links == 18);  // 5 + 5 + 4 + 4 to the four NVSwitches
  // link_width 0 is 16 lanes, as NCCL reads it: 32 GT/s x16.
  CHECK(node.gpus[0].link.generation == 5);
  CHECK(node.gpus[0].link.lanes == 16);
  REQUIRE(node.nics.size() == 8);
  CHECK(node.nics[0].speed_gbps == doctest::Approx(200.0));  // speed="200000" Mbit/s
  const NodeModel model = model_of(node);
  CHECK(model.ring_gbps == doctest::Approx(18 * 20.6 * 8));
  CHECK(model.nic_per_gpu);  // each GPU shares its bridge with one NIC
  CHECK(model.gdr);
}

TEST_CASE("override files list bare PCI devices: GPUs and NICs take the given facts") {
  NodeImportFacts facts;
  facts.sm = 80;
  facts.nic_gbps = 100.0;
  const NodeDescription p4d = import_nccl_topology(fixture("aws_p4d-24xl-topo.xml"), facts);
  CHECK(p4d.cpus.size() == 2);
  CHECK(p4d.switches.size() == 4);
  REQUIRE(p4d.gpus.size() == 8);
  CHECK(p4d.gpus[0].sm == 80);
  REQUIRE(p4d.nics.size() == 4);
  CHECK(p4d.nics[0].speed_gbps == doctest::Approx(100.0));
  const NodeTopology topology = NodeTopology::build(p4d, "p4d");
  CHECK(topology.gpu_path(0, 1).type == PathType::pix);  // one switch
  CHECK(topology.gpu_path(0, 2).type == PathType::phb);  // two switches on one socket
  CHECK(topology.gpu_path(0, 4).type == PathType::sys);
  CHECK(topology.gdr(0, 0));
  const NodeDescription ndv4 = import_nccl_topology(fixture("azure_ndv4-topo.xml"), facts);
  CHECK(ndv4.cpus.size() == 4);
  CHECK(ndv4.cpus[0].vendor == CpuVendor::amd);
  CHECK(ndv4.nics.size() == 8);  // InfiniBand controllers, class 0x0207
  CHECK(model_of(ndv4).nic_per_gpu);
}

TEST_CASE("nvidia-smi topo -m of a DGX-1 gives the preset's cube-mesh and NIC placement") {
  const NodeDescription node = import_nvidia_smi_topo(fixture("dgx1_v100_nvidia-smi_topo.txt"));
  REQUIRE(node.gpus.size() == 8);
  CHECK(node.cpus.size() == 2);
  CHECK(node.nics.size() == 4);
  int links = 0;
  for (const NodeGpu& gpu : node.gpus) {
    for (const auto& [peer, count] : gpu.nvlinks) links += count;
  }
  CHECK(links == 8 * 6 / 2);  // six NVLinks per V100, each counted once
  const NodeModel model = model_of(node);
  const NodeModel preset = model_of(node_preset("dgx1_v100", "test"));
  CHECK(model.ring_gbps == doctest::Approx(preset.ring_gbps));
  CHECK(model.gdr);  // every NIC shares a switch with two GPUs (PIX)
}

TEST_CASE("nvidia-smi topo -m of 8 RTX 4090 without P2P: host-memory rings across UPI") {
  NodeImportFacts facts;
  facts.pcie = PcieLink{4, 16};
  facts.sm = 89;
  facts.p2p_supported = false;
  const NodeDescription node =
      import_nvidia_smi_topo(fixture("rtx4090x8_2socket_pcie_switch_nvidia-smi_topo.txt"), facts);
  CHECK(node.cpus.size() == 2);
  CHECK(node.switches.size() == 2);  // four GPUs and a NIC per switch (PIX)
  CHECK(node.nics.size() == 1);
  // Ring 0..7: sw0's uplink carries 0->1, 1->2, 2->3 (PHB through an Intel host bridge, x1.2)
  // and 3->4 (SYS, x1): 24 / 4.6 GB/s; UPI carries one step each way (10 GB/s).
  CHECK(model_of(node).ring_gbps == doctest::Approx(24.0 / 4.6 * 8));
  const NodeDescription consumer =
      import_nvidia_smi_topo(fixture("consumer_2x5090_3x4090_2socket_nvidia-smi_topo.txt"));
  CHECK(consumer.gpus.size() == 5);
  CHECK(consumer.cpus.size() == 2);  // GPU0 is SYS to the others
  CHECK(consumer.switches.empty());  // PHB and NODE: the CPUs' root ports
}

TEST_CASE("a node description round-trips through JSON and is read strictly") {
  const NodeDescription preset = node_preset("dgx1_v100", "test");
  const nlohmann::json json = node_description_json(preset);
  const NodeDescription back = node_description_from_json(json, "node.json", "");
  CHECK(model_of(back).ring_gbps == doctest::Approx(model_of(preset).ring_gbps));
  CHECK(node_description_json(back) == json);
  nlohmann::json bad = json;
  bad["gpus"][0]["pcie"] = "3 x16";
  CHECK_THROWS_WITH_AS(node_description_from_json(bad, "node.json", ""),
                       doctest::Contains("gpus[0].pcie"), InputError);
  bad = json;
  bad["gpus"][0]["colour"] = "green";
  CHECK_THROWS_WITH_AS(node_description_from_json(bad, "node.json", ""),
                       doctest::Contains("colour"), InputError);
  bad = json;
  bad["format"] = "something-else";
  CHECK_THROWS_WITH_AS(node_description_from_json(bad, "node.json", ""),
                       doctest::Contains("sgdsim-node"), InputError);
}

TEST_CASE("files that are not topologies are refused naming the file") {
  CHECK_THROWS_WITH_AS(import_nccl_topology(write_temp("sgdsim_not_nccl.xml", "<graph/>")),
                       doctest::Contains("not an NCCL topology dump"), InputError);
  CHECK_THROWS_WITH_AS(import_nccl_topology(write_temp("sgdsim_broken.xml", "<system><cpu>")),
                       doctest::Contains("not XML"), InputError);
  CHECK_THROWS_WITH_AS(
      import_nccl_topology(write_temp("sgdsim_no_gpu.xml", "<system><cpu numaid=\"0\"/></system>")),
      doctest::Contains("without a <gpu>"), InputError);
  CHECK_THROWS_WITH_AS(
      import_nvidia_smi_topo(write_temp("sgdsim_smi.txt", "\tGPU0\tGPU1\nGPU0\t X \tPIX\n")),
      doctest::Contains("1 rows for 2 columns"), InputError);
  CHECK_THROWS_WITH_AS(import_nvidia_smi_topo(write_temp(
                           "sgdsim_smi2.txt", "\tGPU0\tGPU1\nGPU0\t X \tQQQ\nGPU1\tQQQ\t X \n")),
                       doctest::Contains("unknown connection \"QQQ\""), InputError);
  CHECK(node_file_kind(write_temp("sgdsim_kind.txt", "hello")).empty());
}
