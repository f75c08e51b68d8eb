// Tests for collectives/ring_allreduce.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "test_support.hpp"

#include "sgdsim/collectives/ring_allreduce.hpp"

using namespace sgdsim;

TEST_CASE("ring allreduce on 4 gpus takes 2(p-1) startups and moves 2(p-1)/p of the message") {
  const RingAllreduce ring(4, LinkModel{Time::from_us(5.0), Bandwidth::from_gbps(10.0)});
  // 2*3*5 us = 30 us; 1.5 * 1e6 B * 0.8 ns/B = 1200 us; total 1230 us.
  CHECK(ring.time(Bytes(1'000'000)) == Time::from_us(1230.0));
  CHECK(ring.linear_cost().startup == Time::from_us(30.0));
  CHECK(ring.linear_cost().ps_per_byte == doctest::Approx(1200.0));  // 1.5 * 800 ps
  CHECK(ring.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1.5e6));
}

TEST_CASE("a ring of one rank communicates nothing") {
  const RingAllreduce ring(1, LinkModel{Time::from_us(5.0), Bandwidth::from_gbps(10.0)});
  CHECK(ring.time(Bytes(1'000'000)) == Time::zero());
}

TEST_CASE("on a cluster the ring's bandwidth is the slowest link's, its latency each hop's") {
  ClusterShape shape;
  shape.gpus = 16;
  shape.gpus_per_node = 4;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(25.0)};
  const RingAllreduce ring = RingAllreduce::on(test::full_context(shape));
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
