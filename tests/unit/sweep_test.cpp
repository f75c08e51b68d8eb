// Tests for scenario/sweep.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/scenario/sweep.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

nlohmann::json with_sweep(const nlohmann::json& sweep) {
  nlohmann::json scenario = nlohmann::json::parse(R"({"trace": "four_layers.json",
    "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 10}, "iterations": 1})");
  scenario["sweep"] = sweep;
  return scenario;
}

Sweep read_sweep(const nlohmann::json& scenario) {
  return Sweep::read(jsonio::Document{"w.json", scenario}, SGDSIM_TEST_DATA);
}

std::string sweep_error_of(const nlohmann::json& scenario) {
  return test::input_error_of([&] { read_sweep(scenario); });
}

}  // namespace

TEST_CASE("a sweep is the cross product of its axes, last key varying fastest") {
  const Sweep sweep =
      read_sweep(with_sweep({{"cluster.gpus", {{"from", 2}, {"to", 16}, {"times", 2}}},
                             {"communication.merge.policy", {"none", "optimal"}}}));
  // Keys in alphabetical order: cluster.gpus (2, 4, 8, 16) then the policy (2 values): 8 points.
  REQUIRE(sweep.size() == 8);
  CHECK(sweep.axes()[0].key == "cluster.gpus");
  CHECK(sweep.point_values(0) == std::vector<std::string>{"2", "none"});
  CHECK(sweep.point_values(1) == std::vector<std::string>{"2", "optimal"});
  CHECK(sweep.point_values(7) == std::vector<std::string>{"16", "optimal"});
  CHECK(sweep.point(5).gpus == 8);
  CHECK(sweep.point(5).policies == std::vector<MergePolicy>{MergePolicy::named("optimal")});
}

TEST_CASE("arithmetic ranges include both ends") {
  const Sweep sweep = read_sweep(
      with_sweep({{"network.bandwidth_gbps", {{"from", 10}, {"to", 40}, {"step", 10}}}}));
  CHECK(sweep.size() == 4);  // 10, 20, 30, 40
  CHECK(sweep.point(3).network.link.bandwidth.gbps() == doctest::Approx(40.0));
}

TEST_CASE("rows come out in point order whatever the number of threads") {
  const Sweep sweep =
      read_sweep(with_sweep({{"cluster.gpus", {{"from", 2}, {"to", 64}, {"times", 2}}},
                             {"network.bandwidth_gbps", {1, 10, 100}}}));
  SweepRunOptions one;
  SweepRunOptions four;
  four.threads = 4;
  const std::string serial = sweep_csv(sweep, run_sweep(sweep, one));
  CHECK(serial == sweep_csv(sweep, run_sweep(sweep, four)));
  CHECK(serial.starts_with("cluster.gpus,network.bandwidth_gbps,scenario,"));
  // 18 points x 6 policies = 108 rows, plus the header.
  CHECK(std::count(serial.begin(), serial.end(), '\n') == 109);
}

TEST_CASE("a stopped sweep keeps the finished points and says it was interrupted") {
  const Sweep sweep = read_sweep(with_sweep({{"cluster.gpus", {2, 4}}}));
  std::atomic<bool> stop{true};
  SweepRunOptions options;
  options.stop = &stop;
  const auto rows = run_sweep(sweep, options);
  CHECK(rows.empty());
  CHECK(sweep_csv(sweep, rows).ends_with("# interrupted: 0 of 2 points finished\n"));
}

TEST_CASE("a sweep key that names no scenario setting is refused") {
  CHECK(
      sweep_error_of(with_sweep({{"cluster.gpu", {4, 8}}})) ==
      "w.json: sweep.cluster.gpu: this key does not name a valid scenario setting for value 4: "
      "w.json: cluster.gpu: unknown key (did you mean \"gpus\"?); allowed here: gpus, "
      "gpus_per_node, host_read_efficiency, intra_node_bandwidth_gbps, intra_node_latency_us, nic, "
      "node");
}

TEST_CASE("an empty list and a range that yields nothing are refused") {
  CHECK(sweep_error_of(with_sweep({{"cluster.gpus", nlohmann::json::array()}})) ==
        "w.json: sweep.cluster.gpus: expected a non-empty list of values or a range object, found "
        "an empty array");
  CHECK(sweep_error_of(with_sweep({{"cluster.gpus", {{"from", 64}, {"to", 4}, {"times", 2}}}})) ==
        "w.json: sweep.cluster.gpus: the range from 64 to 4 yields no values");
}

TEST_CASE("a bad value at any point is refused before anything runs, naming the point") {
  CHECK(sweep_error_of(with_sweep({{"cluster.gpus", {4, 0}}})) ==
        "w.json (sweep point cluster.gpus=0): cluster.gpus: expected an integer from 1 to 1048576, "
        "found 0");
}

TEST_CASE("a sweep over the shard group adds a row per strategy with its group and memory") {
  nlohmann::json scenario = with_sweep({{"communication.sharding.group_gpus", {1, 2, 4}}});
  scenario["communication"] = {{"merge", {{"policy", "bucket"}}},
                               {"sharding", {{"strategy", "hybrid_shard"}, {"units", "layers"}}}};
  const Sweep sweep = read_sweep(scenario);
  REQUIRE(sweep.size() == 3);
  const std::string csv = sweep_csv(sweep, run_sweep(sweep, SweepRunOptions{}));
  // Per point: DDP's buckets, then HYBRID_SHARD with its group; 1,250 fp32 parameters (the
  // four-layer trace) hold (4 + 4 + 8) x 1250 / G = 20,000 / G bytes of states per GPU.
  CHECK(csv.find(",hybrid_shard,") != std::string::npos);
  for (const char* tail : {",1,20000,", ",2,10000,", ",4,5000,"}) {
    INFO(tail);
    CHECK(csv.find(tail) != std::string::npos);
  }
}
