// Tests for scenario/scenario_run.hpp and scenario/report.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

ScenarioResult run_text(const std::string& text) {
  return run_scenario(read_scenario(jsonio::parse_text(text, "r.json"), SGDSIM_TEST_DATA));
}

// The GPUs at full speed beside their collectives (compute.overlap_slowdown 1), so that the
// iteration is derived by hand below.
const char* two_gpus = R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
  "network": {"bandwidth_gbps": 10, "latency_us": 20}, "compute": {"overlap_slowdown": 1},
  "communication": {"merge": {"policy": ["none", "all"]}}, "iterations": 2})";

}  // namespace

TEST_CASE("two GPUs on one 10 Gbps ring: the iteration by hand") {
  const ScenarioResult result = run_text(two_gpus);
  REQUIRE(result.outcomes.size() == 2);
  // Ring of 2: hop latency 20 us + 2 * 0.5 us = 21 us, startup 2 * 21 = 42 us; slope
  // 2(2-1)/2 * 800 ps/B = 800 ps/B. SyncEASGD: 5000 B at 5.8 ms -> 42 + 4 us = 46 us,
  // so the iteration is 4 + 5.8 + 0.046 + 0.5 = 10.346 ms.
  const PolicyOutcome& sync = result.outcomes[1];
  CHECK(sync.breakdown.iteration == Time::from_us(10346.0));
  CHECK(sync.breakdown.exposed_communication == Time::from_us(46.0));
  CHECK(sync.bytes_sent_per_gpu == doctest::Approx(5000.0));  // 2(2-1)/2 * 5000
  // Efficiency against one GPU: 10.3 / 10.346.
  CHECK(sync.scaling.efficiency == doctest::Approx(10.3 / 10.346));
  // WFBP: L1 (1500 B, ready 5.8 ms) is last: ends 5.8 + 0.042 + 0.0012 ms, exposing 43.2 us.
  CHECK(result.outcomes[0].breakdown.exposed_communication == Time::from_us(43.2));
}

TEST_CASE("the result JSON states compute's slowdown beside the collectives as run") {
  // two_gpus states 1; left out on a ring it is Lee et al.'s average, 1.189 (scenario_reader).
  CHECK(result_json(run_text(two_gpus))["overlap_slowdown"] == 1.0);
  const ScenarioResult unstated = run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 10}, "iterations": 1})");
  CHECK(result_json(unstated)["overlap_slowdown"] == 1.189);
  CHECK(summary_table(unstated).find("at 1/1.189 of its speed beside collectives, Lee et al.'s "
                                     "average") != std::string::npos);
}

TEST_CASE("outputs carry schema versions and are identical run to run") {
  const ScenarioResult first = run_text(two_gpus);
  const ScenarioResult second = run_text(two_gpus);
  CHECK(summary_table(first) == summary_table(second));
  CHECK(result_json(first).dump() == result_json(second).dump());
  CHECK(result_json(first)["schema_version"] == 2);
  // Events per iteration: forward end, backward end, optimizer end, and a release and a
  // completion per message: WFBP (4 messages) 3 + 8 = 11, SyncEASGD 3 + 2 = 5; two iterations.
  CHECK(result_json(first)["policies"][0]["simulated_events"] == 22);
  CHECK(result_json(first)["policies"][1]["simulated_events"] == 10);
  // A plain header (pandas reads it as the columns); the version is every row's last column.
  CHECK(
      result_csv(first).starts_with("scenario,model,batch_size,gpus,bandwidth_gbps,goodput_gbps,"));
  const std::string csv = result_csv(first);
  CHECK(csv.substr(0, csv.find('\n')).ends_with(",schema_version"));
  // Two policies (WFBP, SyncEASGD): the header and two rows, each ending with version 2.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  for (std::size_t end = csv.find('\n'); end + 1 < csv.size();) {
    const std::size_t next = csv.find('\n', end + 1);
    CHECK(csv.substr(end + 1, next - end - 1).ends_with(",2"));
    end = next;
  }
  CHECK(messages_csv(first).find("none,\"none\",3,3,3,\"L1\",1500,") != std::string::npos);
}

TEST_CASE("CPSGD with period 1 costs a model allreduce after every iteration") {
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 10, "latency_us": 20},
    "communication": {"merge": {"policy": "all"}, "averaging": {"run_iterations": 50,
      "schedules": [{"schedule": "every_iteration"}, {"schedule": "constant", "period": 1},
                    {"schedule": "constant", "period": 5, "iterations_to_target": 12}]}}})");
  REQUIRE(result.schedules.size() == 3);
  // Model averaging: compute 10.3 ms + allreduce of the 5000-byte model (46 us, as SyncEASGD
  // above) = 10.346 ms per iteration, the same as SyncEASGD's iteration: 50 of them = 0.5173 s.
  const ScheduleOutcome& p1 = result.schedules[1];
  CHECK(p1.rounds.size() == 50);
  CHECK(p1.averaging_iteration == Time::from_us(10346.0));
  CHECK(p1.total == result.schedules[0].total);
  CHECK(p1.total == Time::from_us(50 * 10346.0));
  CHECK(p1.speedup == doctest::Approx(1.0));
  // Period 5: 10 rounds; 40 local iterations of 10.3 ms + 10 of 10.346 ms = 515.46 ms.
  const ScheduleOutcome& p5 = result.schedules[2];
  CHECK(p5.rounds.size() == 10);
  CHECK(p5.total == Time::from_us(40 * 10300.0 + 10 * 10346.0));
  CHECK(p5.speedup == doctest::Approx(517.3 / 515.46));
  // Bytes: 10 model allreduces of 5000 B, each sending 2(2-1)/2 * 5000 = 5000 B.
  CHECK(p5.bytes_sent_per_gpu() == doctest::Approx(50'000.0));
  // Time to target after 12 iterations: rounds at 5 and 10 -> 10 * 10.3 + 2 * 10.346 ms.
  CHECK(*p5.time_to_target == Time::from_us(10 * 10300.0 + 2 * 10346.0));
}

TEST_CASE("compression applies per merged message and is reported beside the policy") {
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 10, "latency_us": 20},
    "communication": {"merge": {"policy": "all"}, "compression": [{"name": "none"}, {"name": "fp16"}]}})");
  REQUIRE(result.outcomes.size() == 2);
  CHECK(outcome_label(result.outcomes[1]) == "SyncEASGD + fp16");
  // One 5000-byte message becomes 2500 bytes: ring 42 us + 2500 * 0.8 ns = 44 us; encode and
  // decode of 1250 elements: 5 us + 8 B * 1250 / 500 GB/s = 5.02 us each. 54.04 us in all.
  CHECK(result.outcomes[1].breakdown.communication == Time::from_us(54.04));
  CHECK(result.outcomes[1].bytes_sent_per_gpu == doctest::Approx(2500.0));
  CHECK(result.outcomes[1].error_feedback == Bytes(0));  // fp16 is not a biased compressor
}

TEST_CASE("iterations to target turn a slower-converging compressor into a time to target") {
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 10, "latency_us": 20},
    "communication": {"merge": {"policy": "all"}, "compression": [
      {"name": "none", "iterations_to_target": 1000},
      {"name": "fp16", "iterations_to_target": 1200}]}})");
  // SyncEASGD 10.346 ms per iteration (above) * 1000 = 10.346 s; with fp16 the iteration is
  // 4 + 5.8 + 0.05404 + 0.5 = 10.35404 ms, * 1200 = 12.424848 s: fp16 is faster per iteration
  // but slower to the target.
  CHECK(*result.outcomes[0].time_to_target == Time::from_ms(10346.0));
  CHECK(*result.outcomes[1].time_to_target == Time::from_us(1200 * 10354.04));
  CHECK(summary_table(result).find("time to target with SyncEASGD + fp16: 12.425 s") !=
        std::string::npos);
}

TEST_CASE("the result JSON carries the compressor's convergence factors for the whole model") {
  const ScenarioResult result = run_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
    "network": {"bandwidth_gbps": 10}, "communication": {"merge": {"policy": "all"},
    "compression": [{"name": "topk", "density": 0.1}, {"name": "randk", "density": 0.1}]}})");
  const auto json = result_json(result);
  // d = 1250 parameters, k = 125: top-k delta = d/k = 10, rand-k omega = d/k - 1 = 9.
  CHECK(json["policies"][0]["compressor_delta"] == 10.0);
  CHECK(json["policies"][0]["compressor_omega"].is_null());
  CHECK(json["policies"][1]["compressor_omega"] == 9.0);
  CHECK(json["policies"][0]["error_feedback_bytes"] == 5000);  // biased: one fp32 per parameter
}
