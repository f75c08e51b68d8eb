// Tests for topology/node_topology.hpp: every figure derived by hand from NCCL's link prices
// (PCIe 0.75 GB/s per 8 GT/s lane, so 3.0 x16 = 12 GB/s; NVLink 2 = 20 GB/s per link; Intel QPI
// 6 and UPI 10 GB/s; AMD 16 GB/s), and the receiver's reads of host memory at 35.19 / 52.77 of
// the link (nvbandwidth's SM read and write of host memory on H100, NVIDIA/nvbandwidth #24).
#include <doctest/doctest.h>

#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/topology/node_topology.hpp"

using namespace sgdsim;

namespace {

NodeGpu gpu(int index, const std::string& parent, PcieLink link = {}) {
  NodeGpu g;
  g.name = "gpu" + std::to_string(index);
  g.parent = parent;
  g.link = link;
  return g;
}

// One socket, one PCIe 3.0 switch, `gpus` GPUs under it.
NodeDescription one_switch(int gpus, bool p2p = true) {
  NodeDescription node;
  node.cpus.push_back(NodeCpu{"cpu0", CpuVendor::intel, IntelGeneration::skylake});
  node.switches.push_back(NodePciSwitch{"sw0", "cpu0", PcieLink{}});
  for (int i = 0; i < gpus; ++i) node.gpus.push_back(gpu(i, "sw0"));
  node.p2p_supported = p2p;
  return node;
}

// Two sockets, two GPUs on each socket's root ports.
NodeDescription two_sockets(CpuVendor vendor, IntelGeneration generation) {
  NodeDescription node;
  node.cpus.push_back(NodeCpu{"cpu0", vendor, generation});
  node.cpus.push_back(NodeCpu{"cpu1", vendor, generation});
  for (int i = 0; i < 4; ++i) node.gpus.push_back(gpu(i, i < 2 ? "cpu0" : "cpu1"));
  return node;
}

// What a link charges per unit of a step the receiver reads from host memory: 52.77 / 35.19 =
// 1.4996, more than the 6/5 of an Intel host bridge, which it replaces on those links.
constexpr double read_charge = 52.77 / 35.19;

double ring_gbps(const NodeDescription& description) {
  return model_node(NodeTopology::build(description, "test")).ring_gbps;
}

}  // namespace

TEST_CASE("PCIe links are priced as NCCL prices them: 0.1875 GB/s per 2.5 GT/s lane, doubling") {
  CHECK(PcieLink{3, 16}.gigabytes_per_second() == doctest::Approx(12.0));  // NCCL's PCI_BW
  CHECK(PcieLink{4, 16}.gigabytes_per_second() == doctest::Approx(24.0));
  CHECK(PcieLink{3, 8}.gigabytes_per_second() == doctest::Approx(6.0));
  CHECK(PcieLink{1, 1}.gigabytes_per_second() == doctest::Approx(0.1875));
}

TEST_CASE("GPUs under one switch: PIX paths, P2P, one ring at the switch link's 12 GB/s") {
  const NodeTopology node = NodeTopology::build(one_switch(4), "test");
  CHECK(node.gpu_path(0, 3).type == PathType::pix);
  CHECK(node.gpu_path(0, 3).gigabytes_per_second == doctest::Approx(12.0));
  CHECK(node.p2p(0, 3));
  const NodeModel model = model_node(node);
  REQUIRE(model.channels.size() == 1);
  // Each GPU link carries one step up and one down: 12 GB/s x 8 bits.
  CHECK(model.ring_gbps == doctest::Approx(96.0));
  CHECK_FALSE(model.ring_through_host);
}

TEST_CASE("without P2P every step goes through host memory: the switch's uplink carries all") {
  // Each step goes gpu -> sw0 -> cpu0 -> sw0 -> gpu, a PHB path through an Intel host bridge, so
  // its PCIe links are charged 6/5 on the way up; on the way down they carry the receiver's
  // reads, charged 1.4996. Four steps cross the uplink each way: up 12 / (4 x 1.2) = 2.5 GB/s,
  // down 12 / (4 x 1.4996) = 2.0006 GB/s, 16.005 Gbit/s (NCCL's own model: 20).
  const NodeModel four = model_node(NodeTopology::build(one_switch(4, false), "test"));
  CHECK(four.ring_gbps == doctest::Approx(12.0 / (4 * read_charge) * 8));
  CHECK(four.ring_gbps == doctest::Approx(16.005).epsilon(1e-4));
  CHECK(four.ring_through_host);
  // Two GPUs: two steps share the uplink, 12 / (2 x 1.4996) = 4.001 GB/s (NCCL's: 5; two such
  // GeForce cards measured 4.00, docs/validation.md, not used to set the charge).
  CHECK(ring_gbps(one_switch(2, false)) == doctest::Approx(12.0 / (2 * read_charge) * 8));
  // With P2P the same switch carries no reads of host memory: 12 GB/s (above).
  CHECK(ring_gbps(one_switch(2, true)) == doctest::Approx(96.0));
}

TEST_CASE("two Intel sockets: PHB without P2P, SYS through QPI (6 GB/s) or UPI (10 GB/s)") {
  const NodeTopology broadwell =
      NodeTopology::build(two_sockets(CpuVendor::intel, IntelGeneration::before_skylake), "test");
  CHECK(broadwell.gpu_path(0, 1).type == PathType::phb);
  CHECK_FALSE(broadwell.p2p(0, 1));  // P2P up to PXB only
  CHECK(broadwell.gpu_path(0, 2).type == PathType::sys);
  CHECK(broadwell.gpu_path(0, 2).gigabytes_per_second == doctest::Approx(6.0));
  CHECK(broadwell.host_path(0, 2).type == PathType::sys);
  // Ring 0 1 2 3: 0 -> 1 and 2 -> 3 are PHB steps through host memory (PCIe charged 1.2 up:
  // 10 GB/s, and 1.4996 down for the receiver's reads: 8.002 GB/s); 1 -> 2 crosses QPI one way
  // and 3 -> 0 the other: 6 GB/s sets the ring.
  CHECK(ring_gbps(two_sockets(CpuVendor::intel, IntelGeneration::before_skylake)) ==
        doctest::Approx(48.0));
  // Skylake's UPI, 10 GB/s: now above what each receiver reads over its own 12 GB/s link,
  // 12 / 1.4996 = 8.002 GB/s, which sets the ring (NCCL's own model: 10).
  CHECK(ring_gbps(two_sockets(CpuVendor::intel, IntelGeneration::skylake)) ==
        doctest::Approx(12.0 / read_charge * 8));
  // Sapphire Rapids, 22 GB/s: every ring's receivers read at 8.002 GB/s as well (NCCL's: 11).
  CHECK(ring_gbps(two_sockets(CpuVendor::intel, IntelGeneration::sapphire_rapids)) ==
        doctest::Approx(12.0 / read_charge * 8));
}

TEST_CASE("AMD hosts: host-memory steps at the PCIe rate, and P2P anywhere with two GPUs") {
  const NodeTopology four =
      NodeTopology::build(two_sockets(CpuVendor::amd, IntelGeneration::skylake), "test");
  CHECK_FALSE(four.p2p(0, 1));  // more than two GPUs: up to PXB only
  // No Intel charge: every step is limited by the receivers' reads over their 12 GB/s GPU
  // links, 12 / 1.4996 = 8.002 GB/s (16 GB/s between sockets; NCCL's own model: 12).
  CHECK(ring_gbps(two_sockets(CpuVendor::amd, IntelGeneration::skylake)) ==
        doctest::Approx(12.0 / read_charge * 8));
  NodeDescription two = two_sockets(CpuVendor::amd, IntelGeneration::skylake);
  two.gpus = {gpu(0, "cpu0"), gpu(1, "cpu1")};
  CHECK(NodeTopology::build(two, "test").p2p(0, 1));  // SYS, but an AMD host of two GPUs
}

TEST_CASE("eight PCIe 4.0 GPUs on two AMD sockets without P2P: the sockets' 16 GB/s decides") {
  // The layout of a public run (docs/validation.md, "Nodes against their own measurements"):
  // 8 RTX 4090 on two EPYC 7542 sockets' root ports, P2P off. Each GPU's link is 24 GB/s
  // (PCIe 4.0 x16), so the ring's two crossings between the sockets, at NCCL's 16 GB/s for
  // AMD, are its bottleneck: 16 GB/s, 128 Gbit/s per GPU (measured: 14.45-15.04 GB/s). The
  // receivers' reads of host memory, 24 / 1.4996 = 16.004 GB/s, do not bind.
  NodeDescription node = two_sockets(CpuVendor::amd, IntelGeneration::skylake);
  node.gpus.clear();
  for (int i = 0; i < 8; ++i) node.gpus.push_back(gpu(i, i < 4 ? "cpu0" : "cpu1", {4, 16}));
  node.p2p_supported = false;
  const NodeModel model = model_node(NodeTopology::build(node, "test"));
  CHECK(model.ring_gbps == doctest::Approx(128.0));
  CHECK(model.ring_through_host);
  CHECK(model.worst_ring_hop == PathType::sys);
}

TEST_CASE("a narrower switch uplink limits the rings that cross it") {
  NodeDescription node;
  node.cpus.push_back(NodeCpu{"cpu0", CpuVendor::intel, IntelGeneration::skylake});
  node.switches.push_back(NodePciSwitch{"top", "cpu0", PcieLink{}});
  node.switches.push_back(NodePciSwitch{"sw0", "top", PcieLink{3, 8}});  // 6 GB/s
  node.switches.push_back(NodePciSwitch{"sw1", "top", PcieLink{}});
  node.gpus = {gpu(0, "sw0"), gpu(1, "sw0"), gpu(2, "sw1"), gpu(3, "sw1")};
  const NodeTopology topology = NodeTopology::build(node, "test");
  CHECK(topology.gpu_path(0, 2).type == PathType::pxb);
  CHECK(topology.p2p(0, 2));
  // The ring leaves sw0 once and enters it once: 6 GB/s.
  CHECK(ring_gbps(node) == doctest::Approx(48.0));
}

TEST_CASE("DGX-1's cube-mesh: channels use all six 20 GB/s NVLinks of every V100") {
  const NodeModel model = model_node(NodeTopology::build(node_preset("dgx1_v100", "test"), "test"));
  // Each GPU sends on six links of 20 GB/s: 120 GB/s, 960 Gbit/s, in NVLink rings only.
  CHECK(model.ring_gbps == doctest::Approx(960.0));
  CHECK(model.worst_ring_hop == PathType::nvl);
  CHECK_FALSE(model.ring_through_host);
  // Four EDR NICs, each on a switch with two GPUs: GPUDirect RDMA, 4 x 100 Gbit/s.
  CHECK(model.gdr);
  CHECK_FALSE(model.nic_per_gpu);
  CHECK(model.nic_line_gbps == doctest::Approx(400.0));
  CHECK(model.nic_path_gbps == doctest::Approx(4 * 96.0));  // four 3.0 x16 links
}

TEST_CASE("a job on a node's first GPUs gets their rings and NICs, not the whole node's") {
  const NodeTopology dgx1 = NodeTopology::build(node_preset("dgx1_v100", "test"), "test");
  // DGX-1V's GPU 0 and 1 share one NVLink (nvidia-smi topo -m: NV1): one 20 GB/s ring, 160
  // Gbit/s against the whole node's 960, and only their switch's EDR NIC.
  const NodeTopology pair = NodeTopology::build(dgx1.first_gpus(2), "test");
  CHECK(pair.gpus() == 2);
  const NodeModel two = model_node(pair);
  CHECK(two.ring_gbps == doctest::Approx(160.0));
  CHECK(two.nic_line_gbps == doctest::Approx(100.0));
  // GPUs 0-3 link 0-1 x1, 0-2 x1, 0-3 x2, 1-2 x2, 1-3 x1, 2-3 x2: GPUs 0 and 1 have four links
  // among them (2 and 3 five), so the rings are bound by GPU 0's four, 80 GB/s, 640 Gbit/s; the
  // two switches' NICs. No NVLink is left to GPUs 4-7.
  const NodeDescription quad = dgx1.first_gpus(4);
  for (const NodeGpu& gpu : quad.gpus) {
    for (const auto& [peer, links] : gpu.nvlinks) CHECK(peer < "gpu4");
  }
  const NodeModel four = model_node(NodeTopology::build(quad, "test"));
  CHECK(four.ring_gbps == doctest::Approx(640.0));
  CHECK(four.nic_line_gbps == doctest::Approx(200.0));
  // Two GPUs under one switch of the 2-socket PCIe server: P2P at the switch's 12 GB/s (96
  // Gbit/s), where the whole node's ring goes through host memory and QPI's 6 GB/s (48).
  const NodeTopology pcie = NodeTopology::build(node_preset("pcie3_2socket_8gpu", "t"), "t");
  CHECK(model_node(pcie).ring_gbps == doctest::Approx(48.0));
  CHECK(model_node(NodeTopology::build(pcie.first_gpus(2), "t")).ring_gbps ==
        doctest::Approx(96.0));
  // DGX A100's first two GPUs share a switch with two HDR NICs: still one NIC each, 200 Gbit/s.
  const NodeTopology a100 = NodeTopology::build(node_preset("dgx_a100", "t"), "t");
  const NodeModel a100_pair = model_node(NodeTopology::build(a100.first_gpus(2), "t"));
  CHECK(a100_pair.nic_per_gpu);
  CHECK(a100_pair.nic_line_gbps == doctest::Approx(200.0));
  // All of a node's GPUs: the same rings and NICs as the node.
  const NodeModel all = model_node(NodeTopology::build(dgx1.first_gpus(8), "test"));
  CHECK(all.ring_gbps == doctest::Approx(960.0));
  CHECK(all.nic_line_gbps == doctest::Approx(400.0));
  // A NIC only on the other socket is the nearest one there is: kept.
  NodeDescription far = two_sockets(CpuVendor::intel, IntelGeneration::skylake);
  far.nics.push_back(NodeNic{"nic0", "cpu1", PcieLink{}, 100.0, true});
  CHECK(NodeTopology::build(far, "t").first_gpus(2).nics.size() == 1);
}

TEST_CASE("GPUs copying shares of a buffer to host memory share their switch's uplink") {
  // The 2-socket server of two PCIe 3.0 switches of four. Groups of 4: each GPU copies a
  // quarter of its group's buffer over its own 12 GB/s link, and each switch's 12 GB/s uplink
  // carries its group's whole buffer: 12 GB/s, 96 Gbit/s. The whole node as one group: each
  // uplink carries half the buffer, each half to its own socket: 24 GB/s, 192 Gbit/s. Groups of
  // 2: two groups' buffers through each uplink, 48 Gbit/s.
  const NodeTopology two_switches =
      NodeTopology::build(node_preset("pcie3_2socket_2switch_8gpu", "t"), "t");
  CHECK(host_copy_gbps(two_switches, 4) == doctest::Approx(96.0));
  CHECK(host_copy_gbps(two_switches, 8) == doctest::Approx(192.0));
  CHECK(host_copy_gbps(two_switches, 2) == doctest::Approx(48.0));
  // Two GPUs a switch: a group of 4 spans two switches, half its buffer through each uplink:
  // 192 Gbit/s. Groups of one GPU: two whole buffers through each uplink, 48.
  const NodeTopology four_switches =
      NodeTopology::build(node_preset("pcie3_2socket_8gpu", "t"), "t");
  CHECK(host_copy_gbps(four_switches, 4) == doctest::Approx(192.0));
  CHECK(host_copy_gbps(four_switches, 1) == doctest::Approx(48.0));
  // A PCIe 3.0 x8 uplink (6 GB/s) under four GPUs in one group: 48 Gbit/s.
  NodeDescription narrow = one_switch(4);
  narrow.switches[0].uplink = PcieLink{3, 8};
  CHECK(host_copy_gbps(NodeTopology::build(narrow, "t"), 4) == doctest::Approx(48.0));
}

TEST_CASE("NVSwitch nodes: one NIC per GPU where every switch has as many NICs as GPUs") {
  const NodeModel a100 = model_node(NodeTopology::build(node_preset("dgx_a100", "test"), "t"));
  CHECK(a100.ring_gbps == doctest::Approx(12 * 20.0 * 8));  // twelve NVLink 3 links
  CHECK(a100.nic_per_gpu);
  CHECK(a100.nic_line_gbps == doctest::Approx(200.0));
  const NodeModel h100 = model_node(NodeTopology::build(node_preset("dgx_h100", "test"), "t"));
  CHECK(h100.ring_gbps == doctest::Approx(18 * 20.6 * 8));
}

TEST_CASE("AWS p2.8xlarge: K80 boards of two GPUs, rings through host memory between them") {
  const NodeTopology topology = NodeTopology::build(node_preset("p2_8xlarge", "test"), "test");
  // The two GK210 of a board share its switch (PIX, P2P); boards meet at the CPU (PHB), where
  // NCCL does not use P2P by default: the ring's steps between boards go through host memory,
  // written at the board's 12 GB/s link and read at 2/3 of it, 8.002 GB/s, 64.02 Gbit/s.
  CHECK(topology.gpu_path(0, 1).type == PathType::pix);
  CHECK(topology.p2p(0, 1));
  CHECK(topology.gpu_path(1, 2).type == PathType::phb);
  CHECK_FALSE(topology.p2p(1, 2));
  const NodeModel model = model_node(topology);
  CHECK(model.ring_gbps == doctest::Approx(12.0 / read_charge * 8));
  CHECK(model.ring_through_host);
  // One 10 Gbit/s NIC on the CPU's root port, below what the GPUs read of it (64.02).
  CHECK(model.nic_line_gbps == doctest::Approx(10.0));
  CHECK_FALSE(model.nic_per_gpu);
}

TEST_CASE("GPUDirect RDMA only where NIC and GPU share a switch") {
  NodeDescription node = one_switch(2);
  node.nics.push_back(NodeNic{"near", "sw0", PcieLink{}, 100.0, true});
  node.nics.push_back(NodeNic{"far", "cpu0", PcieLink{}, 100.0, true});
  const NodeTopology topology = NodeTopology::build(node, "test");
  CHECK(topology.nic_path(0, 0).type == PathType::pix);
  CHECK(topology.gdr(0, 0));
  CHECK(topology.nic_path(0, 1).type == PathType::phb);
  CHECK_FALSE(topology.gdr(0, 1));
  CHECK(topology.nearest_nic(1) == 0);
}

TEST_CASE("without GPUDirect RDMA a NIC's traffic is staged in host memory, read at 2/3") {
  // One GPU and one NIC under one 3.0 switch. With GDR the NIC reaches the GPU over the switch:
  // 12 GB/s, 96 Gbit/s. Without it (a NIC or driver without nvidia-peermem) NCCL receives into
  // host memory and the GPU's kernel reads it over its path from cpu0, 12 GB/s charged
  // 52.77 / 35.19: 8.002 GB/s, 64.02 Gbit/s, below the 100 Gbit/s line rate.
  NodeDescription node = one_switch(1);
  node.nics.push_back(NodeNic{"nic0", "sw0", PcieLink{}, 100.0, true});
  const NodeModel direct = model_node(NodeTopology::build(node, "test"));
  CHECK(direct.gdr);
  CHECK(direct.nic_path_gbps == doctest::Approx(96.0));
  node.nics.front().gdr_capable = false;
  const NodeModel staged = model_node(NodeTopology::build(node, "test"));
  CHECK_FALSE(staged.gdr);
  CHECK(staged.nic_path_gbps == doctest::Approx(12.0 / read_charge * 8));
  // A NIC on a 3.0 x4 link (3 GB/s) stays below the GPU's reads: its own path binds, 24 Gbit/s.
  node.nics.front().link = PcieLink{3, 4};
  CHECK(model_node(NodeTopology::build(node, "test")).nic_path_gbps == doctest::Approx(24.0));
}

TEST_CASE("a malformed node is refused naming the element") {
  NodeDescription node = one_switch(2);
  node.gpus[1].parent = "sw9";
  CHECK_THROWS_WITH_AS(NodeTopology::build(node, "n.json"),
                       doctest::Contains("\"gpu1\" hangs from \"sw9\""), InputError);
  node = one_switch(2);
  node.gpus[1].name = "gpu0";
  CHECK_THROWS_WITH_AS(NodeTopology::build(node, "n.json"),
                       doctest::Contains("two elements named \"gpu0\""), InputError);
  node = one_switch(2);
  node.gpus[0].nvlinks.emplace_back("gpu7", 2);
  CHECK_THROWS_WITH_AS(NodeTopology::build(node, "n.json"),
                       doctest::Contains("no other GPU of the node"), InputError);
  node = one_switch(2);
  node.gpus[0].link = PcieLink{7, 16};
  CHECK_THROWS_WITH_AS(NodeTopology::build(node, "n.json"), doctest::Contains("PCIe generation 7"),
                       InputError);
  CHECK_THROWS_WITH_AS(node_preset("dgx1_v10", "cluster.node"),
                       doctest::Contains("did you mean \"dgx1_v100\""), InputError);
}

TEST_CASE("every preset builds, and each has a source") {
  for (const NodePresetEntry& entry : node_preset_entries()) {
    CAPTURE(entry.name);
    const NodeDescription description = entry.description;
    CHECK(description.name == entry.name);
    CHECK_FALSE(description.source.empty());
    const NodeModel model = model_node(NodeTopology::build(description, entry.name));
    CHECK(model.ring_gbps > 0.0);
  }
}

TEST_CASE("NCCL's Intel generations by family 6 model number") {
  CHECK(intel_generation_of_model(6, 0x4F) == IntelGeneration::before_skylake);  // Broadwell-EP
  CHECK(intel_generation_of_model(6, 0x55) == IntelGeneration::skylake);  // also Cascade Lake
  CHECK(intel_generation_of_model(6, 0x6A) == IntelGeneration::skylake);  // Ice Lake-SP
  CHECK(intel_generation_of_model(6, 0x8F) == IntelGeneration::sapphire_rapids);
  CHECK(intel_generation_of_model(6, 0xCF) == IntelGeneration::emerald_rapids);
}

TEST_CASE("the read fraction a measured ring implies, and why there is none") {
  // Two GPUs under one PCIe 3.0 switch without P2P: the uplink carries up two steps charged
  // 6/5 (12 / 2.4 = 5 GB/s) and down two reads charged 1/e (12 e / 2 = 6 e GB/s), so the ring
  // is min(5, 6 e) GB/s: 30.9 Gbit/s (the public 2080 Ti run's calibrate --full-range fit,
  // docs/validation.md) is 3.8625 GB/s, e = 0.64375; 40 Gbit/s or more needs reads as fast as
  // writes, and above 40 no fraction reaches it.
  const NodeTopology pair = NodeTopology::build(one_switch(2, false), "test");
  const ReadEfficiencyFit fit = fit_read_efficiency(pair, 30.9);
  REQUIRE(fit.outcome == ReadEfficiencyFit::Outcome::fitted);
  CHECK(fit.efficiency == doctest::Approx(30.9 / 8 / 6).epsilon(1e-6));
  CHECK(model_node(pair, fit.efficiency).ring_gbps == doctest::Approx(30.9).epsilon(1e-6));
  CHECK(fit_read_efficiency(pair, 41.0).outcome == ReadEfficiencyFit::Outcome::above);
  // At 1% of the writes: 6 x 0.01 = 0.06 GB/s, 0.48 Gbit/s.
  CHECK(fit_read_efficiency(pair, 0.4).outcome == ReadEfficiencyFit::Outcome::below);
  // With P2P the rings do not go through host memory.
  CHECK(fit_read_efficiency(NodeTopology::build(one_switch(2, true), "test"), 90.0).outcome ==
        ReadEfficiencyFit::Outcome::not_through_host);
}
