// Sharded data parallelism: reduce-scatter and allgather in every family that has them, at the
// closed form and the flow level; the strategies' schedules worked out by hand on a two-unit
// model; memory against the ZeRO paper's own figure; units as FSDP wraps them; bad input.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "approx.hpp"
#include "printers.hpp"
#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/halving_doubling.hpp"
#include "sgdsim/collectives/hierarchical.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/scenario/scenario_run.hpp"
#include "sgdsim/scenario/timeline.hpp"
#include "sgdsim/training/sharding.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

// Reduce-scatter plus allgather is the allreduce, and the flow level prices each half within
// 0.5% of its closed form.
template <class Make>
void check_halves(const CollectiveContext& context, Make make, Bytes buffer) {
  auto closed = make(context);
  const Shards& shards = *closed->shards();
  const Time reduce_scatter = shards.shard_time(ShardOp::reduce_scatter, buffer);
  const Time allgather = shards.shard_time(ShardOp::allgather, buffer);
  INFO(fmt::format("{} on {} GPUs", closed->name(), closed->ranks()));
  CHECK(reduce_scatter + allgather == closed->time(buffer));
  CHECK(shards.shard_bytes_sent_per_rank(ShardOp::reduce_scatter, buffer) * 2 ==
        doctest::Approx(closed->bytes_sent_per_rank(buffer)));
  const FlowCollective flow(std::move(closed), context.topology, 1);
  for (const ShardOp op : {ShardOp::reduce_scatter, ShardOp::allgather}) {
    const Time expected = op == ShardOp::reduce_scatter ? reduce_scatter : allgather;
    CHECK(flow.shards()->shard_time(op, buffer).seconds() ==
          test::relative(expected.seconds(), 0.005));
  }
}

// Reduce-scatter and allgather cost 10 ns per byte (1000 bytes: 10 us), an allreduce as much.
class TenNanosecondsPerByte final : public Collective, public Shards {
 public:
  explicit TenNanosecondsPerByte(int ranks) : ranks_(ranks) {}
  std::string name() const override { return "test"; }
  int ranks() const override { return ranks_; }
  Time time(Bytes message) const override { return Time::from_ns(10.0 * message.count()); }
  LinearCost linear_cost() const override { return {Time::zero(), 10'000.0}; }
  double bytes_sent_per_rank(Bytes message) const override {
    return static_cast<double>(message.count());
  }
  Requantisation requantisation() const override { return {1, 1.0}; }
  const Shards* shards() const override { return this; }
  Time shard_time(ShardOp, Bytes buffer) const override { return time(buffer); }
  double shard_bytes_sent_per_rank(ShardOp, Bytes buffer) const override {
    return static_cast<double>(buffer.count());
  }

 private:
  int ranks_;
};

// Two units of 1000 one-byte parameters, no root: forward 20 us and backward 40 us each, no
// optimizer time.
ShardedModel two_units() {
  ShardedModel model;
  model.units = {{"a", 1000}, {"b", 1000}};
  model.segments = {{0, Time::from_us(20.0), Time::from_us(40.0)},
                    {1, Time::from_us(20.0), Time::from_us(40.0)}};
  return model;
}

ShardingSettings settings_for(ShardingStrategy strategy, int gpus = 4, int group = 4) {
  ShardingSettings settings;
  settings.strategy = strategy;
  settings.gpus = gpus;
  settings.group_gpus = group;
  settings.parameter_bytes = 1;
  return settings;
}

Time exposed(const ShardingResult& result, ShardPhase phase) {
  return result.exposed[static_cast<std::size_t>(phase)];
}

}  // namespace

TEST_CASE("reduce-scatter and allgather are the halves of each family's allreduce") {
  // Ring: one pass each, t = A + (N-1)/N S/B; 16 single-GPU nodes at 25 Gbit/s with 8 us links
  // (10 us a hop with the GPU links' 2 us): A = 15 x 10 = 150 us, and 15/16 of 40 MB at
  // 3.125 GB/s is 12 ms.
  const Bytes buffer(40'000'000);
  const auto flat = test::full_context(test::cluster(16, 1));
  const RingAllreduce ring = RingAllreduce::on(flat);
  CHECK(ring.shard_time(ShardOp::allgather, buffer) == Time::from_us(150.0 + 12'000.0));
  CHECK(ring.shard_bytes_sent_per_rank(ShardOp::allgather, buffer) == 37'500'000.0);
  const auto make_ring = [](const CollectiveContext& c) {
    return std::make_unique<RingAllreduce>(RingAllreduce::on(c));
  };
  check_halves(flat, make_ring, buffer);
  check_halves(test::full_context(test::cluster(16, 4)), make_ring, buffer);
  check_halves(test::full_context(test::cluster(8, 2), 300.0), make_ring, buffer);
  const auto make_hd = [](const CollectiveContext& c) {
    return std::make_unique<HalvingDoubling>(c);
  };
  check_halves(test::full_context(test::cluster(16, 1), 100.0), make_hd, buffer);
  check_halves(test::full_context(test::cluster(8, 2, true)), make_hd, buffer);
  // Hierarchical allreduce is defined as its two halves, so the sum above holds for it by
  // construction; one half is checked by hand instead. 4 nodes of 4 GPUs, one NIC per node:
  // inside, 3 steps of 2 us + 10 MB at 25 GB/s (402 us each); across, one pass of 3 node
  // crossings at 10 us and 3 steps of 2.5 MB, four rings sharing the 3.125 GB/s NIC (3.2 ms
  // each): 1,206 + 30 + 9,600 = 10,836 us.
  const Hierarchical hierarchical(test::full_context(test::cluster(16, 4)));
  CHECK(hierarchical.shard_time(ShardOp::reduce_scatter, buffer) == Time::from_us(10'836.0));
  const auto make_hierarchical = [](const CollectiveContext& c) {
    return std::make_unique<Hierarchical>(c);
  };
  check_halves(test::full_context(test::cluster(16, 4), 100.0), make_hierarchical, buffer);
  check_halves(test::full_context(test::cluster(16, 4, true)), make_hierarchical, buffer);
}

TEST_CASE("FULL_SHARD on two units, worked out by hand") {
  // Prefetch 1 each way, at most 2 units gathered. Every collective of a unit takes 10 us.
  //   forward:  AG(a) 0-10 | F(a) 10-30, AG(b) issued at 10: 10-20 | F(b) 30-50
  //   backward: AG(b) issued at 50: 50-60 | B(b) 60-100, AG(a) issued at 60: 60-70
  //             RS(b) 100-110 | B(a) 100-140 | RS(a) 140-150 | step 150
  // 150 us: 120 of compute, 10 waiting for each of AG(a), AG(b) again and RS(a).
  const TenNanosecondsPerByte collective(4);
  const ShardingResult result =
      simulate_sharding(two_units(), settings_for(ShardingStrategy::full_shard),
                        ShardingCollectives{&collective, nullptr}, 3);
  CHECK(result.mean_iteration() == Time::from_us(150.0));
  CHECK(exposed(result, ShardPhase::forward_allgather) == Time::from_us(10.0));
  CHECK(exposed(result, ShardPhase::backward_allgather) == Time::from_us(10.0));
  CHECK(exposed(result, ShardPhase::reduce_scatter) == Time::from_us(10.0));
  CHECK(result.busy[static_cast<std::size_t>(ShardPhase::forward_allgather)] ==
        Time::from_us(20.0));
  REQUIRE(result.last.operations.size() == 6);
  CHECK(result.last.operations[3].phase == ShardPhase::backward_allgather);  // AG(a), prefetched
  CHECK(result.last.operations[3].start - result.last.start == Time::from_us(60.0));
  // Without prefetch each allgather is issued when its unit is needed: AG(a) 0-10, F(a) 10-30,
  // AG(b) 30-40, F(b) 40-60, AG(b) 60-70, B(b) 70-110, RS(b) 110-120, AG(a) behind it 120-130,
  // B(a) 130-170, RS(a) 170-180: 180 us.
  ShardingSettings none = settings_for(ShardingStrategy::full_shard);
  none.forward_prefetch = 0;
  none.backward_prefetch = 0;
  CHECK(simulate_sharding(two_units(), none, ShardingCollectives{&collective, nullptr}, 1)
            .mean_iteration() == Time::from_us(180.0));
}

TEST_CASE("FULL_SHARD with compute slowed beside its collectives, worked out by hand") {
  // Slowdown 2: compute runs at half speed while a collective holds the stream. From the
  // full-speed schedule above, three computes overlap a collective for 10 us each and lose 5 us:
  //   forward:  AG(a) 0-10 | F(a) 10-35 (10-20 beside AG(b): 5 us of its work) | F(b) 35-55
  //   backward: AG(b) 55-65 | B(b) 65-110 beside AG(a) 65-75 | RS(b) 110-120 | B(a) 110-155
  //             | RS(a) 155-165
  // 165 us; compute waits as long as at full speed (10 us for each of AG(a), AG(b), RS(a)).
  const TenNanosecondsPerByte collective(4);
  ShardingSettings slowed = settings_for(ShardingStrategy::full_shard);
  slowed.overlap_slowdown = 2.0;
  const ShardingCollectives collectives{&collective, nullptr};
  const ShardingResult result = simulate_sharding(two_units(), slowed, collectives, 3);
  CHECK(result.mean_iteration() == Time::from_us(165.0));
  CHECK(exposed(result, ShardPhase::forward_allgather) == Time::from_us(10.0));
  CHECK(exposed(result, ShardPhase::backward_allgather) == Time::from_us(10.0));
  CHECK(exposed(result, ShardPhase::reduce_scatter) == Time::from_us(10.0));
  REQUIRE(result.last.compute.size() == 5);  // F(a), F(b), B(b), B(a), the step
  CHECK(result.last.compute[0].end - result.last.start == Time::from_us(35.0));
  CHECK(result.last.compute[2].end - result.last.start == Time::from_us(110.0));
  // per_rank without heterogeneity agrees; rank 3 at half speed: F(a) 10-55 (10-20 beside
  // AG(b)), F(b) 55-95, AG(b) 95-105, B(b) 105-190 beside AG(a) 105-115, RS(b) 190-200, B(a)
  // 190-275, RS(a) 275-285: 285 us (270 at full speed).
  const auto even = [](std::vector<double>& factor) { factor.assign(4, 1.0); };
  CHECK(simulate_sharding(two_units(), slowed, collectives, 3, even).mean_iteration() ==
        result.mean_iteration());
  const auto straggler = [](std::vector<double>& factor) { factor = {1.0, 1.0, 1.0, 2.0}; };
  CHECK(simulate_sharding(two_units(), slowed, collectives, 1, straggler).mean_iteration() ==
        Time::from_us(285.0));
  // ZeRO-2 (one 1500-element bucket): its only collectives follow backward, so nothing slows.
  ShardingSettings zero = settings_for(ShardingStrategy::zero2);
  zero.reduce_bucket_elements = 1500;
  zero.overlap_slowdown = 2.0;
  CHECK(simulate_sharding(two_units(), zero, collectives, 2).mean_iteration() ==
        Time::from_us(160.0));
}

TEST_CASE("SHARD_GRAD_OP, HYBRID_SHARD and ZeRO-2 on two units, worked out by hand") {
  const TenNanosecondsPerByte group(4);
  // SHARD_GRAD_OP keeps the parameters from forward: backward B(b) 50-90, RS(b) 90-100, B(a)
  // 90-130, RS(a) 130-140: 140 us.
  CHECK(simulate_sharding(two_units(), settings_for(ShardingStrategy::shard_grad_op),
                          ShardingCollectives{&group, nullptr}, 2)
            .mean_iteration() == Time::from_us(140.0));
  // HYBRID_SHARD, 2 groups of 2 of 4 GPUs: as FULL_SHARD, and each RS followed by the allreduce
  // of the unit's shard, 500 bytes (5 us): RS(b) 100-110, AR(b) 110-115, B(a) 100-140, RS(a)
  // 140-150, AR(a) 150-155: 155 us.
  const TenNanosecondsPerByte replicas(2);
  const ShardingResult hybrid =
      simulate_sharding(two_units(), settings_for(ShardingStrategy::hybrid_shard, 4, 2),
                        ShardingCollectives{&group, &replicas}, 2);
  CHECK(hybrid.mean_iteration() == Time::from_us(155.0));
  CHECK(exposed(hybrid, ShardPhase::replica_allreduce) == Time::from_us(5.0));
  CHECK(hybrid.bytes_sent[static_cast<std::size_t>(ShardPhase::replica_allreduce)] == 1000.0);
  // ZeRO-2 with buckets of 1500 elements: forward 0-40, B(b) 40-80 (1000 in the bucket), B(a)
  // 80-120 fills it (2000): RS of 2000 bytes 120-140; then the allgather of all 2000 updated
  // parameters, 140-160.
  ShardingSettings zero = settings_for(ShardingStrategy::zero2);
  zero.reduce_bucket_elements = 1500;
  const ShardingResult zero2 =
      simulate_sharding(two_units(), zero, ShardingCollectives{&group, nullptr}, 2);
  CHECK(zero2.mean_iteration() == Time::from_us(160.0));
  CHECK(exposed(zero2, ShardPhase::step_allgather) == Time::from_us(20.0));
}

TEST_CASE("gradient accumulation: every pass gathers, and reduces as each framework does") {
  const TenNanosecondsPerByte collective(4);
  const ShardingCollectives collectives{&collective, nullptr};
  // FULL_SHARD, 2 passes, reducing every pass: the first as the single pass above up to RS(a)
  // 140-150; the second's AG(a) is issued at 140 and waits for RS(a): 150-160, F(a) 160-180,
  // AG(b) 160-170, F(b) 180-200, AG(b) 200-210, B(b) 210-250, AG(a) 210-220, RS(b) 250-260,
  // B(a) 250-290, RS(a) 290-300: 300 us, four reduce-scatters of 10 us.
  ShardingSettings every = settings_for(ShardingStrategy::full_shard);
  every.passes = 2;
  const ShardingResult synced = simulate_sharding(two_units(), every, collectives, 2);
  CHECK(synced.mean_iteration() == Time::from_us(300.0));
  CHECK(synced.busy[static_cast<std::size_t>(ShardPhase::reduce_scatter)] == Time::from_us(40.0));
  // no_sync: the first pass reduces nothing and ends with B(a) at 140; the second runs as the
  // single pass shifted by 140: 290 us, two reduce-scatters; whole gradients are kept (2000
  // bytes instead of 500).
  ShardingSettings last = every;
  last.no_sync = true;
  const ShardingResult unsynced = simulate_sharding(two_units(), last, collectives, 2);
  CHECK(unsynced.mean_iteration() == Time::from_us(290.0));
  CHECK(unsynced.busy[static_cast<std::size_t>(ShardPhase::reduce_scatter)] == Time::from_us(20.0));
  CHECK(sharding_memory(two_units(), last).gradients == 2000.0);
  CHECK(sharding_memory(two_units(), every).gradients == 500.0);
  // ZeRO with a 1500-element bucket, 2 passes: forward 0-40, backward 40-120; second pass
  // 120-240; the step's allgather 260-280 after the last RS (240-260): 280 us either way, but
  // ZeRO-2 reduce-scatters both passes (4000 bytes) and ZeRO-1 only the last (2000).
  for (const auto& [strategy, bytes] :
       {std::pair{ShardingStrategy::zero1, 2000.0}, std::pair{ShardingStrategy::zero2, 4000.0}}) {
    ShardingSettings zero = settings_for(strategy);
    zero.reduce_bucket_elements = 1500;
    zero.passes = 2;
    const ShardingResult result = simulate_sharding(two_units(), zero, collectives, 2);
    CHECK(result.mean_iteration() == Time::from_us(280.0));
    CHECK(result.bytes_sent[static_cast<std::size_t>(ShardPhase::reduce_scatter)] == bytes);
  }
}

TEST_CASE("per_rank sharding without heterogeneity equals analytic; a straggler holds all back") {
  const TenNanosecondsPerByte collective(4);
  const ShardingSettings settings = settings_for(ShardingStrategy::full_shard);
  const ShardingCollectives collectives{&collective, nullptr};
  const ShardingResult analytic = simulate_sharding(two_units(), settings, collectives, 3);
  const auto even = [](std::vector<double>& factor) { factor.assign(4, 1.0); };
  const ShardingResult per_rank = simulate_sharding(two_units(), settings, collectives, 3, even);
  CHECK(per_rank.mean_iteration() == analytic.mean_iteration());
  CHECK(per_rank.exposed == analytic.exposed);
  // Rank 3 twice as slow: its compute is 240 us a step, and every collective waits for it. By
  // hand: AG(a) 0-10, F(a) 10-50 on rank 3, AG(b) issued at 10 (10-20), F(b) 50-90, AG(b) again
  // 90-100, B(b) 100-180 with AG(a) 100-110, RS(b) 180-190, B(a) 180-260, RS(a) 260-270: 270 us.
  const auto straggler = [](std::vector<double>& factor) { factor = {1.0, 1.0, 1.0, 2.0}; };
  CHECK(simulate_sharding(two_units(), settings, collectives, 1, straggler).mean_iteration() ==
        Time::from_us(270.0));
}

TEST_CASE("memory per GPU is the ZeRO paper's Figure 1") {
  // Rajbhandari et al. 2020, Figure 1: Psi = 7.5 B, N = 64, K = 12, fp16 parameters and
  // gradients: baseline (2 + 2 + K) Psi = 120 GB; P_os 2 Psi + 2 Psi + K Psi / N = 31.4 GB;
  // P_os+g 2 Psi + (2 + K) Psi / N = 16.6 GB; P_os+g+p (2 + 2 + K) Psi / N = 1.9 GB.
  ShardedModel model;
  model.units = {{"all", 7'500'000'000}};
  ShardingSettings settings = settings_for(ShardingStrategy::zero1, 64, 64);
  settings.parameter_bytes = 2;
  settings.optimizer_state_bytes = 12.0;
  CHECK(replicated_memory(model, settings).at_rest() == doctest::Approx(120e9));
  CHECK(sharding_memory(model, settings).at_rest() == doctest::Approx(31.40625e9));
  settings.strategy = ShardingStrategy::zero2;
  CHECK(sharding_memory(model, settings).at_rest() == doctest::Approx(16.640625e9));
  settings.strategy = ShardingStrategy::full_shard;
  const ShardMemory full = sharding_memory(model, settings);
  CHECK(full.at_rest() == doctest::Approx(1.875e9));
  // At the peak the one unit is gathered whole (63/64 of it on top of the shard) with its full
  // gradient: 1.875 + 2 x 7.5 x 63/64 + 2 x 7.5 = 31.64 GB.
  CHECK(full.peak == doctest::Approx(1.875e9 + 15e9 * 63.0 / 64.0 + 15e9));
}

TEST_CASE("units are found as FSDP wraps a model: one per numbered block, the rest the root") {
  Workload workload;
  const auto layer = [](std::string name, std::int64_t elements) {
    Layer l;
    l.name = std::move(name);
    l.forward = Time::from_us(1.0);
    l.backward = Time::from_us(2.0);
    if (elements > 0) l.gradients.push_back({l.name + ".weight", elements, std::nullopt});
    return l;
  };
  workload.layers = {layer("embed", 100),  layer("h.0.attn", 10), layer("h.0.mlp", 20),
                     layer("h.0.drop", 0), layer("h.1.attn", 30), layer("head", 5)};
  const ShardedModel model = shard_units(workload, "blocks", {}, "s.json: units");
  REQUIRE(model.units.size() == 2);
  CHECK(model.units[0].name == "h.0");
  CHECK(model.units[0].elements == 30);
  CHECK(model.units[1].elements == 30);
  CHECK(model.root_elements == 105);
  // Segments: embed (root), h.0 with its dropout, h.1, head (root).
  REQUIRE(model.segments.size() == 4);
  CHECK(model.segments[1].forward == Time::from_us(3.0));
  CHECK(model.segments[3].unit == -1);
  // Given prefixes; one that names no layer, and a unit cut in two, are errors.
  CHECK(shard_units(workload, "blocks", {"h"}, "s.json: units").units[0].elements == 60);
  CHECK(test::input_error_of([&] { shard_units(workload, "blocks", {"h.2"}, "s.json: units"); }) ==
        "s.json: units: no layer with parameters is named \"h.2\" or \"h.2.*\"");
  // "repeats", for names by operator (a profiler import): two conv/bn pairs, an embedding, three
  // copies of (layer norm 10, matmul 40, matmul 20) and a final norm. The longest periodic run
  // is the three copies from layer_norm_0 (period 3; the run from addmm_0, ending at the final
  // norm, covers as many layers and starts later): units of 70. Before it, the pairs repeat
  // (period 2): units of 11. The embedding and the final norm are the root.
  Workload ops;
  ops.layers = {layer("convolution_0", 9), layer("batch_norm_0", 2), layer("convolution_1", 9),
                layer("batch_norm_1", 2), layer("embedding_0", 100)};
  for (int copy = 0; copy < 3; ++copy) {
    ops.layers.push_back(layer(fmt::format("layer_norm_{}", copy), 10));
    ops.layers.push_back(layer(fmt::format("addmm_{}", 2 * copy), 40));
    ops.layers.push_back(layer("gelu", 0));
    ops.layers.push_back(layer(fmt::format("addmm_{}", 2 * copy + 1), 20));
  }
  ops.layers.push_back(layer("layer_norm_3", 10));
  const ShardedModel repeats = shard_units(ops, "repeats", {}, "s.json: units");
  REQUIRE(repeats.units.size() == 5);
  CHECK(repeats.units[0].name == "convolution_0");
  CHECK(repeats.units[0].elements == 11);
  CHECK(repeats.units[1].elements == 11);
  CHECK(repeats.units[2].name == "layer_norm_0");
  CHECK(repeats.units[2].elements == 70);
  CHECK(repeats.units[4].name == "layer_norm_2");
  CHECK(repeats.root_elements == 110);
  // Segments: two pairs, the embedding (root), three blocks with their GELUs, the final norm.
  CHECK(repeats.segments.size() == 7);
  CHECK(repeats.segments[3].forward == Time::from_us(4.0));
  CHECK(test::input_error_of([&] {
          shard_units(ops, "blocks", {}, "s.json: units");
        }).find("or \"repeats\" for a trace whose layers are named by operator") !=
        std::string::npos);
  workload.layers.push_back(layer("h.0.late", 1));
  CHECK(test::input_error_of([&] {
          shard_units(workload, "blocks", {}, "s.json: units");
        }).starts_with("s.json: units: unit \"h.0\" has layers apart"));
}

TEST_CASE("a scenario's sharding section runs every strategy at three fidelities that agree") {
  // The four-layer trace (tests/data) has no numbered blocks: its layers are the units.
  nlohmann::json scenario = nlohmann::json::parse(
      R"({"trace": "four_layers.json", "cluster": {"gpus": 16, "gpus_per_node": 4},
          "network": {"bandwidth_gbps": 10}, "iterations": 3,
          "communication": {"merge": {"policy": "bucket"},
                            "sharding": {"units": "layers", "group_gpus": 4}}})");
  const ScenarioResult analytic =
      run_scenario(read_scenario(jsonio::Document{"a.json", scenario}, SGDSIM_TEST_DATA));
  REQUIRE(analytic.sharding.size() == sharding_registry().entries().size());
  scenario["fidelity"] = "per_rank";
  const ScenarioResult per_rank =
      run_scenario(read_scenario(jsonio::Document{"p.json", scenario}, SGDSIM_TEST_DATA));
  scenario["fidelity"] = "flow";
  const ScenarioResult flow =
      run_scenario(read_scenario(jsonio::Document{"f.json", scenario}, SGDSIM_TEST_DATA));
  for (std::size_t s = 0; s < analytic.sharding.size(); ++s) {
    const Time a = analytic.sharding[s].simulation.mean_iteration();
    INFO(strategy_info(analytic.sharding[s].strategy).name);
    CHECK(per_rank.sharding[s].simulation.mean_iteration() == a);
    CHECK(flow.sharding[s].simulation.mean_iteration().seconds() ==
          test::relative(a.seconds(), 0.005));
  }
  // The timeline: after the policy's process, one per strategy, its collectives on the tracks
  // of their phases (tid 1 + phase) and its compute on tid 0.
  const nlohmann::ordered_json timeline = timeline_json(analytic, TimelineOptions{});
  const int full_shard_pid = static_cast<int>(analytic.outcomes.size()) + 3;  // the third
  const ShardingResult& full = analytic.sharding[2].simulation;
  std::size_t collectives = 0;
  std::size_t computes = 0;
  for (const auto& event : timeline["traceEvents"]) {
    if (event["pid"] != full_shard_pid || event["ph"] != "X") continue;
    (event["tid"] == 0 ? computes : collectives) += 1;
  }
  CHECK(collectives == full.last.operations.size());
  CHECK(computes == full.last.compute.size());
  // 4 layers of 1000, 2000, 500 and 1500 bytes of fp32: 1250 parameters; Adam's two moments.
  CHECK(analytic.sharded_model.elements() == 1250);
  CHECK(analytic.sharding_settings.optimizer_state_bytes == 8.0);
}

TEST_CASE("HYBRID_SHARD groups inside a node: the replicas' ring holds GPUs of every node") {
  // 16 GPUs, 4 a node, groups of 2: each replica ring holds 8 GPUs, 2 on each node, and the two
  // rings of a node share its NIC (10 Gbit/s: 5 each). Each replica allreduce is therefore the
  // allreduce of a cluster of 8 GPUs, 2 a node, at 5 Gbit/s; the shard group's reduce-scatter is
  // that of one node's 2 GPUs.
  const auto scenario_for = [](int gpus, int per_node, double gbps) {
    return nlohmann::json::parse(fmt::format(
        R"({{"trace": "four_layers.json", "cluster": {{"gpus": {}, "gpus_per_node": {}}},
            "network": {{"bandwidth_gbps": {}}}, "iterations": 1,
            "communication": {{"sharding": {{"units": "layers", "strategy": "hybrid_shard",
                                             "group_gpus": 2}}}}}})",
        gpus, per_node, gbps));
  };
  const ScenarioResult hybrid = run_scenario(
      read_scenario(jsonio::Document{"h.json", scenario_for(16, 4, 10.0)}, SGDSIM_TEST_DATA));
  const CollectivePtr replicas = make_collective(
      read_scenario(jsonio::Document{"r.json", scenario_for(8, 2, 5.0)}, SGDSIM_TEST_DATA));
  const CollectivePtr group = make_collective(
      read_scenario(jsonio::Document{"g.json", scenario_for(2, 2, 10.0)}, SGDSIM_TEST_DATA));
  REQUIRE(hybrid.sharding.size() == 1);
  std::size_t checked = 0;
  for (const ShardOperation& op : hybrid.sharding[0].simulation.last.operations) {
    if (op.phase == ShardPhase::replica_allreduce) {
      CHECK(op.end - op.start == replicas->time(op.bytes));
      ++checked;
    } else if (op.phase == ShardPhase::reduce_scatter) {
      CHECK(op.end - op.start == group->shards()->shard_time(ShardOp::reduce_scatter, op.bytes));
      ++checked;
    }
  }
  CHECK(checked == 8);  // four units, a reduce-scatter and a replica allreduce each
}

TEST_CASE("bad sharding input is refused with the path to fix") {
  const auto error_of = [](const std::string& communication, int gpus = 16) {
    const nlohmann::json scenario = nlohmann::json::parse(fmt::format(
        R"({{"trace": "four_layers.json", "cluster": {{"gpus": {}, "gpus_per_node": 4}},
            "network": {{"bandwidth_gbps": 10}}, "communication": {}}})",
        gpus, communication));
    return test::input_error_of([&] {
      run_scenario(read_scenario(jsonio::Document{"s.json", scenario}, SGDSIM_TEST_DATA));
    });
  };
  CHECK(error_of(R"({"sharding": {"group_gpus": 3}})") ==
        "s.json: communication.sharding.group_gpus: expected a shard group size that divides "
        "the 16 GPUs, found 3");
  CHECK(error_of(R"({"sharding": {"forward_prefetch": -1}})")
            .starts_with("s.json: communication.sharding.forward_prefetch: expected an integer"));
  CHECK(error_of(R"({"sharding": {"strategy": "zero4"}})")
            .starts_with("s.json: communication.sharding.strategy: expected one of \"zero1\""));
  CHECK(
      error_of(R"({"collective": {"algorithm": "parameter_server", "servers": 2}, "sharding": {}})")
          .starts_with("s.json: communication.sharding: the parameter_server collective has no "
                       "reduce-scatter"));
  CHECK(error_of(R"({"sharding": {"units": "blocks"}})")
            .starts_with("s.json: communication.sharding.units: no unit found"));
  CHECK(error_of(R"({"sharding": {"strategy": "hybrid_shard", "group_gpus": 6}})", 24)
            .starts_with("s.json: communication.sharding.group_gpus: expected a divisor or a "
                         "multiple of the 4 GPUs per node"));
}
