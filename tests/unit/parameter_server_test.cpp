// Tests for collectives/parameter_server.hpp and byteps.hpp.
#include <doctest/doctest.h>

#include <optional>

#include "approx.hpp"
#include "printers.hpp"
#include "test_support.hpp"

#include "sgdsim/collectives/byteps.hpp"
#include "sgdsim/collectives/chunked_collective.hpp"
#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/parameter_server.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/network/flow_network.hpp"

using namespace sgdsim;

TEST_CASE("one dedicated server for 4 workers is bound by its NIC carrying 4 gradients") {
  const ParameterServer ps(test::full_context(test::workers(4, 1, ServerPlacement::dedicated)));
  // Startup: GPU link 0.5 us + NIC 10 us + server NIC 10 us = 20.5 us per phase.
  // Bandwidth: max(1 * S, 4 * S / 1) / 10 Gbps = 4 * 0.8 ms = 3.2 ms per phase for S = 1 MB.
  // Push + pull: 2 * (20.5 us + 3200 us) = 6441 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(6441.0));
  CHECK(ps.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1e6));
}

TEST_CASE("as many dedicated servers as workers leave the worker NIC as the bottleneck") {
  const ParameterServer ps(test::full_context(test::workers(4, 4, ServerPlacement::dedicated)));
  // max(S, 4 * S / 4) = S: 0.8 ms per phase; 2 * (20.5 + 800) us = 1641 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(1641.0));
}

TEST_CASE("co-located servers on every worker move what a ring moves, with two startups") {
  const ParameterServer ps(test::full_context(test::workers(4, 4, ServerPlacement::colocated)));
  // Per phase each NIC carries (N-1)/N * S = 0.75 MB: 600 us; startup from worker 3 to the
  // server on node 0: 0.5 + 10 + 10 + 0.5 = 21 us. Total 2 * (21 + 600) = 1242 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(1242.0));
  // The ring moves the same 2(N-1)/N * S but pays 2(N-1) = 6 startups of 21 us.
  const RingAllreduce ring =
      RingAllreduce::on(test::full_context(test::workers(4, 0, ServerPlacement::colocated)));
  CHECK(ring.time(Bytes(1'000'000)) - ps.time(Bytes(1'000'000)) == Time::from_us(4 * 21.0));
}

TEST_CASE("co-located servers inside one node are bound by their own links, at both levels") {
  // 4 GPUs in one node (256 Gbit/s links, 1 us), 2 servers on its switch, each by a link of the
  // intra-node rate. Nothing crosses a NIC; each server's link takes every GPU's half: 4 x S / 2
  // = 2 MB per phase for S = 1 MB, at 32 GB/s 62.5 us (a GPU's own link, S: 31.25 us). Startup:
  // the GPU's link and the server's, 0.5 + 0.5 us. Push + pull: 2 x (1 + 62.5) = 127 us.
  ClusterShape shape = test::workers(4, 2, ServerPlacement::colocated);
  shape.gpus_per_node = 4;
  const CollectiveContext context = test::full_context(shape);
  const ParameterServer ps(context);
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(127.0));
  // Copy engines and the servers' CPUs do it all: no kernel runs on the GPUs.
  CHECK(ps.kernel_time(Bytes(1'000'000)) == Time::zero());
  // The flow level routes the same transfers over the same links.
  FlowNetwork network(*context.topology);
  CHECK(network.time_alone(ps.program(Bytes(1'000'000))) == Time::from_us(127.0));
  // With a NIC per GPU both servers hang off GPU 0, whose link from the switch carries the other
  // three GPUs' shares for both: 3 x 2 x S / 2 = 3 MB, 93.75 us; startup from GPU 3 through the
  // switch and GPU 0 to a server, 3 x 0.5 us. Push + pull: 2 x (1.5 + 93.75) = 190.5 us.
  shape.nic_per_gpu = true;
  const CollectiveContext per_gpu = test::full_context(shape);
  const ParameterServer on_gpu0(per_gpu);
  CHECK(on_gpu0.time(Bytes(1'000'000)) == Time::from_us(190.5));
  FlowNetwork per_gpu_network(*per_gpu.topology);
  CHECK(per_gpu_network.time_alone(on_gpu0.program(Bytes(1'000'000))) == Time::from_us(190.5));
}

// BytePS (collectives/byteps.hpp) on test::byteps_cluster(), 1 MB partitions, servers summing at
// 800 Gbit/s (0.01 ns/B).
namespace {

BytePs byteps(std::int64_t partition) {
  return BytePs(test::full_context(test::byteps_cluster()),
                BytePsSettings{Bytes(partition), Bandwidth::from_gbps(800.0)});
}

}  // namespace

TEST_CASE("BytePS pipelines its partitions through the busiest resource, by hand") {
  // S = 4 MB in P = 4 partitions of q = 1 MB. Per partition: reduce-scatter and allgather each
  // 3 x 1 us + 3/4 x 1 MB x 0.01 ns/B = 3 + 7.5 us; push and pull each 5 us (from host memory,
  // no GPU link on the way: NIC 2.5 + server NIC 2.5) + max(4/4 x 1 MB, 2/2 x 1 MB) x
  // 0.08 ns/B = 5 + 80 us; the sum 2/2 x 1 MB x 0.01 ns/B = 10 us. First partition:
  // 6 + 15 + 10 + 160 + 10 = 201 us; each further one the busiest resource, the NIC: 80 us.
  // The pipeline: 201 + 3 x 80 = 441 us. But a partition goes whole to one server, whose link
  // takes both machines' 1 MB (160 us) in the push and in the pull, and whose CPU adds both
  // (20 us): one partition alone 6 + 15 + 10 + 2 x 160 + 20 = 371 us, and partitions 0, 1 and
  // 2, 3 share the two servers in two rounds, a round 2 x 80 us on the NIC: 371 + 160 = 531 us
  // (the NCCL stream's bound, 371 + 3 x 15 = 416, binds less).
  const BytePs pipelined = byteps(1'000'000);
  CHECK(pipelined.partitions(Bytes(4'000'000)) == 4);
  CHECK(pipelined.time(Bytes(4'000'000)) == Time::from_us(531.0));
  // One 4 MB partition, whole on one server: 6 + 60 + 10 + 2 x 640 + 80 = 1,436 us.
  CHECK(byteps(4'000'000).time(Bytes(4'000'000)) == Time::from_us(1436.0));
  // A remainder makes one more partition: 4,000,001 bytes in 5.
  CHECK(pipelined.partitions(Bytes(4'000'001)) == 5);
  // Behind another message, all but each partition's period can run beside the data ahead
  // (queued partitions take the servers in turn): 531 - 4 x 80 = 211 us; one 1 MB partition
  // 371 - 80 = 291 us; one 4 MB partition, whose busiest stage is its NIC's 320 us: 1,436 -
  // 320 = 1,116 us.
  CHECK(pipelined.overlappable(Bytes(4'000'000)) == Time::from_us(211.0));
  CHECK(pipelined.overlappable(Bytes(1'000'000)) == Time::from_us(291.0));
  CHECK(byteps(4'000'000).overlappable(Bytes(4'000'000)) == Time::from_us(1116.0));
  // GPU kernels run the NCCL stream alone: each partition's reduce-scatter and allgather, 2 x
  // (3 + 7.5) = 21 us, 84 us for the four of 1 MB (of 531); one 4 MB partition 2 x (3 + 30) =
  // 66 us (of 1,436). The copies, the network and the servers' CPUs are not kernels.
  CHECK(pipelined.kernel_time(Bytes(4'000'000)) == Time::from_us(84.0));
  CHECK(byteps(4'000'000).kernel_time(Bytes(4'000'000)) == Time::from_us(66.0));
}

TEST_CASE("BytePS with a server per machine moves S per NIC, half of what a ring moves") {
  // As many servers as machines: each NIC carries S out and S back on its other direction, so
  // a large message costs about S / B, where a ring over the 8 GPUs moves 2 (N-1)/N S = 1.75 S
  // through the same NIC.
  ClusterShape shape = test::byteps_cluster();
  shape.gpus_per_node = 1;
  const BytePs fast(test::full_context(shape),
                    BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)});
  const RingAllreduce ring = RingAllreduce::on(test::full_context(shape));
  const Bytes large(1'000'000'000);
  // 8 machines, 2 servers: each server takes 8/2 = 4 shards of q: the server NIC (4 x 80 us per
  // partition) is the bottleneck, 320 ms for 1 GB; with 8 servers, 80 ms.
  CHECK(fast.time(large).ms() == test::relative(320.0, 0.01));
  shape.servers = 8;
  const BytePs balanced(test::full_context(shape),
                        BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(balanced.time(large).ms() == test::relative(80.0, 0.01));
  CHECK(ring.time(large).ms() == test::relative(140.0, 0.01));
}

TEST_CASE("BytePS with its servers on the worker machines moves what a ring moves") {
  // byteps_cluster's 2 machines of 4 GPUs with one server on each (TensorFlow's
  // distributed_replicated with its parameter servers on the workers, MXNet's kvstore likewise).
  // Push and pull each: startup 5.5 us (from host memory: both NICs 2.5 + 2.5, the server's
  // link inside its machine 0.5); each NIC sends the half of a partition the other machine's
  // server holds and takes in the half its own server gets: max(1/2, 1 x 1/2) x 1 MB x
  // 0.08 ns/B = 40 us. First 1 MB partition: 6 + 15 + 11 + 80 + 10 = 122 us. Between partitions
  // each NIC direction carries a push (1/2) and its server's pull (1/2): 80 us, as with
  // dedicated servers, where push and pull take separate directions of 1 MB each. The
  // pipeline: 122 + 3 x 80 = 362 us. A partition alone goes whole to one machine's server: the
  // other machine pushes its 1 MB (80 us) and pulls it back (80 us), the server adds both
  // copies (20 us): 6 + 15 + 11 + 160 + 20 = 212 us; two rounds of two: 212 + 2 x 80 = 372 us
  // (dedicated: 531).
  ClusterShape shape = test::byteps_cluster();
  shape.server_placement = ServerPlacement::colocated;
  const BytePs colocated(test::full_context(shape),
                         BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(colocated.time(Bytes(4'000'000)) == Time::from_us(372.0));
  // One 4 MB partition, whole: 6 + 60 + 11 + 2 x 320 + 80 = 797 us.
  const BytePs whole(test::full_context(shape),
                     BytePsSettings{Bytes(4'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(whole.time(Bytes(4'000'000)) == Time::from_us(797.0));
  // One machine with its own server: nothing crosses the network. Startup 0.5 us (the server's
  // link): 6 + 15 + 1 + 10 = 32 us for a 1 MB partition.
  shape.gpus = 4;
  shape.servers = 1;
  const BytePs alone(test::full_context(shape),
                     BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(alone.time(Bytes(1'000'000)) == Time::from_us(32.0));
  // Three servers on two machines: the machine with two takes in 2/3 of the other's partition
  // (2 x 1/3), the one with one sends 2/3 of its own: max(2/3, 2/3) x 1 MB x 0.08 = 53.333 us.
  shape.gpus = 8;
  shape.servers = 3;
  const BytePs uneven(test::full_context(shape),
                      BytePsSettings{Bytes(4'000'000), Bandwidth::from_gbps(800.0)});
  // The machine with two servers adds for both, 2 x 2/3 of every copy: 4/3 x 4 MB x 0.01 =
  // 53.333 us. The pipeline: 6 + 60 + 11 + 2 x 213.333 + 53.333 = 557 us; but the one
  // partition goes whole to one server, as above: 797 us.
  CHECK(uneven.time(Bytes(4'000'000)).us() == doctest::Approx(797.0).epsilon(1e-6));
  // Four servers, two on each machine: each NIC sends 2/4 and serves 2 x 1/4 of a partition,
  // and each machine's CPU adds for its two servers, 2 x 2/4 of every copy: 1 x 4 MB x 0.01 =
  // 40 us, a pipeline of 437 us; the partition alone on one server, 797 us, as with one server
  // a machine: servers sharing a CPU add nothing.
  shape.servers = 4;
  const BytePs doubled(test::full_context(shape),
                       BytePsSettings{Bytes(4'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(doubled.time(Bytes(4'000'000)) == Time::from_us(797.0));
  // What a GPU sends: 3/4 of S inside its machine in the reduce-scatter and 3/4 in the
  // allgather, and a quarter of its machine's 2 (n - 1) / n of S: for 2 machines 1.5 + 1/4 S,
  // as with dedicated servers; for 4, (1.5 + 2 x 3/4 / 4) S.
  CHECK(doubled.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1.75e6));
  shape.gpus = 16;
  const BytePs four(test::full_context(shape),
                    BytePsSettings{Bytes(4'000'000), Bandwidth::from_gbps(800.0)});
  CHECK(four.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1.875e6));
}

// BytePS at flow fidelity (BytePs::staged_time): the byteps_cluster's NICs, links and servers
// on 2 machines of one GPU each, 1 MB partitions. L is the route latency from where a machine
// pushes (its host memory, the node's switch) to a server (the closed form's startup per push
// or pull).
namespace {

struct StagedBytePs {
  ClusterShape shape = test::byteps_cluster();
  CollectiveContext context;
  BytePs byteps;
  Time latency;

  explicit StagedBytePs(int servers, int gpus_per_node = 1, int gpus = 2,
                        std::optional<Bandwidth> gpu_links = std::nullopt)
      : shape(with(servers, gpus_per_node, gpus, gpu_links)),
        context(test::full_context(shape)),
        byteps(context, settings()),
        latency(servers == 0 ? Time::zero() : push_latency(*context.topology)) {}

  static Time push_latency(const Topology& topology) {
    const int last = topology.shape().nodes() - 1;
    return path_model(topology, topology.route(topology.node_switch(last), topology.server(0)))
        .latency;
  }

  static ClusterShape with(int servers, int gpus_per_node, int gpus,
                           std::optional<Bandwidth> gpu_links) {
    ClusterShape shape = test::byteps_cluster();
    if (gpu_links) shape.intra_node.bandwidth = *gpu_links;
    shape.gpus = gpus;
    shape.gpus_per_node = gpus_per_node;
    shape.servers = servers;
    return shape;
  }

  static BytePsSettings settings() {
    return BytePsSettings{Bytes(1'000'000), Bandwidth::from_gbps(800.0)};
  }

  // An S-byte message with `queued` partitions behind it, on a network running `copies` jobs.
  Time flow(Bytes message, int copies = 1, std::int64_t queued = 0) const {
    FlowNetwork network(*context.topology, copies);
    return byteps.stream_time(network, message, queued);
  }
  // What such a message holds the stream when queued behind others, where it is simulated.
  std::optional<Time> hold(Bytes message) const {
    FlowNetwork network(*context.topology);
    return byteps.staged_hold(network, message);
  }
  // The flow level over this cluster, as a scenario at flow fidelity builds it.
  FlowCollective priced() const {
    return FlowCollective(std::make_unique<BytePs>(context, settings()), context.topology, 1);
  }
};

}  // namespace

TEST_CASE("BytePS at flow fidelity streams partitions through one server as its closed form") {
  // One server: partition j's push is both machines' 1 MB into the server's 100 Gbit/s link,
  // 2 MB x 0.08 ns/B = 160 us after L; the sum 2 x 1 MB x 0.01 ns/B = 20 us; the pull 160 us
  // out of the server's link. Two partitions: push 0 [0, L + 160], push 1 follows on the same
  // connections with its latency hidden [L + 160, L + 320], sum 0 [L + 160, L + 180], pull 0
  // [L + 180, 2L + 340], sum 1 [L + 320, L + 340], pull 1 follows pull 0: 2L + 500 us, the
  // closed form's 2L + 340 + 160 (first partition, then the busiest resource, the server link).
  const StagedBytePs one(1);
  REQUIRE(one.latency > Time::zero());
  const Time expected = one.latency * 2 + Time::from_us(500.0);
  CHECK(one.flow(Bytes(2'000'000)) == expected);
  CHECK(one.byteps.time(Bytes(2'000'000)) == expected);
  // Two identical jobs on the same GPUs and server: every flow and the server's CPU shared by
  // two, so every stage takes twice as long: 2L + 1,000 us.
  CHECK(one.flow(Bytes(2'000'000), 2) == one.latency * 2 + Time::from_us(1000.0));
}

TEST_CASE("BytePS at flow fidelity sends each partition to one server, as BytePS keys do") {
  // Two servers, one 1 MB partition: it goes to server 0 alone, whose link carries both
  // machines' copies: 2L + 160 + 20 + 160 us, at both levels (the closed form takes a partition
  // alone whole on one server; its pipeline alone would spread it over both, 2L + 2 x 80 + 10).
  const StagedBytePs two(2);
  CHECK(two.flow(Bytes(1'000'000)) == two.latency * 2 + Time::from_us(340.0));
  CHECK(two.byteps.time(Bytes(1'000'000)) == two.latency * 2 + Time::from_us(340.0));
  // Two partitions, one per server, at once: each NIC carries 2 MB (160 us) and each server
  // link 2 MB (160 us), then both sums (20 us), then both pulls: 2L + 340 us; the closed form's
  // one round of k = 2 partitions, the same (its pipeline alone: 2L + 170 + 80).
  CHECK(two.flow(Bytes(2'000'000)) == two.latency * 2 + Time::from_us(340.0));
  CHECK(two.byteps.time(Bytes(2'000'000)) == two.latency * 2 + Time::from_us(340.0));
}

TEST_CASE("BytePS at flow fidelity takes the servers in turn over the messages queued") {
  // Two servers, 1 MB messages of one partition each, queued behind one another: partition j
  // goes to server j mod 2 whichever message it belongs to (BytePS's keys follow one another
  // over tensors). Alone, 2L + 340 us (the test above). With 2 more queued: partitions 0 and 1
  // push at once, each machine's NIC sending 2 MB and each server's link taking 2 MB, both
  // ending at L + 160; partition 2 follows on server 0's connections without latency, to
  // L + 320. Sums 20 us after each push; pulls 0 and 1 at once [L + 180, 2L + 340], pull 2
  // follows pull 0 on server 0: 2L + 500 us. With 4 queued: partitions 2 and 3 push together
  // [L + 160, L + 320], 4 alone to L + 480; pulls 2 and 3 follow 0 and 1 to 2L + 500, pull 4
  // follows to 2L + 660 us. The 2 partitions more took 160 us: 80 us a message, the closed
  // form's period (the NIC's and the servers' 80 us each).
  const StagedBytePs two(2);
  const Bytes message(1'000'000);
  CHECK(two.flow(message, 1, 2) == two.latency * 2 + Time::from_us(500.0));
  CHECK(two.flow(message, 1, 4) == two.latency * 2 + Time::from_us(660.0));
  CHECK(two.hold(message) == Time::from_us(80.0));
  // So on the merge policies' stream a message queued behind another runs all but 80 us of its
  // 2L + 340 beside it, at the flow level as in the closed form (2L + 340 less 80).
  const FlowCollective flow = two.priced();
  CHECK(flow.time(message) == two.latency * 2 + Time::from_us(340.0));
  CHECK(flow.time(message) - flow.queued_overlap(message) == Time::from_us(80.0));
  CHECK(flow.overlappable(message) == flow.queued_overlap(message));
  CHECK(two.byteps.time(message) - two.byteps.queued_overlap(message) == Time::from_us(80.0));
  // 32 machines and 32 servers: the runs would simulate 1 + 64 partitions with up to 32 in
  // flight, 32 pushes each, 66,560 > 2^14 (and over 4 x the message's own 32): too costly, so
  // a queued message holds the stream for what the closed form's holds, its P periods.
  const StagedBytePs wide(32, 1, 32);
  REQUIRE_FALSE(wide.hold(message).has_value());
  const FlowCollective wide_flow = wide.priced();
  CHECK(wide_flow.queued_overlap(message) == wide.byteps.queued_overlap(message));
  // Alone, its one partition goes whole to one server at both levels: the same time.
  CHECK(wide_flow.time(message) == wide.byteps.time(message));
}

TEST_CASE("BytePS at flow fidelity keeps the closed form's pipeline inside machines of 4 GPUs") {
  // 2 machines of 4 GPUs, one server, 8 partitions of 1 MB. Per partition the reduce-scatter
  // and the allgather each take 3 x (1 us + 250 KB x 0.01 ns/B) = 10.5 us on the NCCL stream;
  // the push and the pull each move the two machines' 1 MB (one flow each, from or to the
  // machine's host memory) through the server's link in 160 us: the busiest resource. Push 0
  // starts when reduce-scatter 0 ends and ends at 10.5 + L + 160; the other pushes follow back
  // to back without latency, push j ending at 10.5 + L + 160 (j + 1). Pull 0 starts after sum 0
  // (20 us) and ends at 10.5 + 2L + 340; each later pull's sum has ended before the previous
  // pull does (10.5 + L + 180 + 160 j against 10.5 + 2L + 180 + 160 j), so the pulls follow back
  // to back too: pull 7 ends at 10.5 + 2L + 340 + 7 x 160, and allgather 7 10.5 us later:
  // 2L + 1,481 us. The closed form: its first partition 2L + 21 + 340 and 7 periods of 160 us,
  // 2L + 1,481 us.
  const StagedBytePs four(1, 4, 8);
  const Time expected = four.latency * 2 + Time::from_us(1481.0);
  CHECK(four.flow(Bytes(8'000'000)) == expected);
  CHECK(four.byteps.time(Bytes(8'000'000)) == expected);
}

TEST_CASE("BytePS at flow fidelity pushes from host memory, not through a GPU's link") {
  // The machines' GPU links at 8 Gbit/s (1 ns/B), as slow as GeForce cards' rings through host
  // memory: one 1 MB partition's reduce-scatter and allgather each take 3 x (1 us + 250 KB x
  // 1 ns/B) = 753 us; the push and the pull leave from and arrive in host memory, where the
  // GPUs copied their shards, and cross only the NICs and the server's link: 160 us each after
  // L, the sum 20 us between. 2L + 2 x 753 + 340 = 2L + 1,846 us at both levels. Pushed from
  // the first GPU instead, the machine's 1 MB would cross that GPU's link in 1,000 us.
  const StagedBytePs slow(1, 4, 8, Bandwidth::from_gbps(8.0));
  const Time expected = slow.latency * 2 + Time::from_us(1846.0);
  CHECK(slow.flow(Bytes(1'000'000)) == expected);
  CHECK(slow.byteps.time(Bytes(1'000'000)) == expected);
  // Two partitions: the NCCL stream is the busiest resource, each partition's reduce-scatter and
  // allgather holding it 2 x 753 us, their ring steps' 6 x 1 us latency included: the closed
  // form's 2L + 1,846 + 1,506 us (1,500 without the latencies). The flow level hides the first
  // partition's push, sum and pull behind the second's reduce-scatter: its stream's 4 x 753 us.
  CHECK(slow.byteps.time(Bytes(2'000'000)) == slow.latency * 2 + Time::from_us(3352.0));
  CHECK(slow.flow(Bytes(2'000'000)) == Time::from_us(3012.0));
}

TEST_CASE("BytePS on one machine without servers takes the NCCL stream partition by partition") {
  // One machine of 4 GPUs, no servers (BytePS's one-machine run, byteps.hpp), 4 partitions of
  // 1 MB: each partition's reduce-scatter and allgather take 3 x (1 us + 250 KB x 0.01 ns/B) =
  // 10.5 us each on the NCCL stream, its only resource, so the message takes 4 x 21 = 84 us at
  // both levels, and one queued behind another overlaps none of it.
  const StagedBytePs alone(0, 4, 4);
  REQUIRE_FALSE(alone.byteps.distributed());
  const Bytes message(4'000'000);
  CHECK(alone.byteps.time(message) == Time::from_us(84.0));
  CHECK(alone.flow(message) == Time::from_us(84.0));
  CHECK(alone.hold(message) == Time::from_us(84.0));
  CHECK(alone.priced().time(message) == Time::from_us(84.0));
  CHECK(alone.byteps.overlappable(message) == Time::zero());
  // All of it is NCCL's kernels, at both levels.
  CHECK(alone.byteps.kernel_time(message) == Time::from_us(84.0));
  CHECK(alone.priced().kernel_time(message) == Time::from_us(84.0));
  // Each GPU sends 3/4 of the message in the reduce-scatter and 3/4 in the allgather, what a
  // ring sends, and nothing leaves the machine; a quantised message is re-encoded after each of
  // the reduce-scatter's 3 steps on 1/4 of it.
  CHECK(alone.byteps.bytes_sent_per_rank(message) == doctest::Approx(6'000'000.0));
  CHECK(alone.byteps.requantisation().stages == 3);
  CHECK(alone.byteps.requantisation().chunk_fraction == doctest::Approx(0.25));
  // Forced to use a dedicated server (BYTEPS_FORCE_DISTRIBUTED=1), every partition also crosses
  // the NIC and the server's link twice: slower at both levels.
  const StagedBytePs forced(1, 4, 4);
  CHECK(forced.byteps.time(message) > Time::from_us(84.0) + forced.latency * 2);
  CHECK(forced.flow(message) > Time::from_us(84.0) + forced.latency * 2);
  // Its kernels are still the NCCL stream's 84 us, at both levels (the flow level prices the
  // network, not the stream's kernels).
  CHECK(forced.byteps.kernel_time(message) == Time::from_us(84.0));
  CHECK(forced.priced().kernel_time(message) == Time::from_us(84.0));
}

namespace {

// byteps_cluster's machines of 4 GPUs in two groups of 2 (BYTEPS_PCIE_SWITCH_SIZE=2): each
// group's rings at 400 Gbit/s (0.02 ns/B), a group's copies to host memory at 200 Gbit/s
// (0.04 ns/B each way), the CPU adding the other group's buffer at 800 Gbit/s (0.01 ns/B).
struct GroupedBytePs {
  GroupedBytePs(int servers, int gpus)
      : shape(StagedBytePs::with(servers, 4, gpus, std::nullopt)),
        context(test::full_context(shape)),
        byteps(context, settings()),
        latency(servers == 0 ? Time::zero() : StagedBytePs::push_latency(*context.topology)) {}

  static BytePsSettings settings() {
    BytePsSettings grouped = StagedBytePs::settings();
    grouped.group = 2;
    grouped.group_ring = Bandwidth::from_gbps(400.0);
    grouped.host_copy = Bandwidth::from_gbps(200.0);
    return grouped;
  }
  Time flow(Bytes message, int copies = 1) const {
    FlowNetwork network(*context.topology, copies);
    return byteps.stream_time(network, message, 0);
  }
  std::optional<Time> hold(Bytes message) const {
    FlowNetwork network(*context.topology);
    return byteps.staged_hold(network, message);
  }

  ClusterShape shape;
  CollectiveContext context;
  BytePs byteps;
  Time latency;
};

}  // namespace

TEST_CASE("BytePS across a machine's PCIe switches: NCCL in each group, copies, the CPU's sum") {
  // 2 machines, one server, 1 MB partitions. Per partition: the group's reduce-scatter and
  // allgather 1 x (1 us + 500 KB x 0.02 ns/B) = 11 us each on the NCCL stream; each direction's
  // copies 1 MB x 0.04 ns/B = 40 us; the CPU's sum of the other group's 1 MB, 10 us; the push
  // and the pull L + 160 us each (both machines' 1 MB into the server's link), the server's sum
  // 20 us. One partition: 2L + 11 + 40 + 10 + 160 + 20 + 160 + 40 + 11 = 2L + 452 us. Two: the
  // server's link is the busiest resource (160 us against the stream's 22, the copies' 40): 2L
  // + 612 us, at both levels (at the flow level push 1 follows push 0 at L + 221, pull 1 pull 0
  // at 2L + 401, then its copy back and allgather, 51 us).
  const GroupedBytePs grouped(1, 8);
  REQUIRE(grouped.latency > Time::zero());
  CHECK(grouped.byteps.time(Bytes(1'000'000)) == grouped.latency * 2 + Time::from_us(452.0));
  CHECK(grouped.flow(Bytes(1'000'000)) == grouped.latency * 2 + Time::from_us(452.0));
  CHECK(grouped.byteps.time(Bytes(2'000'000)) == grouped.latency * 2 + Time::from_us(612.0));
  CHECK(grouped.flow(Bytes(2'000'000)) == grouped.latency * 2 + Time::from_us(612.0));
  // Kernels run the groups' rings only: 22 us a partition, 44 us for two (of 2L + 612).
  CHECK(grouped.byteps.kernel_time(Bytes(1'000'000)) == Time::from_us(22.0));
  CHECK(grouped.byteps.kernel_time(Bytes(2'000'000)) == Time::from_us(44.0));
  // Each GPU sends half the message in its group's reduce-scatter and half in the allgather,
  // and a quarter of the machine's push: 1.25 S. Re-encoded after the group's one step on half
  // of it, the CPU's sum of S and the server's of both machines' S (a stage each): 4 stages
  // of 3.5 S in all.
  CHECK(grouped.byteps.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1'250'000.0));
  CHECK(grouped.byteps.requantisation().stages == 4);
  CHECK(grouped.byteps.requantisation().chunk_fraction == doctest::Approx(3.5 / 4.0));
  // One machine without servers: the stream, the copies each way and the CPU pipeline the
  // partitions. 4 partitions: the first 11 + 40 + 10 + 40 + 11 = 112 us, each further one the
  // copies' 40: 232 us at both levels; queued behind another, all but 4 x 40 us overlaps it.
  const GroupedBytePs alone(0, 4);
  REQUIRE_FALSE(alone.byteps.distributed());
  CHECK(alone.byteps.time(Bytes(4'000'000)) == Time::from_us(232.0));
  CHECK(alone.flow(Bytes(4'000'000)) == Time::from_us(232.0));
  CHECK(alone.byteps.overlappable(Bytes(4'000'000)) == Time::from_us(72.0));
  // On one machine in groups, the copies and the CPU's sum are no kernels either: 4 x 22 us.
  CHECK(alone.byteps.kernel_time(Bytes(4'000'000)) == Time::from_us(88.0));
  // At the flow level the same: with 4 partitions more queued behind it, 112 + 7 x 40 = 392
  // us, so the message holds the pipeline 392 - 232 = 160 us, the closed form's 232 - 72.
  CHECK(alone.hold(Bytes(4'000'000)) == Time::from_us(160.0));
  // Two identical jobs on the same GPUs share their links and CPUs: every stage's bandwidth
  // part doubles, the ring steps' latency does not. 1 + 20 + 80 + 20 + 80 + 1 + 20 = 222 us
  // for the first partition, then 80 us each: 462 us.
  CHECK(alone.flow(Bytes(4'000'000), 2) == Time::from_us(462.0));
  // Re-encoded after the group's one step on half of it and the CPU's sum of S: 2 stages of
  // 1.5 S in all.
  CHECK(alone.byteps.requantisation().stages == 2);
  CHECK(alone.byteps.requantisation().chunk_fraction == doctest::Approx(0.75));
}

TEST_CASE("BytePS's groups are BYTEPS_PCIE_SWITCH_SIZE's where it cuts the machine evenly") {
  // nccl_manager.cc: 8 unless set; no group where it is the machine or more, or does not divide
  // it (BytePS warns and takes the whole machine).
  CHECK(byteps_group(8, 8) == 8);
  CHECK(byteps_group(8, 16) == 8);
  CHECK(byteps_group(4, 8) == 4);
  CHECK(byteps_group(16, 8) == 8);
  CHECK(byteps_group(3, 8) == 8);
  CHECK(byteps_group(1, 4) == 1);
}

TEST_CASE("a chunked gather splits the aggregate into as many parts as the contribution") {
  const auto ps = std::make_shared<ParameterServer>(
      test::full_context(test::workers(4, 1, ServerPlacement::dedicated)));
  const ChunkedCollective chunked(ps, 4);
  // 2 B of contribution in 4 chunks is 2 chunks of 1 B, so the 8 B aggregate is 2 parts of 4 B.
  // Each: 2 x 20.5 us + 1 B pushed and min(4 x 1, 4) = 4 B pulled at the server NIC's 3.2 ns/B
  // (4 workers' bytes through one 10 Gbps NIC): 41.016 us; two of them 82.032 us (with parts
  // of 8/4 = 2 B the pull would carry 2 B: 82.0192 us).
  CHECK(chunked.gather_time(Bytes(2), Bytes(8)) == Time::from_ps(82'032'000));
}
