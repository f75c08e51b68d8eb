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
  // The dump's <gpu gdr="1"> says the cards support GPUDirect RDMA; a card that dumps gdr="0"
  // (a GeForce) has none, and its NIC's traffic is staged through host memory.
  std::ifstream in(fixture("ibmcloud_gx3d_h100x8_nccl_dump.xml"));
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string gpu0 = "rank=\"0\" gdr=\"1\"";
  const std::size_t at = xml.find(gpu0);
  REQUIRE(at != std::string::npos);
  xml.replace(at, gpu0.size(), "rank=\"0\" gdr=\"0\"");
  const NodeDescription edited = import_nccl_topology(write_temp("gpu0_no_gdr.xml", xml));
  CHECK_FALSE(edited.gpus[0].gdr_capable);
  CHECK(edited.gpus[1].gdr_capable);
  CHECK_FALSE(model_of(edited).gdr);
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
  // The file has no NVLinks (NCCL finds them at run time): the import says so.
  REQUIRE(p4d.warnings.size() == 1);
  CHECK(p4d.warnings[0].find("no NVLinks") != std::string::npos);
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
  // NV# hides the PCIe relation of NVLinked pairs: the switches come from the NICs' PIX (two GPUs
  // and a NIC each), the sockets from the CPU affinity column.
  CHECK(node.switches.size() == 4);
  const NodeTopology topology = NodeTopology::build(node, "dgx1");
  CHECK(topology.gpu_cpu(0) == topology.gpu_cpu(3));
  CHECK(topology.gpu_cpu(0) != topology.gpu_cpu(4));  // NV2 between them, but other sockets
  CHECK(topology.nic_path(0, 0).type == PathType::pix);
  CHECK(topology.gdr(0, 0));
  CHECK(topology.gpu_path(1, 4).type == PathType::sys);
  const NodeModel model = model_of(node);
  const NodeModel preset = model_of(node_preset("dgx1_v100", "test"));
  CHECK(model.ring_gbps == doctest::Approx(preset.ring_gbps));
  CHECK(model.nic_path_gbps == doctest::Approx(preset.nic_path_gbps));
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
  // Ring 0..7: sw0's uplink carries up 0->1, 1->2, 2->3 (PHB through an Intel host bridge,
  // x1.2) and 3->4 (SYS, x1): 24 / 4.6 GB/s; down, the reads of host memory of the four GPUs
  // under it, each charged 52.77 / 35.19 (nvbandwidth #24's SM read against write): 24 /
  // 5.998 = 4.001 GB/s, which binds (NCCL's own model: 24 / 4.6 = 5.2); UPI carries one step
  // each way (10 GB/s).
  CHECK(model_of(node).ring_gbps == doctest::Approx(24.0 / (4 * 52.77 / 35.19) * 8));
  // With GPUDirect RDMA the NIC under sw0 reaches its GPUs over the switch (PIX, 24 GB/s, 192
  // Gbit/s). GeForce cards have none (--no-gdr): the NIC's data waits in host memory and a GPU
  // reads it down sw0's uplink at 24 x 35.19 / 52.77 = 16.005 GB/s, 128.04 Gbit/s.
  CHECK(model_of(node).nic_path_gbps == doctest::Approx(192.0));
  facts.gdr_capable = false;
  const NodeDescription geforce =
      import_nvidia_smi_topo(fixture("rtx4090x8_2socket_pcie_switch_nvidia-smi_topo.txt"), facts);
  CHECK_FALSE(geforce.gpus.front().gdr_capable);
  CHECK_FALSE(model_of(geforce).gdr);
  CHECK(model_of(geforce).nic_path_gbps == doctest::Approx(24.0 * 35.19 / 52.77 * 8));
  // The description keeps it: a node file says "gdr": "disabled" per GPU and reads it back.
  const nlohmann::json written = node_description_json(geforce);
  CHECK(written["gpus"][0]["gdr"] == "disabled");
  CHECK_FALSE(node_description_from_json(written, "test", "").gpus.back().gdr_capable);
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
  CHECK_THROWS_WITH_AS(import_nvidia_smi_topo(write_temp(
                           "sgdsim_smi3.txt", "\tGPU0\tGPU1\nGPU0\t X \tPIX\nGPU1\tSYS\t X \n")),
                       doctest::Contains("GPU0 to GPU1 is \"PIX\" but GPU1 to GPU0 is \"SYS\""),
                       InputError);
  // Bridges nested deeper than any server's: refused before the reader's recursion runs out.
  std::string deep = "<system><cpu numaid=\"0\">";
  for (int i = 0; i < 100; ++i) deep += "<pci class=\"0x060400\">";
  for (int i = 0; i < 100; ++i) deep += "</pci>";
  deep += "</cpu></system>";
  CHECK_THROWS_WITH_AS(import_nccl_topology(write_temp("sgdsim_deep.xml", deep)),
                       doctest::Contains("nested over 64 deep"), InputError);
}

TEST_CASE("NCCL XML: NVSwitch links by exact class, POWER9 CPU links apart, CPU-attached NICs") {
  const std::string dump = R"(<system version="1">
  <cpu numaid="0" arch="ppc64" vendor="IBM">
    <pci busid="0000:04:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="70" rank="0" gdr="1">
        <nvlink target="0000:05:00.0" count="3" tclass="0x030200"/>
        <nvlink target="0000:00:00.0" count="3" tclass="0x068001"/>
      </gpu>
    </pci>
    <pci busid="0000:05:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="70" rank="1" gdr="1"/>
    </pci>
    <nic><net name="ib0" dev="0" speed="100000" port="1" gdr="0"/></nic>
  </cpu>
</system>)";
  const NodeDescription node = import_nccl_topology(write_temp("sgdsim_power.xml", dump));
  REQUIRE(node.gpus.size() == 2);
  CHECK(node.gpus[0].nvswitch_links == 0);  // 0x068001 is a POWER9 CPU, not an NVSwitch
  REQUIRE(node.gpus[0].nvlinks.size() == 1);
  CHECK(node.gpus[0].nvlinks[0].second == 3);
  CHECK(node.warnings.size() == 1);  // the CPU links are not priced
  REQUIRE(node.nics.size() == 1);
  CHECK(node.nics[0].link.generation == 0);  // on no PCI link: NCCL's LOC_BW
  const NodeTopology topology = NodeTopology::build(node, "power");
  // The NIC's own path is unlimited; the GPU's 3.0 x16 link (12 GB/s) is the bottleneck.
  CHECK(topology.nic_path(0, 0).gigabytes_per_second == doctest::Approx(12.0));
  CHECK(model_of(node).ring_gbps == doctest::Approx(3 * 20.0 * 8));  // three NVLink 2 links
}

TEST_CASE("NCCL XML: GPUs in CUDA's order (dev), whatever order the tree lists them in") {
  // Socket 0's GPU is CUDA's device 1 and comes first in the file; socket 1's is device 0.
  const std::string dump = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:04:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="70" rank="1" gdr="1"/>
    </pci>
  </cpu>
  <cpu numaid="1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:86:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="70" rank="0" gdr="1"/>
    </pci>
  </cpu>
</system>)";
  const NodeDescription node = import_nccl_topology(write_temp("sgdsim_dev_order.xml", dump));
  REQUIRE(node.gpus.size() == 2);
  CHECK(node.gpus[0].name == "gpu0");
  CHECK(node.gpus[0].parent == "cpu1");
  CHECK(node.gpus[1].name == "gpu1");
  // A job on one GPU of it runs on CUDA's device 0, under socket 1.
  CHECK(NodeTopology::build(node, "t").first_gpus(1).gpus[0].parent == "cpu1");
}

TEST_CASE("node descriptions: NVLink counts must agree, PCIe \"none\" only for NICs") {
  nlohmann::json json = node_description_json(node_preset("dgx1_v100", "test"));
  json["gpus"][1]["nvlinks"]["gpu0"] = 2;  // gpu0 lists 1 to gpu1
  CHECK_THROWS_WITH_AS(node_description_from_json(json, "node.json", ""),
                       doctest::Contains("list 2 and 1 NVLinks to each other"), InputError);
  json = node_description_json(node_preset("dgx1_v100", "test"));
  json["gpus"][0]["nvlinks"]["gpu1"] = 4294967297LL;  // not narrowed to 1
  CHECK_THROWS_WITH_AS(node_description_from_json(json, "node.json", ""),
                       doctest::Contains("a link count from 1 to 18"), InputError);
  json = node_description_json(node_preset("dgx1_v100", "test"));
  json["gpus"][0]["pcie"] = "none";
  CHECK_THROWS_AS(node_description_from_json(json, "node.json", ""), InputError);
  json = node_description_json(node_preset("dgx1_v100", "test"));
  json["nics"][0]["pcie"] = "none";
  CHECK(node_description_from_json(json, "node.json", "").nics[0].link.generation == 0);
}
