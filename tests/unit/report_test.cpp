// Tests for scenario/scenario_run.hpp and scenario/report.hpp.
#include <doctest/doctest.h>

#include "sgdsim/scenario/report.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

ScenarioResult run_text(const std::string& text) {
  return run_scenario(read_scenario(jsonio::parse_text(text, "r.json"), SGDSIM_TEST_DATA));
}

const char* two_gpus = R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
  "network": {"bandwidth_gbps": 10, "latency_us": 20},
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

TEST_CASE("outputs carry schema versions and are identical run to run") {
  const ScenarioResult first = run_text(two_gpus);
  const ScenarioResult second = run_text(two_gpus);
  CHECK(summary_table(first) == summary_table(second));
  CHECK(result_json(first).dump() == result_json(second).dump());
  CHECK(result_json(first)["schema_version"] == 1);
  CHECK(result_csv(first).starts_with("# sgdsim-result-csv schema_version=1\n"));
  CHECK(messages_csv(first).find("none,3,3,3,\"L1\",1500,") != std::string::npos);
}
