// Tests for collectives/ring_allreduce.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "test_support.hpp"

#include "sgdsim/collectives/chunked_collective.hpp"
#include "sgdsim/collectives/flow_collective.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"

using namespace sgdsim;

namespace {

// Nodes of `per_node` GPUs: 256 Gbps and 1 us inside, 10 Gbps NICs of `network_us` between.
ClusterShape nodes_of(int gpus, int per_node, double network_us) {
  ClusterShape shape;
  shape.gpus = gpus;
  shape.gpus_per_node = per_node;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(network_us)};
  return shape;
}

}  // namespace

TEST_CASE("ring allreduce on 4 gpus takes 2(p-1) startups and moves 2(p-1)/p of the message") {
  const RingAllreduce ring(4, LinkModel{Time::from_us(5.0), Bandwidth::from_gbps(10.0)});
  // 2*3*5 us = 30 us; 1.5 * 1e6 B * 0.8 ns/B = 1200 us; total 1230 us.
  CHECK(ring.time(Bytes(1'000'000)) == Time::from_us(1230.0));
  CHECK(ring.linear_cost().startup == Time::from_us(30.0));
  CHECK(ring.linear_cost().ps_per_byte == doctest::Approx(1200.0));  // 1.5 * 800 ps
  CHECK(ring.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1.5e6));
  // NCCL's kernels run all of it (what slows compute beside it).
  CHECK(ring.kernel_time(Bytes(1'000'000)) == Time::from_us(1230.0));
}

TEST_CASE("a ring of one rank communicates nothing") {
  const RingAllreduce ring(1, LinkModel{Time::from_us(5.0), Bandwidth::from_gbps(10.0)});
  CHECK(ring.time(Bytes(1'000'000)) == Time::zero());
}

TEST_CASE("on a cluster the ring's bandwidth is the slowest link's, its latency each hop's") {
  const RingAllreduce ring = RingAllreduce::on(test::full_context(nodes_of(16, 4, 25.0)));
  CHECK(ring.ranks() == 16);
  CHECK(ring.hop().alpha == Time::from_us(26.0));  // 25 us network + 1 us in the nodes
  CHECK(ring.hop().bandwidth.gbps() == doctest::Approx(10.0));
  // One pass round the ring of 4 nodes crosses 3 node boundaries at 26 us and takes 16 - 4 = 12
  // steps inside nodes at 1 us (NCCL's count: 2(nNodes-1) network steps per allreduce):
  // t(0) = 2 * (3 * 26 + 12 * 1) us = 180 us, not the 2 * 15 * 26 = 780 us of a ring that waits
  // for its slowest hop at every step.
  CHECK(ring.pass().total() == Time::from_us(90.0));
  CHECK(ring.time(Bytes(0)) == Time::from_us(180.0));
  // The gather goes round once: 90 us.
  CHECK(ring.gather_time(Bytes(0), Bytes(0)) == Time::from_us(90.0));
}

TEST_CASE("a ring run in chunks one after another pays every chunk's startup") {
  const auto ring =
      std::make_shared<RingAllreduce>(4, LinkModel{Time::from_us(5.0), Bandwidth::from_gbps(10.0)});
  const ChunkedCollective chunked(ring, 4);
  // Four chunks of 250,000 B, each a whole ring: 30 us + 1.5 * 250,000 B * 0.8 ns/B = 330 us;
  // 4 x 330 us = 1320 us: the 1230 us of one message plus 3 more startups of 30 us.
  CHECK(chunked.time(Bytes(1'000'000)) == Time::from_us(1320.0));
  CHECK(chunked.kernel_time(Bytes(1'000'000)) == Time::from_us(1320.0));  // the chunks' kernels
  CHECK(chunked.linear_cost().startup == Time::from_us(120.0));
  CHECK(chunked.linear_cost().ps_per_byte == doctest::Approx(1200.0));
  CHECK(chunked.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1.5e6));
  // 10 B in 4 chunks: two of 3 B and two of 2 B; each ring moves 1.5 x its bytes at 0.8 ns/B:
  // 4 x 30 us + 1.5 x 10 B x 0.8 ns = 120.012 us.
  CHECK(chunked.time(Bytes(10)) == Time::from_ps(120'012'000));
  // A message smaller than the chunk count is sent byte by byte: 3 B are 3 chunks, 90.0036 us.
  CHECK(chunked.time(Bytes(3)) == Time::from_ps(90'003'600));
  // Each chunk is reduced in the ring's N-1 stages on its own: 12 stages of S/16.
  CHECK(chunked.requantisation().stages == 12);
  CHECK(chunked.requantisation().chunk_fraction == doctest::Approx(1.0 / 16.0));
  // The gather (allgather of contributions) is chunked alike: 4 x (15 us + 3 x 2,500 B x 0.8 ns).
  CHECK(chunked.gather_time(Bytes(10'000), Bytes(40'000)) == Time::from_us(84.0));
  // Behind another message only the first chunk's startup runs beside its data (30 us, not the
  // four chunks' 120); queued on the FIFO stream a ring runs nothing beside it, and a collective
  // that pipelines queued messages keeps its first chunk's overlap (its 0.5 ms startup).
  CHECK(chunked.overlappable(Bytes(1'000'000)) == Time::from_us(30.0));
  CHECK(chunked.queued_overlap(Bytes(1'000'000)) == Time::zero());
  const ChunkedCollective pipelined(
      std::make_shared<test::LinearCollective>(Time::from_us(500.0), 1e6, true), 4);
  CHECK(pipelined.queued_overlap(Bytes(4000)) == Time::from_us(500.0));
  // Its chunks pipeline as queued messages: 4 chunks of 1,000 B at 500 us + 1,000 us each, each
  // after the first running its 500 us startup beside the one ahead: 1,500 + 3 x 1,000 us.
  CHECK(pipelined.time(Bytes(4000)) == Time::from_us(4500.0));
}

TEST_CASE("chunks at flow fidelity: the chunks' programs in a row take the chunked time") {
  const auto context = test::full_context(nodes_of(8, 2, 5.0));
  const auto flow = std::make_shared<FlowCollective>(
      std::make_unique<RingAllreduce>(RingAllreduce::on(context)), context.topology, 1);
  const ChunkedCollective chunked(flow, 3);
  const Bytes message(3'000'001);  // chunks of 1,000,001 + 2 x 1,000,000 B
  const Time expected = flow->time(Bytes(1'000'001)) + flow->time(Bytes(1'000'000)) * 2;
  CHECK(chunked.time(message) == expected);
  // A ring's kernels run all its flow-level time, chunk by chunk.
  CHECK(flow->kernel_time(Bytes(1'000'000)) == flow->time(Bytes(1'000'000)));
  CHECK(chunked.kernel_time(message) == expected);
  // Its transfer program is the three chunk programs in a row; run as one program on an idle
  // network it takes the sum of the three (each chunk starts on an idle network).
  const TransferProgram program = chunked.program(message);
  CHECK(program.size() == 3 * flow->programs()->program(Bytes(1'000'000)).size());
  FlowNetwork network(*context.topology);
  CHECK(network.run({program}).front() == expected);
}
