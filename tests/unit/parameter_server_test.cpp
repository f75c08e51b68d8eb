// Tests for collectives/parameter_server.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"
#include "test_support.hpp"

#include "sgdsim/collectives/parameter_server.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"

using namespace sgdsim;

namespace {

ClusterShape workers(int gpus, int servers, ServerPlacement placement) {
  ClusterShape shape;
  shape.gpus = gpus;
  shape.gpus_per_node = 1;
  shape.intra_node = {Bandwidth::from_gbps(256.0), Time::from_us(1.0)};
  shape.network = {Bandwidth::from_gbps(10.0), Time::from_us(20.0)};
  shape.servers = servers;
  shape.server_placement = placement;
  shape.server_link = shape.network;
  return shape;
}

}  // namespace

TEST_CASE("one dedicated server for 4 workers is bound by its NIC carrying 4 gradients") {
  const ParameterServer ps(test::full_context(workers(4, 1, ServerPlacement::dedicated)));
  // Startup: GPU link 0.5 us + NIC 10 us + server NIC 10 us = 20.5 us per phase.
  // Bandwidth: max(1 * S, 4 * S / 1) / 10 Gbps = 4 * 0.8 ms = 3.2 ms per phase for S = 1 MB.
  // Push + pull: 2 * (20.5 us + 3200 us) = 6441 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(6441.0));
  CHECK(ps.bytes_sent_per_rank(Bytes(1'000'000)) == doctest::Approx(1e6));
}

TEST_CASE("as many dedicated servers as workers leave the worker NIC as the bottleneck") {
  const ParameterServer ps(test::full_context(workers(4, 4, ServerPlacement::dedicated)));
  // max(S, 4 * S / 4) = S: 0.8 ms per phase; 2 * (20.5 + 800) us = 1641 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(1641.0));
}

TEST_CASE("co-located servers on every worker move what a ring moves, with two startups") {
  const ParameterServer ps(test::full_context(workers(4, 4, ServerPlacement::colocated)));
  // Per phase each NIC carries (N-1)/N * S = 0.75 MB: 600 us; startup from worker 3 to the
  // server on node 0: 0.5 + 10 + 10 + 0.5 = 21 us. Total 2 * (21 + 600) = 1242 us.
  CHECK(ps.time(Bytes(1'000'000)) == Time::from_us(1242.0));
  // The ring moves the same 2(N-1)/N * S but pays 2(N-1) = 6 startups of 21 us.
  const RingAllreduce ring =
      RingAllreduce::on(test::full_context(workers(4, 0, ServerPlacement::colocated)));
  CHECK(ring.time(Bytes(1'000'000)) - ps.time(Bytes(1'000'000)) == Time::from_us(4 * 21.0));
}
