// Tests for scenario/scenario_reader.hpp: defaults, and every bad-input message verbatim.
#include <doctest/doctest.h>

#include "printers.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sgdsim/collectives/byteps.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

const char* minimal = R"({
  "trace": "four_layers.json",
  "cluster": {"gpus": 8},
  "network": {"bandwidth_gbps": 10}
})";

ScenarioConfig read_text(const std::string& text) {
  return read_scenario(jsonio::parse_text(text, "s.json"), SGDSIM_TEST_DATA);
}

// The minimal scenario with one edit applied, read; returns the error message.
std::string scenario_error_after(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  edit(scenario);
  return test::input_error_of([&] { read_text(scenario.dump()); });
}

}  // namespace

TEST_CASE("a minimal scenario gets the documented defaults") {
  const ScenarioConfig config = read_text(minimal);
  CHECK(config.name == "s");
  CHECK(config.gpus == 8);
  CHECK(config.gpus_per_node == 1);
  CHECK(config.network.link.latency == Time::from_us(5.0));
  CHECK(config.intra_node.bandwidth.gbps() == doctest::Approx(256.0));
  CHECK(config.collective->name == "ring_allreduce");
  CHECK(config.policies.size() == 6);
  CHECK(config.merge.number("bucket_cap_mib") == 25.0);
  CHECK(config.iterations == 10);
  CHECK(config.seed == 1);
}

TEST_CASE("a measured allreduce fit becomes the network link") {
  const ScenarioConfig config = read_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 8},
    "network": {"measured_allreduce": [{"gpus": 8, "alpha_us": 832, "beta_ns_per_byte": 3.34}]}})");
  // One GPU per node: every step crosses nodes, alpha = 832 / (2 * 7) us = 59.428571 us per hop
  // (see link_model_test); a hop between nodes is the network latency plus the 1 us default
  // of the GPU links inside each node, so the network keeps 58.428571 us.
  CHECK(config.network.link.latency.us() == doctest::Approx(58.428571));
}

TEST_CASE("fits inside a node and across nodes give the two link classes") {
  // Inside an 8-GPU node: t = 14 us + 0.0175 ns/B x S: alpha_i = 14 / (2 x 7) = 1 us,
  // 1/B = 0.0175 x 8 / 14 = 0.01 ns/B: 800 Gbit/s. Across 4 nodes of 8 (N = 32, m = 4):
  // t = 110 us + 0.155 ns/B x S: the ring's 2(32 - 4) = 56 intra-node steps take 56 us, the
  // 2 x 3 = 6 node crossings the other 54 us, 9 us each, of which 1 us are the GPU links: the
  // network latency is 8 us; 1/B = 0.155 x 32 / 62 = 0.08 ns/B: 100 Gbit/s.
  const ScenarioConfig config = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 64, "gpus_per_node": 8},
    "network": {"measured_allreduce": [
      {"gpus": 8, "gpus_per_node": 8, "alpha_us": 14, "beta_ns_per_byte": 0.0175},
      {"gpus": 32, "gpus_per_node": 8, "alpha_us": 110, "beta_ns_per_byte": 0.155}]}})");
  CHECK(config.intra_node.latency == Time::from_us(1.0));
  CHECK(config.intra_node.bandwidth.gbps() == doctest::Approx(800.0));
  CHECK(config.network.link.latency == Time::from_us(8.0));
  CHECK(config.network.link.bandwidth.gbps() == doctest::Approx(100.0));
  // The ring those links give on the measured layout reproduces the fit: 110 us.
  const ScenarioConfig same = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 32, "gpus_per_node": 8},
    "network": {"measured_allreduce": [
      {"gpus": 8, "gpus_per_node": 8, "alpha_us": 14, "beta_ns_per_byte": 0.0175},
      {"gpus": 32, "gpus_per_node": 8, "alpha_us": 110, "beta_ns_per_byte": 0.155}]}})");
  CHECK(make_collective(same)->linear_cost().startup == Time::from_us(110.0));
  // An intra-node fit alone leaves the network to bandwidth_gbps; a node preset's keys are
  // defaults that explicit keys override.
  const ScenarioConfig preset = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 32, "node": "dgx_h100", "gpus_per_node": 4},
    "network": {"measured_allreduce": [
      {"gpus": 4, "gpus_per_node": 4, "alpha_us": 6, "beta_ns_per_byte": 0.01}]}})");
  CHECK(preset.gpus_per_node == 4);
  CHECK(preset.nic_per_gpu);
  // DGX H100's 400 Gb/s NICs, capped by their PCIe 5.0 x16 paths (NCCL's 48 GB/s, 384 Gbit/s).
  CHECK(preset.network.link.bandwidth.gbps() == doctest::Approx(384.0));
  CHECK(preset.intra_node.latency == Time::from_us(1.0));  // 6 / (2 x 3)
}

TEST_CASE("a missing trace file names the scenario, the key and where it looked") {
  CHECK(
      scenario_error_after([](nlohmann::json& s) { s["trace"] = "nope.json"; }) ==
      fmt::format("s.json: trace: cannot open trace file \"nope.json\" (looked for {}/nope.json); "
                  "relative paths are resolved from the scenario file's folder",
                  SGDSIM_TEST_DATA));
}

TEST_CASE("malformed scenario JSON names the line and column") {
  CHECK(test::input_error_of([] {
          read_scenario(jsonio::parse_text("{\"trace\": }", "s.json"), SGDSIM_TEST_DATA);
        }) ==
        "s.json: malformed JSON at line 1, column 11: syntax error while parsing value - "
        "unexpected '}'; expected '[', '{', or a literal");
}

TEST_CASE("zero or negative bandwidth is refused") {
  CHECK(scenario_error_after([](nlohmann::json& s) { s["network"]["bandwidth_gbps"] = -10; }) ==
        "s.json: network.bandwidth_gbps: expected a number > 0, found -10");
  CHECK(scenario_error_after([](nlohmann::json& s) { s["network"]["bandwidth_gbps"] = 0; }) ==
        "s.json: network.bandwidth_gbps: expected a number > 0, found 0");
}

TEST_CASE("zero GPUs, and GPUs that do not fill whole nodes, are refused") {
  CHECK(scenario_error_after([](nlohmann::json& s) { s["cluster"]["gpus"] = 0; }) ==
        "s.json: cluster.gpus: expected an integer from 1 to 1048576, found 0");
  CHECK(scenario_error_after([](nlohmann::json& s) { s["cluster"]["gpus_per_node"] = 3; }) ==
        "s.json: cluster.gpus_per_node: expected a divisor of cluster.gpus (8), found 3");
}

TEST_CASE("an unknown key is refused with a suggestion") {
  CHECK(scenario_error_after([](nlohmann::json& s) { s["network"]["latncy_us"] = 5; }) ==
        "s.json: network.latncy_us: unknown key (did you mean \"latency_us\"?); allowed here: "
        "bandwidth_gbps, connections, fat_tree, flow_cap_gbps, goodput_fraction, latency_us, "
        "measured_allreduce, message_overhead_us, reduction_ns_per_byte, transport");
  CHECK(scenario_error_after([](nlohmann::json& s) { s["gpus"] = 5; }) ==
        "s.json: gpus: unknown key; allowed here: $schema, cluster, communication, compute, "
        "convergence, "
        "description, "
        "fidelity, "
        "iterations, jobs, name, network, schema_version, seed, sweep, trace");
}

TEST_CASE("an unknown merge policy is refused with the list of policies") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["communication"]["merge"]["policy"] = {"none", "mgwbfp"};
        }) ==
        "s.json: communication.merge.policy[1]: expected one of \"none\", \"all\", "
        "\"bucket\", \"fusion\", \"mgwfbp\", \"optimal\", \"bytescheduler\", found \"mgwbfp\" (did "
        "you "
        "mean "
        "\"mgwfbp\"?)");
}

TEST_CASE("parameter-server keys belong to the parameter server") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["communication"]["collective"] = {{"algorithm", "parameter_server"}};
        }) ==
        "s.json: communication.collective.servers: expected an integer from 1 to 1048576, "
        "found nothing (this key is required)");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["communication"]["collective"] = {{"algorithm", "ring_allreduce"}, {"servers", 2}};
        }) ==
        "s.json: communication.collective.servers: unknown key; allowed here: algorithm, chunks, "
        "nccl_protocol");
}

TEST_CASE("an unknown fidelity level is refused") {
  CHECK(scenario_error_after([](nlohmann::json& s) { s["fidelity"] = "exact"; }) ==
        "s.json: fidelity: expected one of \"analytic\", \"per_rank\", \"flow\", \"packet\", found "
        "\"exact\"");
}

TEST_CASE("fidelity \"packet\" is read as \"flow\", with a note") {
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["fidelity"] = "packet";
  const ScenarioConfig config = read_text(scenario.dump());
  CHECK(config.fidelity == "flow");
  REQUIRE(config.notes.size() == 1);
  CHECK(config.notes[0].find("old name of \"flow\"") != std::string::npos);
  scenario["fidelity"] = "flow";
  CHECK(read_text(scenario.dump()).notes.empty());
}

TEST_CASE("a fidelity level that cannot express the scenario is refused, naming the one that can") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["network"]["fat_tree"] = {{"leaf_nodes", 2}, {"oversubscription", 2}};
        }) ==
        "s.json: fidelity: expected \"flow\" (analytic and per_rank fidelity have no link "
        "sharing, so they cannot express an oversubscribed fat-tree), found \"analytic\"");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["communication"]["concurrent_jobs"] = 2;
          s["fidelity"] = "per_rank";
        }) ==
        "s.json: fidelity: expected \"flow\" (only flow fidelity shares links between "
        "concurrent jobs), found \"per_rank\"");
  CHECK(scenario_error_after([](nlohmann::json& s) { s["compute"]["jitter_cv"] = 0.1; }) ==
        "s.json: fidelity: expected \"per_rank\" (only per_rank fidelity gives each GPU its own "
        "compute timeline for compute.jitter_cv, stragglers and groups), found \"analytic\"");
}

TEST_CASE("an oversubscription below 1 and zero servers are refused") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["network"]["fat_tree"] = {{"leaf_nodes", 2}, {"oversubscription", 0.5}};
        }) ==
        "s.json: network.fat_tree.oversubscription: expected a number >= 1 (leaf downlink "
        "over uplink capacity), found 0.5");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["communication"]["collective"] = {{"algorithm", "parameter_server"}, {"servers", 0}};
        }) ==
        "s.json: communication.collective.servers: expected an integer from 1 to 1048576, "
        "found 0");
}

TEST_CASE("halving-doubling needs a power-of-two GPU count") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"]["gpus"] = 12;
          s["communication"]["collective"] = {{"algorithm", "halving_doubling"}};
        }) ==
        "s.json: communication.collective.algorithm: expected an algorithm that fits 12 GPUs "
        "(halving_doubling needs a power of two), found \"halving_doubling\"");
}

TEST_CASE("stragglers and GPU groups are read for per_rank fidelity") {
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["fidelity"] = "per_rank";
  scenario["compute"] = {{"jitter_cv", 0.05},
                         {"stragglers", {{{"rank", 3}, {"slowdown", 2.0}}}},
                         {"groups", {{{"first_rank", 4}, {"last_rank", 7}, {"scale", 1.5}}}}};
  const ScenarioConfig config = read_text(scenario.dump());
  CHECK(config.compute.stragglers.at(3) == 2.0);
  CHECK(config.compute.scale == std::vector<double>{1, 1, 1, 1, 1.5, 1.5, 1.5, 1.5});
}

TEST_CASE("a network given both ways is refused") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["network"]["measured_allreduce"] = {
              {{"gpus", 8}, {"alpha_us", 1}, {"beta_ns_per_byte", 1}}};
        }) ==
        "s.json: network.measured_allreduce: expected either a fit across nodes or "
        "bandwidth_gbps/latency_us, not both, found an array of 1");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"]["gpus_per_node"] = 4;
          s["cluster"]["intra_node_bandwidth_gbps"] = 100;
          s["network"]["measured_allreduce"] = {
              {{"gpus", 4}, {"gpus_per_node", 4}, {"alpha_us", 6}, {"beta_ns_per_byte", 1}}};
        }) ==
        "s.json: network.measured_allreduce: expected either a fit inside one node (gpus_per_node "
        "= gpus) or cluster.intra_node_bandwidth_gbps/intra_node_latency_us, not both, found an "
        "array of 1");
  // 8 GPUs on 2 nodes: 2 x 6 intra-node steps at 1 us already exceed a 10 us startup.
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["network"].erase("bandwidth_gbps");
          s["network"]["measured_allreduce"] = {
              {{"gpus", 8}, {"gpus_per_node", 4}, {"alpha_us", 10}, {"beta_ns_per_byte", 1}}};
        }).find("expected a fit whose startup covers its ring's intra-node steps") !=
        std::string::npos);
}

TEST_CASE("compute.layer_times is as traced by default, and names its three values") {
  CHECK(read_text(minimal).layer_times == "as_traced");
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["compute"]["layer_times"] = "scaled_to_measured";
  CHECK(read_text(scenario.dump()).layer_times == "scaled_to_measured");
  scenario["compute"]["layer_times"] = "wall";
  CHECK(read_text(scenario.dump()).layer_times == "wall");
  CHECK(scenario_error_after([](nlohmann::json& s) { s["compute"]["layer_times"] = "scaled"; }) ==
        "s.json: compute.layer_times: expected one of \"as_traced\", \"scaled_to_measured\", "
        "\"wall\", found \"scaled\"");
}

TEST_CASE("compute.overlap_slowdown: Lee et al.'s average over the time GPU kernels run") {
  // Unstated: 1.189 beside NCCL's kernels (Lee et al., arXiv:2507.03114, 18.9% on average),
  // which run all of a ring's time; copy engines and CPU servers run a parameter server's, so
  // each policy runs at full speed beside it; on one GPU nothing is sent.
  CHECK(read_text(minimal).overlap_slowdown == 1.189);
  CHECK_FALSE(read_text(minimal).overlap_slowdown_given);
  const ScenarioResult ring = run_scenario(read_text(minimal));
  for (const PolicyOutcome& outcome : ring.outcomes) {
    CHECK(outcome.kernel_share == 1.0);
    CHECK(outcome.overlap_slowdown == 1.189);
  }
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["communication"]["collective"] = {{"algorithm", "parameter_server"}, {"servers", 2}};
  const ScenarioResult servers = run_scenario(read_text(scenario.dump()));
  for (const PolicyOutcome& outcome : servers.outcomes) {
    CHECK(outcome.kernel_share == 0.0);
    CHECK(outcome.overlap_slowdown == 1.0);
  }
  scenario = nlohmann::json::parse(minimal);
  scenario["cluster"]["gpus"] = 1;
  const ScenarioResult one_gpu = run_scenario(read_text(scenario.dump()));
  for (const PolicyOutcome& outcome : one_gpu.outcomes) {
    CHECK(outcome.kernel_share == 0.0);  // nothing sent
    CHECK(outcome.overlap_slowdown == 1.0);
  }
  scenario = nlohmann::json::parse(minimal);
  scenario["compute"]["overlap_slowdown"] = 1.38;
  CHECK(read_text(scenario.dump()).overlap_slowdown == 1.38);
  CHECK(read_text(scenario.dump()).overlap_slowdown_given);
  // Stated, it is the slowdown beside kernels as the default is: a ring runs at it, parameter
  // servers at full speed; and it holds at per_rank fidelity and with ByteScheduler.
  CHECK(run_scenario(read_text(scenario.dump())).outcomes.front().overlap_slowdown == 1.38);
  scenario["communication"]["collective"] = {{"algorithm", "parameter_server"}, {"servers", 2}};
  CHECK(read_text(scenario.dump()).overlap_slowdown == 1.38);
  CHECK(run_scenario(read_text(scenario.dump())).outcomes.front().overlap_slowdown == 1.0);
  scenario = nlohmann::json::parse(minimal);
  scenario["compute"]["overlap_slowdown"] = 2;
  scenario["fidelity"] = "per_rank";
  CHECK(read_text(scenario.dump()).overlap_slowdown == 2.0);
  scenario["fidelity"] = "analytic";
  scenario["communication"]["merge"]["policy"] = "bytescheduler";
  CHECK(read_text(scenario.dump()).overlap_slowdown == 2.0);
  // Sharded data parallelism takes it like the rest: the default unstated, a stated value kept;
  // its jobs (read without the sharding section) take their own default, the same 1.189.
  scenario = nlohmann::json::parse(minimal);
  scenario["communication"]["sharding"] = {{"units", "layers"}};
  CHECK(read_text(scenario.dump()).overlap_slowdown == 1.189);
  scenario["fidelity"] = "flow";
  scenario["jobs"] = {{"with", nlohmann::json::array({{{"gpus", 2}}})}};
  const ScenarioConfig sharded_jobs = read_text(scenario.dump());
  REQUIRE(sharded_jobs.jobs);
  CHECK(sharded_jobs.jobs->jobs.front().config->overlap_slowdown == 1.189);
  CHECK(sharded_jobs.jobs->jobs.back().config->overlap_slowdown == 1.189);
  scenario["compute"]["overlap_slowdown"] = 2;
  CHECK(read_text(scenario.dump()).overlap_slowdown == 2.0);
  CHECK(scenario_error_after([](nlohmann::json& s) { s["compute"]["overlap_slowdown"] = 0.5; }) ==
        "s.json: compute.overlap_slowdown: expected a number from 1 to 1000 (1: the GPU "
        "computes at full speed beside its collectives' kernels), found 0.5");
}

TEST_CASE("compute.single_gpu_samples_per_s scales the layers to one GPU's measurement") {
  CHECK_FALSE(read_text(minimal).single_gpu_samples_per_s);
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["compute"]["single_gpu_samples_per_s"] = 202.78;
  const ScenarioConfig config = read_text(scenario.dump());
  REQUIRE(config.single_gpu_samples_per_s);
  CHECK(*config.single_gpu_samples_per_s == 202.78);
  CHECK(config.layer_times == "scaled_to_measured");  // implied
  scenario["compute"]["layer_times"] = "scaled_to_measured";
  CHECK(read_text(scenario.dump()).layer_times == "scaled_to_measured");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["compute"]["single_gpu_samples_per_s"] = 100;
          s["compute"]["layer_times"] = "as_traced";
        }) ==
        "s.json: compute.layer_times: expected \"scaled_to_measured\" or no layer_times "
        "with single_gpu_samples_per_s (it scales the layers to one GPU's measured "
        "iteration), found \"as_traced\"");
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["compute"]["single_gpu_samples_per_s"] = 0;
        }) == "s.json: compute.single_gpu_samples_per_s: expected a number > 0, found 0");
}

TEST_CASE("cluster.node: a preset's model, a node file beside the scenario, and refusals") {
  // Two Broadwell sockets, two GPUs on each's root ports: rings through host memory and QPI,
  // 6 GB/s (tests/unit/node_topology_test.cpp), 48 Gbit/s per GPU.
  const ScenarioConfig preset = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "node": "pcie3_2socket_4gpu"},
    "network": {"bandwidth_gbps": 10}})");
  CHECK(preset.gpus_per_node == 4);
  CHECK(preset.intra_node.bandwidth.gbps() == doctest::Approx(48.0));
  REQUIRE(preset.node);
  CHECK(preset.node->name == "pcie3_2socket_4gpu");
  // The same with GeForce cards: no GPUDirect RDMA, so the 100 Gbit/s NIC the node does not
  // name still hands its data to the GPUs through host memory, which a GPU reads at 35.19 /
  // 52.77 of its 12 GB/s link: 8.002 GB/s, 64.02 Gbit/s; RDMA's goodput (0.96 x 100 = 96)
  // does not bind. The datacenter cards' node leaves the network at 96.
  const char* geforce = R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "node": "geforce_pcie3_2socket_4gpu"},
    "network": {"bandwidth_gbps": 100, "transport": "rdma"}})";
  CHECK(read_text(geforce).network.link.bandwidth.gbps() ==
        doctest::Approx(12.0 * 35.19 / 52.77 * 8));
  // Without a transport the node caps the line itself, and the line stays as the scenario set
  // it (what results report as bandwidth_gbps): 100 Gbit/s, reaching 64.02.
  nlohmann::json bare = nlohmann::json::parse(geforce);
  bare["network"].erase("transport");
  const ScenarioConfig capped = read_text(bare.dump());
  CHECK(capped.network.line_rate.gbps() == doctest::Approx(100.0));
  CHECK(capped.network.link.bandwidth.gbps() == doctest::Approx(12.0 * 35.19 / 52.77 * 8));
  nlohmann::json datacenter = nlohmann::json::parse(geforce);
  datacenter["cluster"]["node"] = "pcie3_2socket_4gpu";
  CHECK(read_text(datacenter.dump()).network.link.bandwidth.gbps() == doctest::Approx(96.0));
  // NCCL's socket transport takes host memory only, so over TCP even a DGX-1's GPUDirect NICs
  // get their data through host memory: each of the four EDR NICs at most one GPU's reads
  // over its 12 GB/s switch link, 12 x 35.19 / 52.77 x 8 = 64.02 Gbit/s, 256.07 for the node,
  // under TCP's 400 x 1448 / 1538 = 376.6, what the switches and a dedicated server's NIC see
  // (the GPU-NIC paths are the workers'). Over RDMA the NICs' PCIe paths cap it: 4 x 96 = 384,
  // equal to RDMA's 0.96 x 400.
  nlohmann::json dgx1 = nlohmann::json::parse(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "node": "dgx1_v100"}, "network": {"transport": "tcp"}})");
  const ScenarioConfig tcp = read_text(dgx1.dump());
  CHECK(tcp.network.worker_path.gbps() == doctest::Approx(4 * 12.0 * 35.19 / 52.77 * 8));
  CHECK(tcp.network.fabric.gbps() == doctest::Approx(400.0 * 1448 / 1538));
  dgx1["network"]["transport"] = "rdma";
  CHECK(read_text(dgx1.dump()).network.worker_path.gbps() == doctest::Approx(384.0));
  CHECK(read_text(dgx1.dump()).network.fabric.gbps() == doctest::Approx(384.0));
  // A DGX-1's nvidia-smi matrix, named relative to the scenario's folder (tests/data).
  const ScenarioConfig smi = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "node": "topology/dgx1_v100_nvidia-smi_topo.txt"},
    "network": {"bandwidth_gbps": 100}})");
  CHECK(smi.gpus_per_node == 8);
  CHECK(smi.intra_node.bandwidth.gbps() == doctest::Approx(960.0));
  // Two ranks a node on a DGX-1 run on its GPUs 0 and 1: their one NVLink, 160 Gbit/s
  // (node_topology_test), said in a note.
  const ScenarioConfig pair = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 16, "gpus_per_node": 2, "node": "dgx1_v100"},
    "network": {"bandwidth_gbps": 100}})");
  CHECK(pair.intra_node.bandwidth.gbps() == doctest::Approx(160.0));
  CHECK(pair.node->model.gpus == 2);
  CHECK(std::any_of(pair.notes.begin(), pair.notes.end(), [](const std::string& note) {
    return note.find(
               "cluster.gpus_per_node 2 is below the node's 8 GPUs: priced on its gpu0, "
               "gpu1") != std::string::npos;
  }));
  // More ranks a node than the node has GPUs is refused.
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"] = {{"gpus", 32}, {"gpus_per_node", 16}, {"node", "dgx1_v100"}};
        }).find("gpus_per_node: expected at most the 8 GPUs of cluster.node") != std::string::npos);
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"]["node"] = "dgx_h10";
        }).find("did you mean \"dgx_h100\"") != std::string::npos);
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"]["node"] = "none.json";
        }).find("node file") != std::string::npos);
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["cluster"]["node"] = 8;
        }).find("cluster.node") != std::string::npos);
}

TEST_CASE("a job inside one node may leave the network out; one that crosses it may not") {
  // Four GPUs on one node of four: every collective stays inside it, so a run without a network
  // prices exactly what it prices with any network (here 1 and 400 Gbit/s), at every level.
  const auto scenario = [](const char* collective, const char* network) {
    return fmt::format(R"({{"trace": "four_layers.json", "cluster": {{"gpus": 4,
      "gpus_per_node": 4}}{}, "communication": {{"collective": {}}}}})",
                       network, collective);
  };
  for (const char* collective :
       {R"({"algorithm": "ring_allreduce"})", R"({"algorithm": "double_binary_tree"})",
        R"({"algorithm": "hierarchical"})",
        R"({"algorithm": "parameter_server", "servers": 2, "placement": "colocated"})",
        R"({"algorithm": "byteps", "servers": 1, "placement": "colocated"})"}) {
    INFO(collective);
    for (const char* fidelity : {"analytic", "per_rank", "flow"}) {
      INFO(fidelity);
      const auto at = [&](const char* network) {
        nlohmann::json json = nlohmann::json::parse(scenario(collective, network));
        json["fidelity"] = fidelity;
        return read_text(json.dump());
      };
      const ScenarioConfig none = at("");
      CHECK_FALSE(none.network.stated);
      const Time without = run_scenario(none).outcomes.front().breakdown.iteration;
      for (const char* network :
           {R"(, "network": {"bandwidth_gbps": 1})", R"(, "network": {"bandwidth_gbps": 400})"}) {
        const ScenarioConfig with = at(network);
        CHECK(with.network.stated);
        CHECK(run_scenario(with).outcomes.front().breakdown.iteration == without);
      }
    }
  }
  // `sgdsim calibrate`'s scenario line for nccl-tests inside one node
  // (tests/data/nccl_tests_2080ti_x2_shm.txt) is a network block without a rate: on a job inside
  // that node it sets the intra-node link, and the two-GPU ring's cost is the fit itself,
  // 19.478 us + 0.24901 ns/byte.
  const ScenarioConfig fitted = read_text(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 2, "gpus_per_node": 2}, "network": {"measured_allreduce":
    [{"gpus": 2, "gpus_per_node": 2, "alpha_us": 19.478, "beta_ns_per_byte": 0.24901}]}})");
  CHECK_FALSE(fitted.network.stated);
  const LinearCost cost = run_scenario(fitted).collective_cost;
  CHECK(cost.startup.us() == doctest::Approx(19.478));
  CHECK(cost.ps_per_byte == doctest::Approx(249.01));
  // Two nodes and dedicated servers cross a network (jobs sharing a fabric too:
  // tests/bad_input_test.py).
  const auto error = [](const std::string& text) {
    return test::input_error_of([&] { read_text(text); });
  };
  CHECK(error(R"({"trace": "four_layers.json", "cluster": {"gpus": 8, "gpus_per_node": 4}})") ==
        "s.json: network: missing (8 GPUs on 2 nodes of 4 cross a network; only a job inside "
        "one node, without dedicated servers, may leave it out)");
  CHECK(error(R"({"trace": "four_layers.json", "cluster": {"gpus": 4}})") ==
        "s.json: network: missing (4 GPUs on 4 nodes of 1 cross a network; only a job inside "
        "one node, without dedicated servers, may leave it out)");
  CHECK(error(scenario(R"({"algorithm": "parameter_server", "servers": 2})", "")) ==
        "s.json: network: missing (2 dedicated servers (machines of their own) cross a "
        "network; only a job inside one node, without dedicated servers, may leave it out)");
  // BytePS on one machine runs no servers (byteps.hpp), so its dedicated ones need no network;
  // forced to run them (BYTEPS_FORCE_DISTRIBUTED), they do.
  const ScenarioConfig byteps = read_text(scenario(R"({"algorithm": "byteps", "servers": 2})", ""));
  CHECK(cluster_shape(byteps).servers == 0);
  CHECK(error(scenario(R"({"algorithm": "byteps", "servers": 2, "force_distributed": 1})", "")) ==
        "s.json: network: missing (2 dedicated servers (machines of their own) cross a "
        "network; only a job inside one node, without dedicated servers, may leave it out)");
}

TEST_CASE("BytePS on one machine runs NCCL inside it alone, unless forced to use its servers") {
  // bytedance/byteps#26: "When DMLC_NUM_WORKER is 1, BytePS will not use PS at all". Four GPUs
  // on one node of four: BytePS's one-machine run is its partitions' reduce-scatters and
  // allgathers on the NCCL stream, whatever the servers asked for and the network; the
  // collectives are NCCL's kernels, so compute takes Lee et al.'s average slowdown beside them,
  // as a ring's does (1.189, scenario_run.cpp), where the copies, network and servers of a
  // forced run leave it at full speed part of the time.
  const auto read = [](const char* collective, const char* network) {
    return read_text(fmt::format(R"({{"trace": "four_layers.json", "cluster": {{"gpus": 4,
      "gpus_per_node": 4}}{}, "communication": {{"collective": {}}}}})",
                                 network, collective));
  };
  const ScenarioConfig alone = read(R"({"algorithm": "byteps", "servers": 2})", "");
  CHECK(alone.overlap_slowdown == doctest::Approx(1.189));
  const ScenarioConfig dedicated =
      read(R"({"algorithm": "byteps", "servers": 2})", R"(, "network": {"bandwidth_gbps": 10})");
  CHECK(cluster_shape(dedicated).servers == 0);
  const ScenarioResult without = run_scenario(alone);
  CHECK(without.outcomes.front().overlap_slowdown == doctest::Approx(1.189));
  CHECK(run_scenario(dedicated).outcomes.front().breakdown.communication ==
        without.outcomes.front().breakdown.communication);
  CHECK(alone.collective->describe(alone.collective_settings, cluster_shape(alone)) ==
        "byteps (one machine: NCCL inside it, no servers; 4096000-byte partitions)");
  // Forced, the two dedicated servers are priced across the 10 Gbit/s network: slower, and
  // compute slowed only for the NCCL stages' part of it.
  const ScenarioConfig forced = read(R"({"algorithm": "byteps", "servers": 2,
    "force_distributed": 1})",
                                     R"(, "network": {"bandwidth_gbps": 10})");
  CHECK(cluster_shape(forced).servers == 2);
  const ScenarioResult distributed = run_scenario(forced);
  CHECK(distributed.outcomes.front().overlap_slowdown < 1.189);
  CHECK(distributed.outcomes.front().breakdown.communication >
        without.outcomes.front().breakdown.communication);
}

TEST_CASE("BytePS's groups per PCIe switch take their rings and copies from the node") {
  // pcie3_2socket_2switch_8gpu: two PCIe 3.0 switches of four GPUs, one per socket. With
  // BYTEPS_PCIE_SWITCH_SIZE=4 each group's ring stays under its switch, P2P at 12 GB/s (96
  // Gbit/s, where the whole node's ring crosses QPI through host memory), and a group's copies
  // to host memory share its switch's 12 GB/s uplink: 96 Gbit/s (node_topology_test.cpp).
  const auto read = [](int pcie_switch_size) {
    return read_text(fmt::format(R"({{"trace": "four_layers.json", "cluster": {{"gpus": 8,
      "node": "pcie3_2socket_2switch_8gpu"}}, "communication": {{"collective":
      {{"algorithm": "byteps", "servers": 1, "pcie_switch_size": {}}}}}}})",
                                 pcie_switch_size));
  };
  const ScenarioConfig grouped = read(4);
  REQUIRE(grouped.node.has_value());
  const CollectiveContext context{
      std::make_shared<const Topology>(Topology::build_representative(cluster_shape(grouped))), 0.0,
      std::nullopt,
      std::make_shared<const NodeTopology>(NodeTopology::build(grouped.node->description, "t")),
      grouped.node->read_efficiency};
  const BytePsSettings settings = byteps_settings(context, grouped.collective_settings);
  CHECK(settings.group == 4);
  CHECK(settings.group_ring.gbps() == doctest::Approx(96.0));
  CHECK(settings.host_copy.gbps() == doctest::Approx(96.0));
  CHECK(grouped.collective->describe(grouped.collective_settings, cluster_shape(grouped)) ==
        "byteps (one machine: NCCL in groups of 4 GPUs, the CPU adding the groups' sums, no "
        "servers; 4096000-byte partitions)");
  // BytePS's default, 8, is the whole machine: one ring through host memory at 48 Gbit/s per
  // GPU, over 7/8 of each partition each way, where the groups move 3/4 at 96 plus the copies:
  // the groups communicate faster (BytePS's docs/best-practice.md: "20%~30% performance
  // improvement compared with Horovod/NCCL" on such a machine).
  const ScenarioConfig whole = read(8);
  CHECK(byteps_settings(context, whole.collective_settings).group == 8);
  CHECK(run_scenario(grouped).outcomes.front().breakdown.communication <
        run_scenario(whole).outcomes.front().breakdown.communication);
  // A size that does not cut the machine evenly is refused (BytePS would warn and run one
  // group), and so is one that makes more than two groups (BytePS's CPU adds two groups'
  // buffers only); the message names the sizes BytePS runs correctly.
  for (const int size : {3, 2}) {
    const std::string error = test::input_error_of([&] { read(size); });
    CHECK(error.find("communication.collective.pcie_switch_size: expected 4 (two groups) or at "
                     "least cluster.gpus_per_node, 8 (the whole machine)") != std::string::npos);
  }
  // Unstated, BytePS's 8 takes machines of 12 whole, as BytePS does (it does not divide them).
  const ScenarioConfig twelve = read_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 24,
    "gpus_per_node": 12}, "network": {"bandwidth_gbps": 10}, "communication": {"collective":
    {"algorithm": "byteps", "servers": 2}}})");
  CHECK(byteps_group(8, 12) == 12);
  CHECK(twelve.collective->describe(twelve.collective_settings, cluster_shape(twelve)) ==
        "byteps (2 servers at 10 Gbps, 4096000-byte partitions)");
}

TEST_CASE("a transport's cap counts the connections the collective opens") {
  // TCP on 100 Gbit/s: goodput 100 x 1448 / 1538 = 94.15 Gbit/s; one connection reaches 16.48
  // (NVIDIA/nccl #209). Halving-doubling (MPI) opens one connection per peer: 16.48; a ring two
  // (NCCL's channels per NIC): 32.96; a parameter server one per server: 6 x 16.48 = 98.88,
  // above the goodput, which then decides.
  const auto rate = [](const char* collective) {
    nlohmann::json scenario = nlohmann::json::parse(minimal);
    scenario["network"] = {{"bandwidth_gbps", 100}, {"transport", "tcp"}};
    scenario["communication"]["collective"] = nlohmann::json::parse(collective);
    const ScenarioConfig config = read_text(scenario.dump());
    return std::pair{config.network.link.bandwidth.gbps(),
                     config.network.transport->connections_used};
  };
  const auto [hd, hd_connections] = rate(R"({"algorithm": "halving_doubling"})");
  CHECK(hd == doctest::Approx(16.48));
  CHECK(hd_connections == 1);
  const auto [ring, ring_connections] = rate(R"({"algorithm": "ring_allreduce"})");
  CHECK(ring == doctest::Approx(32.96));
  CHECK(ring_connections == 2);
  const auto [ps, servers] = rate(R"({"algorithm": "parameter_server", "servers": 6})");
  CHECK(ps == doctest::Approx(100.0 * 1448.0 / 1538.0));
  CHECK(servers == 6);
}

TEST_CASE("a transport's cap binds the hosts' connections, not the switches or the servers") {
  // 8 GPUs, 4 per node sharing a NIC, TCP at 100 Gbit/s (goodput 94.15, 16.48 per connection).
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["cluster"]["gpus_per_node"] = 4;
  scenario["network"] = {{"bandwidth_gbps", 100}, {"transport", "tcp"}};
  // Halving-doubling: each of the 4 ranks on a NIC has its own connection: 4 x 16.48 = 65.92.
  scenario["communication"]["collective"] = {{"algorithm", "halving_doubling"}};
  ScenarioConfig config = read_text(scenario.dump());
  CHECK(config.network.transport->connections_used == 4);
  CHECK(config.network.link.bandwidth.gbps() == doctest::Approx(65.92));
  // The fabric keeps line x goodput.
  CHECK(config.network.fabric.gbps() == doctest::Approx(100.0 * 1448.0 / 1538.0));
  // A parameter server with one server: a NIC carries 4 GPUs' connections (65.92); the server
  // holds one from each of the 8 GPUs (131.84), so the goodput decides its link.
  scenario["communication"]["collective"] = {{"algorithm", "parameter_server"}, {"servers", 1}};
  config = read_text(scenario.dump());
  CHECK(config.network.link.bandwidth.gbps() == doctest::Approx(65.92));
  CHECK(config.network.server_default.gbps() == doctest::Approx(100.0 * 1448.0 / 1538.0));
  CHECK(cluster_shape(config).server_link.bandwidth.gbps() ==
        doctest::Approx(100.0 * 1448.0 / 1538.0));
  // BytePS pushes once per machine: 2 machines into each server, 2 x 16.48 = 32.96.
  scenario["communication"]["collective"] = {{"algorithm", "byteps"}, {"servers", 2}};
  config = read_text(scenario.dump());
  CHECK(config.network.transport->connections_used == 2);
  CHECK(config.network.server_default.gbps() == doctest::Approx(32.96));
}

TEST_CASE("one mechanism caps the workers' and the servers' links, as read and as reran") {
  // 8 single-GPU nodes, TCP at 100 Gbit/s (goodput 94.15), BytePS with 4 servers: a worker
  // pushes over 4 connections, a server holds 8 (one per machine).
  nlohmann::json scenario = nlohmann::json::parse(minimal);
  scenario["network"] = {{"bandwidth_gbps", 100}, {"transport", "tcp"}};
  scenario["communication"]["collective"] = {{"algorithm", "byteps"}, {"servers", 4}};
  ScenarioConfig config = read_text(scenario.dump());
  // As read, at 16.48 per connection: 4 x 16.48 = 65.92; the servers' 8 x 16.48 = 131.84 is
  // above the goodput, which decides.
  CHECK(config.network.link.bandwidth.gbps() == doctest::Approx(65.92));
  CHECK(config.network.server_default.gbps() == doctest::Approx(100.0 * 1448.0 / 1538.0));
  // At the range's low end, 11.08 per connection (what the transport range reruns): 44.32 and
  // 8 x 11.08 = 88.64, both under the goodput.
  cap_connections(config, Bandwidth::from_gbps(11.08));
  CHECK(config.network.link.bandwidth.gbps() == doctest::Approx(44.32));
  CHECK(config.network.server_default.gbps() == doctest::Approx(88.64));
}

TEST_CASE("connections need a cap per connection to multiply") {
  CHECK(scenario_error_after([](nlohmann::json& s) {
          s["network"]["transport"] = "rdma";
          s["network"]["connections"] = 4;
        }) ==
        "s.json: network.connections: expected no connections without a cap per "
        "connection to multiply (the rdma transport has none: give flow_cap_gbps), "
        "found 4");
}

TEST_CASE(
    "BytePS's network is capped by its GPUs' copies to host memory, a ring's by one GPU's reads") {
  // Four GeForce cards without GPUDirect RDMA under one PCIe 3.0 switch (12 GB/s links), a
  // 200 Gb/s NIC over RDMA: 192 Gbit/s of goodput. NCCL's ring stages each network step
  // through host memory for one GPU's kernel to read, 12 x 35.19 / 52.77 x 8 = 64.02 Gbit/s
  // (nvbandwidth's kernel reads against writes). BytePS's NIC reads and writes host memory
  // itself; its four GPUs copy a partition's quarters there at once, all through the switch's
  // one uplink: 12 GB/s = 96 Gbit/s for the whole partition (host_copy_gbps).
  const auto network_gbps = [](const std::string& collective) {
    nlohmann::json scenario = nlohmann::json::parse(R"({"trace": "four_layers.json",
      "cluster": {"gpus": 8, "node": "geforce_pcie3_4gpu"},
      "network": {"bandwidth_gbps": 200, "transport": "rdma"}})");
    scenario["communication"]["collective"] = nlohmann::json::parse(collective);
    return read_text(scenario.dump()).network.link.bandwidth.gbps();
  };
  CHECK(network_gbps(R"({"algorithm": "ring_allreduce"})") ==
        doctest::Approx(12.0 * 35.19 / 52.77 * 8));
  CHECK(network_gbps(R"({"algorithm": "byteps", "servers": 2})") == doctest::Approx(96.0));
  // A dedicated server is a machine of its own: its NIC takes the line, 192 (no GPU copies).
  nlohmann::json dedicated = nlohmann::json::parse(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_4gpu"},
    "network": {"bandwidth_gbps": 200, "transport": "rdma"},
    "communication": {"collective": {"algorithm": "byteps", "servers": 1}}})");
  CHECK(cluster_shape(read_text(dedicated.dump())).server_link.bandwidth.gbps() ==
        doctest::Approx(192.0));
  // Its cards on two sockets' root ports, each its own 12 GB/s: 384 Gbit/s of copies, and the
  // NIC's 192 is the network.
  nlohmann::json ports = nlohmann::json::parse(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 8, "node": "geforce_pcie3_2socket_4gpu"},
    "network": {"bandwidth_gbps": 200, "transport": "rdma"},
    "communication": {"collective": {"algorithm": "byteps", "servers": 2}}})");
  CHECK(read_text(ports.dump()).network.link.bandwidth.gbps() == doctest::Approx(192.0));
}
