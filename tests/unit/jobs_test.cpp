// Jobs sharing a fabric (scenario/jobs.hpp, training/shared_fabric.hpp): placement, the exact
// agreement of the shared simulation with each job alone, contention worked out by hand, and
// bad input.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "printers.hpp"
#include "sgdsim/scenario/jobs.hpp"
#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/timeline.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

ScenarioResult run_json(const std::string& text) {
  return run_scenario(
      read_scenario(jsonio::Document{"j.json", nlohmann::json::parse(text)}, SGDSIM_TEST_DATA));
}

// The four-layer trace (5,000 bytes of gradients; forward 4,000 us, backward 5,800 us,
// optimizer 500 us) on single-GPU nodes at 10 Gbit/s with no latency, so that every transfer
// time is bytes over a rate.
std::string two_leaf_scenario(const std::string& jobs, const std::string& policy = "all") {
  return fmt::format(
      R"({{"trace": "four_layers.json", "cluster": {{"gpus": 2, "intra_node_latency_us": 0}},
          "network": {{"bandwidth_gbps": 10, "latency_us": 0, "reduction_ns_per_byte": 0,
                       "fat_tree": {{"leaf_nodes": 2, "oversubscription": 2}}}},
          "communication": {{"merge": {{"policy": "{}"}}}},
          "fidelity": "flow", "iterations": 3, "jobs": {}}})",
      policy, jobs);
}

}  // namespace

TEST_CASE("jobs are placed on whole nodes: packed, spread over leaves, random, shared") {
  using Nodes = std::vector<std::vector<int>>;
  CHECK(place_jobs({2, 3}, 8, 0, "packed", 1, "s") == Nodes{{0, 1}, {2, 3, 4}});
  // Leaves of 2 nodes: slots 0, 2, 4, 6 (each leaf's first node), then 1, 3, 5, 7.
  CHECK(place_jobs({2, 3}, 8, 2, "spread", 1, "s") == Nodes{{0, 2}, {4, 6, 1}});
  // A partly filled last leaf (7 nodes, leaves of 3): slots 0, 3, 6, 1, 4, 2, 5.
  CHECK(place_jobs({7}, 7, 3, "spread", 1, "s") == Nodes{{0, 3, 6, 1, 4, 2, 5}});
  // One switch: spread is packed.
  CHECK(place_jobs({2, 3}, 8, 0, "spread", 1, "s") == place_jobs({2, 3}, 8, 0, "packed", 1, "s"));
  CHECK(place_jobs({2, 3}, 3, 0, "shared", 1, "s") == Nodes{{0, 1}, {0, 1, 2}});
  // Random: a permutation drawn from the seed, the same on every run, another for another seed.
  const Nodes drawn = place_jobs({4, 4}, 8, 0, "random", 7, "s");
  CHECK(drawn == place_jobs({4, 4}, 8, 0, "random", 7, "s"));
  std::vector<int> all = drawn[0];
  all.insert(all.end(), drawn[1].begin(), drawn[1].end());
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  bool differs = false;
  for (std::uint64_t seed = 8; seed < 12; ++seed) {
    differs = differs || place_jobs({4, 4}, 8, 0, "random", seed, "s") != drawn;
  }
  CHECK(differs);
  CHECK(test::input_error_of([] {
          place_jobs({2, 3}, 4, 0, "packed", 1, "s");
        }) ==
        "s: the jobs need 5 nodes (every job's together), more than the fabric's 4; give a "
        "larger jobs.fabric_gpus or fewer GPUs");
}

TEST_CASE("two jobs crossing the same thin uplink share it: the transfers take twice as long") {
  // Spread over two leaves of 2 nodes, job 1 runs on nodes 0 and 2 and job 2 on nodes 1 and 3:
  // each ring crosses both leaves' uplinks, of 2 x 10 / 2 = 10 Gbit/s per direction. One
  // message of 5,000 bytes after backward ("all"): a 2-GPU ring sends 2,500 bytes each way in its
  // reduce-scatter step and again in its allgather step. Alone, each step takes 2,500 B /
  // 1.25 B/ns = 2 us (the NIC and the uplink both run at 10 Gbit/s): a 4 us message, an iteration
  // of 4,000 + 5,800 + 4 + 500 = 10,304 us. Together from time zero, both jobs' flows cross each
  // uplink in the same direction at once: 5 Gbit/s each, 4 us a step, 10,308 us an iteration.
  const ScenarioResult result =
      run_json(two_leaf_scenario(R"({"placement": "spread", "with": [{"gpus": 2}]})"));
  REQUIRE(result.jobs.size() == 2);
  CHECK(result.fabric_gpus == 4);
  CHECK(result.jobs[0].nodes == std::vector<int>{0, 2});
  CHECK(result.jobs[1].nodes == std::vector<int>{1, 3});
  for (const JobOutcome& job : result.jobs) {
    CHECK(job.alone.mean_iteration() == Time::from_us(10304.0));
    CHECK(job.shared.mean_iteration() == Time::from_us(10308.0));
    CHECK(job.shared.count == 3);
    CHECK(job.communication() == Time::from_us(8.0));
  }
  CHECK(result.jobs[0].contends_with == std::vector<std::string>{"job 1"});
  // The scenario's own job alone is what its own scenario predicts on a cluster of its own.
  CHECK(result.jobs[0].alone.mean_iteration() ==
        result.outcomes.front().simulation.mean_iteration());
  // Started after the first job's three iterations (30.912 ms), the second never meets it.
  const ScenarioResult later = run_json(
      two_leaf_scenario(R"({"placement": "spread", "with": [{"gpus": 2, "start_ms": 31}]})"));
  for (const JobOutcome& job : later.jobs) {
    CHECK(job.shared.mean_iteration() == Time::from_us(10304.0));
  }
  CHECK(later.jobs[1].shared.iterations.front().start == Time::from_us(31000.0));
  // The report's table and node lines (runs of one stride joined, pairs listed as pairs).
  const std::string table = summary_table(result);
  CHECK(table.find("jobs sharing the fabric: 4 GPUs (4 nodes of 1), placement spread") !=
        std::string::npos);
  CHECK(table.find("job 1: nodes 1,3; shares links with j") != std::string::npos);
  // The CSV: the policy's row, then a row per job with its name, alone time and slowdown
  // (10,308 / 10,304), and no overlap slowdown or kernel share of its own.
  const std::string csv = result_csv(result);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);  // header, policy, two jobs
  CHECK(csv.find(",\"job 1\",10304.000000,1.000388,,,2\n") != std::string::npos);
  // The timeline: after the policy's process, one per job, whose message spans last the shared
  // 8 us and whose iteration spans carry both times.
  const auto timeline = timeline_json(result, TimelineOptions{2, 3});
  int job_messages = 0;
  int job_iterations = 0;
  int named = 0;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name" && event["pid"] == 3) {
      ++named;
      CHECK(event["args"]["name"] ==
            "job 1: 2 GPUs, ring_allreduce, SyncEASGD (a job sharing the fabric)");
    }
    if (event["ph"] != "X" || event["pid"] < 2) continue;
    if (event["cat"] == "communication") {
      ++job_messages;
      CHECK(event["dur"] == doctest::Approx(8.0));
      CHECK(event["name"] == "layers 0..3 0.01 MB");
    }
    if (event["cat"] == "summary") {
      ++job_iterations;
      CHECK(event["args"]["alone_us"] == doctest::Approx(10304.0));
      CHECK(event["args"]["shared_us"] == doctest::Approx(10308.0));
    }
  }
  CHECK(named == 1);
  CHECK(job_messages == 6);  // 2 jobs x 3 iterations x one message
  CHECK(job_iterations == 6);
  // Packed, each job's ring stays under its own leaf: no link in common, nothing slows down.
  const ScenarioResult packed =
      run_json(two_leaf_scenario(R"({"placement": "packed", "with": [{"gpus": 2}]})"));
  CHECK(packed.jobs[0].contends_with.empty());
  CHECK(packed.jobs[1].shared.mean_iteration() == Time::from_us(10304.0));
}

TEST_CASE("the shared simulation gives a job alone exactly its own run, and jobs apart theirs") {
  // Every message of its own ("none": one per layer, released during backward) with a framework
  // cost per call and chunks, on 4-GPU nodes under a 4:1 fat-tree: the job's run flow by flow on
  // the shared network equals its messages priced alone, to the picosecond, and so does each of
  // several jobs whose flows never share a link although they run at the same time (other jobs'
  // compute moves no arrival: flows arrive only at the times the network announces).
  const std::string scenario = R"({"trace": "four_layers.json",
      "cluster": {"gpus": 8, "gpus_per_node": 4},
      "network": {"bandwidth_gbps": 10, "latency_us": 3,
                  "fat_tree": {"leaf_nodes": 2, "oversubscription": 4}},
      "communication": {"framework_overhead_us": 7, "collective": {"chunks": 2}},
      "fidelity": "flow", "iterations": 2,
      "jobs": {"policy": "none", "with": [{"gpus": 8, "start_ms": 0.3},
                                          {"gpus": 4, "collective": {"algorithm": "hierarchical"}}]}})";
  const ScenarioResult result = run_json(scenario);
  REQUIRE(result.jobs.size() == 3);
  // Packed: nodes 0-1 (leaf 0), 2-3 (leaf 1), 4 (leaf 2); no two jobs share a leaf.
  for (const JobOutcome& job : result.jobs) {
    INFO(job.name);
    CHECK(job.contends_with.empty());
    CHECK(job.shared.mean_iteration() == job.alone.mean_iteration());
  }
  // The same jobs forced through one network, flow by flow, all at once.
  ScenarioResult forced = result;
  run_jobs(forced, true);
  REQUIRE(forced.jobs.size() == 3);
  for (std::size_t j = 0; j < forced.jobs.size(); ++j) {
    INFO(forced.jobs[j].name);
    CHECK(forced.jobs[j].shared.events > result.jobs[j].shared.events);  // flow events ran
    CHECK(forced.jobs[j].shared.mean_iteration() == result.jobs[j].alone.mean_iteration());
    REQUIRE(forced.jobs[j].shared.iterations.size() == result.jobs[j].alone.iterations.size());
    for (std::size_t i = 0; i < forced.jobs[j].shared.iterations.size(); ++i) {
      const IterationTimeline& a = forced.jobs[j].shared.iterations[i];
      const IterationTimeline& b = result.jobs[j].alone.iterations[i];
      CHECK(a.end == b.end);
      REQUIRE(a.messages.size() == b.messages.size());
      for (std::size_t m = 0; m < a.messages.size(); ++m) {
        CHECK(a.messages[m].start == b.messages[m].start);
        CHECK(a.messages[m].end == b.messages[m].end);
      }
    }
  }
  // The scenario's own job, packed on the fabric's first nodes, is its own scenario's run.
  ScenarioConfig own = *forced.config.jobs->jobs.front().config;
  CHECK(own.overlap_slowdown == 1.189);
  const SimulationResult own_run = run_scenario(own).outcomes.front().simulation;
  CHECK(own_run.mean_iteration() == result.jobs[0].alone.mean_iteration());
  // Its messages are released when its own run releases them, compute slowed beside them
  // (the default 1.189) included.
  REQUIRE(own_run.last.messages.size() == result.jobs[0].alone.last.messages.size());
  for (std::size_t m = 0; m < own_run.last.messages.size(); ++m) {
    CHECK(own_run.last.messages[m].ready == result.jobs[0].alone.last.messages[m].ready);
  }
  CHECK(result.jobs[1].start == Time::from_us(300.0));
  // Nodes 0-1, 2-3 and 4: runs of one stride joined.
  CHECK(summary_table(result).find("job 1: nodes 2,3; shares no link") != std::string::npos);
  CHECK(result.jobs[2].collective == "hierarchical");
}

TEST_CASE("a job of its own trace does not take the scenario's single-GPU throughput") {
  // compute.single_gpu_samples_per_s is what one GPU of the scenario's model measured: the
  // scenario's own job is scaled to it, a job naming its own trace keeps that trace's times.
  const ScenarioConfig config = read_scenario(
      jsonio::Document{"j.json", nlohmann::json::parse(R"({"trace": "four_layers.json",
          "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 10},
          "compute": {"single_gpu_samples_per_s": 100}, "fidelity": "flow",
          "jobs": {"with": [{"gpus": 2, "trace": "four_layers.json"}, {"gpus": 2}]}})")},
      SGDSIM_TEST_DATA);
  REQUIRE(config.jobs);
  REQUIRE(config.jobs->jobs.size() == 3);
  CHECK(config.jobs->jobs[0].config->single_gpu_samples_per_s == 100.0);
  CHECK_FALSE(config.jobs->jobs[1].config->single_gpu_samples_per_s);
  CHECK(config.jobs->jobs[1].config->layer_times == "as_traced");
  CHECK(config.jobs->jobs[2].config->single_gpu_samples_per_s == 100.0);
}

TEST_CASE("identical jobs placed shared are communication.concurrent_jobs, to the picosecond") {
  // Compute slowed beside the collectives by the default (1.189) and at full speed (1).
  for (const std::string compute : {"", R"(, "compute": {"overlap_slowdown": 1})"}) {
    INFO(compute);
    const auto scenario = [&compute](const std::string& extra) {
      return fmt::format(
          R"({{"trace": "four_layers.json", "cluster": {{"gpus": 8, "gpus_per_node": 2}},
              "network": {{"bandwidth_gbps": 10, "latency_us": 2}},
              "communication": {{"merge": {{"policy": "mgwfbp"}}{}}},
              "fidelity": "flow", "iterations": 2{}{}}})",
          extra.empty() ? R"(, "concurrent_jobs": 3)" : "", extra, compute);
    };
    const ScenarioResult concurrent = run_json(scenario(""));
    const ScenarioResult jobs = run_json(
        scenario(R"(, "jobs": {"placement": "shared", "with": [{"gpus": 8}, {"gpus": 8}]})"));
    REQUIRE(jobs.jobs.size() == 3);
    CHECK(jobs.fabric_gpus == 8);
    const Time expected = concurrent.outcomes.front().simulation.mean_iteration();
    CHECK(expected > jobs.jobs[0].alone.mean_iteration());  // the NICs are shared three ways
    for (const JobOutcome& job : jobs.jobs) {
      CHECK(job.nodes == std::vector<int>{0, 1, 2, 3});
      CHECK(job.shared.mean_iteration() == expected);
    }
  }
}

TEST_CASE("bad jobs input is refused with the path to fix") {
  const auto error_of = [](const std::string& jobs, const std::string& extra = "") {
    return test::input_error_of([&] {
      run_json(fmt::format(
          R"({{"trace": "four_layers.json", "cluster": {{"gpus": 4, "gpus_per_node": 2}},
              "network": {{"bandwidth_gbps": 10}}, "fidelity": "flow"{}, "jobs": {}}})",
          extra, jobs));
    });
  };
  CHECK(error_of(R"({"with": [{"gpus": 3}]})") ==
        "j.json: jobs.with[0].gpus: expected a multiple of the cluster's 2 GPUs per node (jobs "
        "take whole nodes), found 3");
  CHECK(error_of(R"({"with": []})").starts_with("j.json: jobs.with: expected a non-empty array"));
  nlohmann::json many = nlohmann::json::array();
  for (int j = 0; j < 64; ++j) many.push_back({{"gpus", 2}});
  CHECK(error_of(nlohmann::json{{"with", many}}.dump()) ==
        "j.json: jobs.with: expected at most 63 jobs besides the scenario's own, found 64");
  CHECK(error_of(R"({"with": [{"gpus": 2, "policy": "bytescheduler"}]})")
            .starts_with("j.json: jobs.with[0].policy: expected a policy that sends its messages "
                         "in FIFO order"));
  CHECK(error_of(R"({"with": [{"gpus": 2, "collective": {"algorithm": "parameter_server",
                                                          "servers": 2}}]})")
            .starts_with("j.json: jobs.with[0]: the parameter_server collective puts parameter "
                         "servers on the cluster"));
  CHECK(error_of(R"({"fabric_gpus": 4, "with": [{"gpus": 2}]})") ==
        "j.json: jobs: the jobs need 3 nodes (every job's together), more than the fabric's 2; "
        "give a larger jobs.fabric_gpus or fewer GPUs");
  CHECK(error_of(R"({"placement": "scattered", "with": [{"gpus": 2}]})")
            .starts_with("j.json: jobs.placement: expected one of"));
  CHECK(
      error_of(R"({"with": [{"gpus": 2, "start": 1}]})")
          .starts_with("j.json: jobs.with[0].start: unknown key; allowed here: collective, gpus"));
  CHECK(test::input_error_of([] {
          run_json(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
                       "network": {"bandwidth_gbps": 10}, "jobs": {"with": [{"gpus": 2}]}})");
        }) ==
        "j.json: jobs: needs fidelity \"flow\" (only the flow level shares links between "
        "jobs)");
  CHECK(error_of(R"({"with": [{"gpus": 2, "trace": "missing.json"}]})")
            .starts_with("j.json (jobs.with[0]): trace: cannot open trace file \"missing.json\""));
}
