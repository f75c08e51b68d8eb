// Tests for network/flow_network.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "sgdsim/core/rng.hpp"
#include "sgdsim/network/flow_network.hpp"
#include "sgdsim/network/flow_pipeline.hpp"

using namespace sgdsim;

namespace {

ClusterShape single_gpu_nodes(int nodes) {
  ClusterShape shape;
  shape.gpus = nodes;
  shape.gpus_per_node = 1;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::zero()};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(10.0)};
  return shape;
}

// One ring step: every GPU sends `bytes` to the next.
TransferStep ring_step(const Topology& topology, double bytes) {
  TransferStep step;
  for (int r = 0; r < topology.shape().gpus; ++r) {
    step.transfers.push_back(
        {topology.gpu(r), topology.gpu((r + 1) % topology.shape().gpus), bytes});
  }
  return step;
}

// A pipeline route of fixed pieces of work, each (microseconds, resource; -1 for none).
std::vector<PipelineStage> work_route(std::initializer_list<std::pair<double, int>> stages) {
  std::vector<PipelineStage> route;
  for (const auto& [us, resource] : stages) {
    route.push_back({nullptr, Time::from_us(us), resource});
  }
  return route;
}

// Pipelines on two single-GPU nodes (single_gpu_nodes: 10 Gbit/s, 10 us between them).
struct TwoNodes {
  Topology topology = Topology::build(single_gpu_nodes(2));
  FlowNetwork network{topology};

  Time run(int items, int resources, std::vector<std::vector<PipelineStage>> routes) {
    return run_pipeline(network, Pipeline{items, resources, std::move(routes)});
  }
};

}  // namespace

TEST_CASE("max-min fairness gives the constrained flow its bottleneck and the rest the remainder") {
  // Link 0 (capacity 10) carries flows A and B; link 1 (capacity 4) carries only B.
  // B is held to 4 by link 1; A takes the 6 left on link 0.
  const std::vector<int> a{0};
  const std::vector<int> b{0, 1};
  const auto rates = max_min_rates({10.0, 4.0}, {&a, &b});
  CHECK(rates[0] == doctest::Approx(6.0));
  CHECK(rates[1] == doctest::Approx(4.0));
}

TEST_CASE("equal flows on one link split it equally") {
  const std::vector<int> route{0};
  const auto rates = max_min_rates({9.0}, {&route, &route, &route});
  CHECK(rates[2] == doctest::Approx(3.0));
}

TEST_CASE("a ring step on uncontended links takes latency plus bytes over bandwidth") {
  const Topology topology = Topology::build(single_gpu_nodes(4));
  FlowNetwork network(topology);
  // Route latency: two NIC halves = 10 us; 1.25 MB at 10 Gbps = 1 ms. Two steps: 2.02 ms.
  const TransferProgram program{ring_step(topology, 1.25e6), ring_step(topology, 1.25e6)};
  const auto done = network.run({program});
  CHECK(done[0].us() == doctest::Approx(2020.0));
}

TEST_CASE("two jobs on the same links take twice the bandwidth time, and compute does not add up") {
  const Topology topology = Topology::build(single_gpu_nodes(4));
  FlowNetwork network(topology);
  TransferStep step = ring_step(topology, 1.25e6);
  step.compute = Time::from_us(100.0);  // local reduction, not shared
  const auto done = network.run({{step}, {step}});
  // Each NIC direction carries two flows: 5 Gbps each, 2 ms; + 10 us latency + 100 us compute.
  CHECK(done[0].us() == doctest::Approx(2110.0));
  CHECK(done[1].us() == doctest::Approx(2110.0));
}

TEST_CASE("an oversubscribed spine slows only the flows that cross it") {
  ClusterShape shape = single_gpu_nodes(4);
  shape.leaf_nodes = 2;
  shape.oversubscription = 4.0;  // leaf uplink: 2 NICs x 10 Gbps / 4 = 5 Gbps
  const Topology topology = Topology::build(shape);
  FlowNetwork network(topology);
  TransferStep across;  // GPU 1 -> GPU 2 crosses the spine
  across.transfers.push_back({topology.gpu(1), topology.gpu(2), 1.25e6});
  TransferStep inside;  // GPU 0 -> GPU 1 stays under leaf 0
  inside.transfers.push_back({topology.gpu(0), topology.gpu(1), 1.25e6});
  // 1.25 MB at 5 Gbps = 2 ms (+10 us); at 10 Gbps = 1 ms (+10 us).
  const auto done = network.run({{across}, {inside}});
  CHECK(done[0].us() == doctest::Approx(2010.0));
  CHECK(done[1].us() == doctest::Approx(1010.0));
}

TEST_CASE("a flow's arrival is rounded to the picosecond on the engine's clock") {
  const Topology topology = Topology::build(single_gpu_nodes(2));
  FlowNetwork network(topology);
  TransferStep step;
  step.transfers.push_back({topology.gpu(0), topology.gpu(1), 1.0});
  // 1 byte at 10 Gbps = 1.25e-3 bytes/ps: 800 ps, after the 10 us route latency.
  const auto done = network.run({{step}});
  CHECK(done[0].ps() == 10'000'800);
}

TEST_CASE(
    "a flow network shares an engine with other actions: a job started late slows the first") {
  const Topology topology = Topology::build(single_gpu_nodes(4));
  FlowNetwork network(topology);
  Simulator simulator;
  simulator.attach(network);
  const TransferProgram program{ring_step(topology, 1.25e6)};
  Time first_done;
  Time second_done;
  network.start(simulator, program, [&](Time end) { first_done = end; });
  simulator.schedule_at(Time::from_us(500.0), 0, [&] {
    network.start(simulator, program, [&](Time end) { second_done = end; });
  });
  simulator.run();
  // First job alone at 1.25 GB/s from 10 us: 0.625 MB sent by 510 us. Then both share each NIC
  // direction at 0.625 GB/s: the first's remaining 0.625 MB take 1 ms (done at 1510 us), while the
  // second sends 0.625 MB; its other half alone at 1.25 GB/s takes 0.5 ms: done at 2010 us.
  CHECK(first_done.us() == doctest::Approx(1510.0));
  CHECK(second_done.us() == doctest::Approx(2010.0));
  CHECK(network.active_flows() == 0);
}

TEST_CASE("a repeated step is priced once when alone, to the picosecond of running it repeatedly") {
  // An oversubscribed fat-tree with uneven bytes (some flows cross the 5 Gbps spine, the step
  // ends on the slowest), a reduction after each step and an odd byte count: the arrivals are
  // rounded to picoseconds, and the shortcut must land on the same picosecond.
  ClusterShape shape = single_gpu_nodes(6);
  shape.leaf_nodes = 2;
  shape.oversubscription = 4.0;
  const Topology topology = Topology::build(shape);
  TransferStep step = ring_step(topology, 1'234'567.0);
  step.compute = Time::from_ps(3'333'333);
  TransferStep compacted = step;
  compacted.repeat = 7;
  const TransferProgram unrolled(7, step);
  FlowNetwork network(topology);
  const Time alone = network.run({{compacted}})[0];
  CHECK(alone == network.run({unrolled})[0]);
  // Two jobs share the links, so nothing is skipped: the repeats run one by one either way.
  const auto shared = network.run({{compacted}, {compacted}});
  const auto shared_unrolled = network.run({unrolled, unrolled});
  CHECK(shared[0] == shared_unrolled[0]);
  CHECK(shared[1] == shared_unrolled[1]);
  CHECK(shared[0] > alone);
}

namespace {

// Random property-test cases: a cluster (NIC per node or per GPU, one switch or an
// oversubscribed fat-tree) and programs on it (random pairs, equal and uneven bytes down to
// fractions of a byte, reductions, repeats, a latency override).
struct RandomCases {
  Rng rng;
  int below(int n) { return static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(n)); }

  ClusterShape shape() {
    ClusterShape shape = single_gpu_nodes(2 + below(5));
    shape.gpus_per_node = 1 + below(3);
    shape.gpus *= shape.gpus_per_node;
    shape.nic_per_gpu = below(2) == 1;
    shape.leaf_nodes = below(2) == 1 ? 2 : 0;
    shape.oversubscription = 1.0 + below(4);
    shape.intra_node = {Bandwidth::from_gbps(20.0 + below(200)), Time::from_ps(below(3) * 500)};
    return shape;
  }

  TransferProgram program(const Topology& topology) {
    const int gpus = topology.shape().gpus;
    TransferProgram program;
    for (int s = 1 + below(4); s > 0; --s) {
      TransferStep step;
      const bool ring = below(2) == 1;  // a ring step of equal bytes, else random pairs
      const double bytes = below(4) == 0 ? 0.37 : 1.0 + below(3'000'000);
      if (ring) {
        step = ring_step(topology, bytes);
      } else {
        for (int t = 1 + below(2 * gpus); t > 0; --t) {
          const int from = below(gpus);
          const int to = (from + 1 + below(gpus - 1)) % gpus;
          step.transfers.push_back({topology.gpu(from), topology.gpu(to),
                                    below(3) == 0 ? bytes : 1.0 + below(2'000'000)});
        }
      }
      step.compute = Time::from_ps(below(3) * 777'777);
      step.repeat = 1 + below(3);
      if (below(4) == 0) step.latency = Time::from_ps(1'000 + below(5'000'000));
      program.push_back(std::move(step));
    }
    return program;
  }
};

}  // namespace

TEST_CASE("identical jobs computed as one program counted once per job are the jobs side by side") {
  // k copies of a random program run side by side by the event-by-event reference finish
  // together, at the picosecond one program with k-fold flows gives, alone or priced from its
  // steps' shapes.
  RandomCases random{Rng(20261126)};
  int priced = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Topology topology = Topology::build(random.shape());
    const TransferProgram program = random.program(topology);
    const int jobs = 2 + random.below(3);
    INFO("trial " << trial << ", " << jobs << " jobs on " << topology.shape().gpus << " GPUs");
    FlowNetwork reference(topology);
    const std::vector<Time> side_by_side =
        reference.run(std::vector<TransferProgram>(static_cast<std::size_t>(jobs), program));
    for (const Time done : side_by_side) CHECK(done == side_by_side.front());
    FlowNetwork counted(topology, jobs);
    CHECK(counted.run({program}).front() == side_by_side.front());
    if (const std::optional<Time> shaped = counted.shape_priced_time(program)) {
      CHECK(*shaped == side_by_side.front());
      ++priced;
    }
  }
  CHECK(priced > 30);  // the shape-priced path is exercised too
}

TEST_CASE("rates recalled for a set of routes seen before are the rates solving again gives") {
  // Different random programs side by side, their repeats among the others' flows: a network that
  // recalls the rates of every set of routes it has solved, and the same network warm (every
  // set recalled), finish each program at the very picosecond a network that solves at every
  // change does.
  RandomCases random{Rng(20261127)};
  std::uint64_t recalled = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Topology topology = Topology::build(random.shape());
    std::vector<TransferProgram> programs;
    for (int p = 2 + random.below(3); p > 0; --p) programs.push_back(random.program(topology));
    INFO("trial " << trial << ", " << programs.size() << " programs");
    FlowNetwork solving(topology);
    solving.set_remembering(false);
    const std::vector<Time> solved = solving.run(programs);
    CHECK(solving.recalled() == 0);
    FlowNetwork recalling(topology);
    recalling.set_remembering(true);
    CHECK(recalling.run(programs) == solved);
    const std::uint64_t cold_recalled = recalling.recalled();
    const std::uint64_t cold_solved = recalling.unrecalled();
    // Warm, every set the cold run met is remembered: each of its solves is a recall now.
    CHECK(recalling.run(programs) == solved);
    CHECK(recalling.unrecalled() == cold_solved);
    CHECK(recalling.recalled() == 2 * cold_recalled + cold_solved);
    recalled += cold_recalled;
  }
  CHECK(recalled > 0);  // some repeats recall within a cold run too
}

// network/flow_pipeline.hpp: items through stages on resources that serve one at a time.
TEST_CASE("a pipeline runs each resource's stages one at a time, in item order") {
  TwoNodes two;
  // Three items through A (resource 0, 10 us), B (resource 1, 30 us), C (no resource, 5 us):
  // A at 0, 10, 20; B, the slower, from 10 back to back: 10-40, 40-70, 70-100; C of the last
  // item 100-105.
  CHECK(two.run(3, 2, {work_route({{10.0, 0}, {30.0, 1}, {5.0, -1}})}) == Time::from_us(105.0));
  // Items 0 and 2 take a route whose A is 50 us, item 1 one whose A is 1 us, C nothing for
  // both. All are ready at 0 and resource 0 serves the lowest item first: A of item 0 0-50,
  // item 1 50-51, item 2 51-101; B of item 0 50-80, item 1 80-110, item 2 110-140.
  CHECK(two.run(3, 2,
                {work_route({{50.0, 0}, {30.0, 1}, {0.0, -1}}),
                 work_route({{1.0, 0}, {30.0, 1}, {0.0, -1}})}) == Time::from_us(140.0));
}

TEST_CASE("a free resource takes the lowest waiting item, not the one that waited longest") {
  TwoNodes two;
  // Item i takes route i: A on no resource, then B on resource 0, then C on none. Item 1 takes
  // the resource at 1 us (1-31); item 2 waits from 5 us, item 0 from 20 us. At 31 us item 0
  // goes first (31-41), item 2 next (41-51), and its C ends at 151 us (first come first served
  // would have run item 2 at 31-41 and ended at 141).
  const auto route = [](double a, double b, double c) {
    return work_route({{a, -1}, {b, 0}, {c, -1}});
  };
  CHECK(two.run(3, 1, {route(20.0, 10.0, 0.0), route(1.0, 30.0, 0.0), route(5.0, 10.0, 100.0)}) ==
        Time::from_us(151.0));
  // Two items ready at the same time, 10 us: item 1's A, queued at 0, runs before item 0's
  // second A, queued at 5 us. The resource still chooses item 0 (10-20), then item 1 (20-30),
  // whose C ends at 130 us (120 if the first to arrive had taken it).
  CHECK(two.run(2, 1, {work_route({{5.0, -1}, {5.0, -1}, {10.0, 0}}), route(10.0, 10.0, 100.0)}) ==
        Time::from_us(130.0));
}

TEST_CASE("a pipeline's transfers share links, and a stage that follows on its resource streams") {
  // Two single-GPU nodes at 10 Gbit/s (1.25 B/ns), 10 us between them. Two items, each sending
  // 1.25 MB from GPU 0 to GPU 1 twice: first on resource 0 (a connection; the second item's
  // send follows the first's without latency), then on no resource.
  TwoNodes two;
  TransferStep send;
  send.transfers.push_back({two.topology.gpu(0), two.topology.gpu(1), 1.25e6});
  const TransferProgram program{send};
  send.latency = Time::zero();
  const TransferProgram streamed{send};
  // Item 0's first send: 10 + 1,000 us. Item 1's follows at 1,010 us with no latency, alone for
  // 10 us (12,500 B) until item 0's second send starts at 1,020 us; they share the link at
  // 0.625 B/ns, item 1's remaining 1,237,500 B end at 1,020 + 1,980 = 3,000 us, item 0's last
  // 12,500 B at full rate by 3,010. Item 1's second send starts at 3,000, flows from 3,010 alone:
  // 4,010 us.
  CHECK(two.run(2, 1, {{{&program, Time::zero(), 0, &streamed}, {&program, Time::zero(), -1}}}) ==
        Time::from_us(4010.0));
  // Without streaming, item 1's first send pays its latency: it flows from 1,020 us, together
  // with item 0's second send, both ending at 1,020 + 2,000 = 3,020 us; item 1's second send
  // flows from 3,030 to 4,030 us.
  CHECK(two.run(2, 1, {{{&program, Time::zero(), 0}, {&program, Time::zero(), -1}}}) ==
        Time::from_us(4030.0));
  // A stage that becomes ready only as its resource falls free had no bytes queued behind the
  // last ones: item 1 waits 1,010 us on no resource, reaches resource 0 just as item 0's send
  // (10 + 1,000 us) leaves it, and pays its latency: 1,010 + 10 + 1,000 = 2,020 us.
  CHECK(two.run(2, 1,
                {{{&program, Time::zero(), 0, &streamed}},
                 {{nullptr, Time::from_us(1010.0), -1}, {&program, Time::zero(), 0, &streamed}}}) ==
        Time::from_us(2020.0));
}
