// Tests for scenario/scenario_run.hpp: compute's slowdown beside the collectives' kernels, as
// each policy's run works it out.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "printers.hpp"
#include "test_support.hpp"

#include "sgdsim/collectives/byteps.hpp"
#include "sgdsim/collectives/call_overhead.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"

using namespace sgdsim;

namespace {

// BytePS on test::byteps_cluster(), 1 MB partitions summed at 800 Gbit/s:
// parameter_server_test.cpp's, whose times it derives by hand (a 1 MB message 371 us, 21 us of it
// the NCCL stream's; 4 MB 531 us, 84 of them).
BytePs byteps_of_1mb_partitions() {
  return BytePs(test::full_context(test::byteps_cluster()),
                BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)});
}

ScenarioConfig scenario_from_text(const std::string& text) {
  return read_scenario(jsonio::parse_text(text, "s.json"), SGDSIM_TEST_DATA);
}

}  // namespace

TEST_CASE("the kernels' share of a stream's busy time, and compute's slowdown over it") {
  // A 1 MB message takes 371 us, 21 us of it NCCL's kernels. Three of them, the second queued
  // over the first's last 71 us: busy 0-671 and 1,000-1,371 us, 1,042 us, with 63 us of
  // kernels: 63 / 1,042.
  const BytePs collective = byteps_of_1mb_partitions();
  IterationTimeline iteration;
  for (const double start : {0.0, 300.0, 1000.0}) {
    iteration.messages.push_back({{},
                                  Bytes(1'000'000),
                                  Time::from_us(start),
                                  Time::from_us(start),
                                  Time::from_us(start + 371.0)});
  }
  CHECK(kernel_share_of(collective, iteration) == doctest::Approx(63.0 / 1042.0));
  // A profile's: its largest message alone's, 84 / 531 for 4 MB.
  BackwardProfile profile;
  profile.layers = {{"small", Bytes(1'000'000), Time::zero()},
                    {"large", Bytes(4'000'000), Time::zero()}};
  CHECK(kernel_share_of(collective, profile) == doctest::Approx(84.0 / 531.0));
  // Compute at 1 / 1.189 half the time and at full speed the rest: 1 / (0.5 + 0.5 / 1.189) =
  // 1.08634; all of it, Lee et al.'s 1.189 itself; none, full speed.
  CHECK(overlap_slowdown_of(1.189, 0.5) == doctest::Approx(1.0863408));
  CHECK(overlap_slowdown_of(1.189, 1.0) == doctest::Approx(1.189));
  CHECK(overlap_slowdown_of(1.189, 0.0) == 1.0);
  // A framework's cost per call counts as its collective's, kernels in the same share: 100 us
  // more on the 4 MB message, 84 x 631 / 531 = 99.819209 us of kernels.
  const CallOverhead called(std::make_shared<BytePs>(collective), Time::from_us(100.0));
  CHECK(called.kernel_time(Bytes(4'000'000)) == Time::from_ps(99'819'209));
}

TEST_CASE("compute slows beside BytePS as long as NCCL's kernels run its stages") {
  // BERT-base (an estimated RTX 2080 Ti trace) on GeForce boxes of 4 GPUs, 100 Gb/s RDMA, WFBP.
  const auto run = [](int gpus, const char* compute = "{}") {
    return run_scenario(scenario_from_text(fmt::format(
        R"({{"trace": "../../traces/bert_base_b32_s128_rtx2080ti_estimated.json",
        "cluster": {{"gpus": {}, "node": "geforce_pcie3_4gpu"}},
        "network": {{"bandwidth_gbps": 100, "transport": "rdma"}},
        "communication": {{"collective": {{"algorithm": "byteps", "servers": {}}},
          "merge": {{"policy": "none"}}}}, "compute": {}, "iterations": 3}})",
        gpus, gpus / 4, compute)));
  };
  // On one machine BytePS is NCCL's reduce-scatters and allgathers alone: all kernels.
  const ScenarioResult one = run(4);
  CHECK(one.outcomes.front().kernel_share == 1.0);
  CHECK(one.outcomes.front().overlap_slowdown == 1.189);
  // Across two, its copies to host memory, the network and the servers' sums are not kernels:
  // Lee et al.'s slowdown over the share of the stream's busy time its NCCL stages take,
  // measured on a run's last iteration and the run made again at it, so that the share of the
  // final run is within 1% of the one it ran at.
  const ScenarioResult two = run(8);
  const PolicyOutcome& outcome = two.outcomes.front();
  CHECK(outcome.kernel_share > 0.0);
  CHECK(outcome.kernel_share < 1.0);
  CHECK(outcome.overlap_slowdown ==
        doctest::Approx(overlap_slowdown_of(1.189, outcome.kernel_share)));
  const auto collective = make_collective(two.config);
  CHECK(kernel_share_of(*collective, outcome.simulation.last) ==
        doctest::Approx(outcome.kernel_share).epsilon(0.01));
  // So a second machine does not make an iteration shorter. When compute ran at full speed
  // beside BytePS across machines, and at 1 / 1.189 on one, 8 GPUs took 555.5 ms against 4
  // GPUs' 578.5.
  CHECK(outcome.breakdown.iteration >= one.outcomes.front().breakdown.iteration);
  // compute.overlap_slowdown is the slowdown beside kernels, stated or not: stating the default
  // runs the same; stating Lee et al.'s maximum weighs it alike.
  const PolicyOutcome stated = run(8, R"({"overlap_slowdown": 1.189})").outcomes.front();
  CHECK(stated.breakdown.iteration == outcome.breakdown.iteration);
  const PolicyOutcome most = run(8, R"({"overlap_slowdown": 1.4})").outcomes.front();
  CHECK(most.kernel_share > 0.0);
  CHECK(most.overlap_slowdown == doctest::Approx(overlap_slowdown_of(1.4, most.kernel_share)));
  CHECK(most.overlap_slowdown < 1.4);
}
