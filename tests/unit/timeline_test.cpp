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
