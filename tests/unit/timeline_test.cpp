// Tests for scenario/timeline.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/timeline.hpp"
#include "test_support.hpp"

using namespace sgdsim;

TEST_CASE("a timeline has per-layer compute spans and named messages on capped GPU tracks") {
  const ScenarioResult result = run_scenario(
      read_scenario(jsonio::parse_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 8},
        "network": {"bandwidth_gbps": 10}, "communication": {"merge": {"policy": ["none", "all"]}},
        "iterations": 5})",
                                       "t.json"),
                    SGDSIM_TEST_DATA));
  const auto timeline = timeline_json(result, TimelineOptions{2, 3});
  int forward = 0, backward = 0, messages = 0, summaries = 0;
  std::string first_message;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const std::string category = event["cat"];
    forward += category == "forward";
    backward += category == "backward";
    summaries += category == "summary";
    if (category == "communication") {
      if (messages++ == 0) first_message = event["name"];
    }
  }
  // 2 policies x 2 GPUs x 3 iterations x 4 layers forward (and backward).
  CHECK(forward == 48);
  CHECK(backward == 48);
  // Messages: WFBP 4 + SyncEASGD 1 per iteration, x 2 GPUs x 3 iterations = 30.
  CHECK(messages == 30);
  CHECK(summaries == 6);  // GPUs 2..7 summarised: one span per policy and iteration
  CHECK(first_message == "L4 0.00 MB");
  CHECK(timeline["otherData"]["format"] == "sgdsim-timeline");
}

TEST_CASE("a timeline places backward's layers where compute slowed beside the messages") {
  // The four-layer trace's WFBP on two GPUs with t(S) = 0.5 ms + 1 us/byte (the
  // iteration_simulation_test's hand collective, as a measured fit) and compute at half speed
  // beside the messages: L4 ready at 1.0 ms, L3 at 3.75, L2 at 5.75, L1 at 8.3 (derived
  // there), so backward's layers take 1.0, 2.75, 2.0 and 2.55 ms of wall clock.
  const ScenarioResult result = run_scenario(
      read_scenario(jsonio::parse_text(R"({"trace": "four_layers.json", "cluster": {"gpus": 2},
        "network": {"measured_allreduce": [{"gpus": 2, "alpha_us": 500, "beta_ns_per_byte": 1000}]},
        "communication": {"merge": {"policy": "none"}}, "compute": {"overlap_slowdown": 2},
        "iterations": 1})",
                                       "t.json"),
                    SGDSIM_TEST_DATA));
  const auto timeline = timeline_json(result, TimelineOptions{1, 1});
  std::vector<double> durations;
  double last_end = 0.0;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["ph"] != "X" || event["cat"] != "backward") continue;
    durations.push_back(event["dur"].get<double>());
    last_end = event["ts"].get<double>() + event["dur"].get<double>();
  }
  REQUIRE(durations.size() == 4);
  CHECK(durations[0] == doctest::Approx(1000.0));
  CHECK(durations[1] == doctest::Approx(2750.0));
  CHECK(durations[2] == doctest::Approx(2000.0));
  CHECK(durations[3] == doctest::Approx(2550.0));
  // Backward began after the 4 ms forward and ends with L1 at 4 + 8.3 ms.
  CHECK(last_end == doctest::Approx(12300.0));
}
