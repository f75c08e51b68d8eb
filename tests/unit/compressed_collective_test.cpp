// Tests for collectives/compressed_collective.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/collectives/compressed_collective.hpp"
#include "sgdsim/collectives/parameter_server.hpp"
#include "sgdsim/collectives/ring_allreduce.hpp"
#include "test_support.hpp"

using namespace sgdsim;

namespace {

// 8 ranks, alpha 10 us, 10 Gbps (800 ps per byte).
CollectivePtr ring8() {
  return std::make_unique<RingAllreduce>(
      8, LinkModel{Time::from_us(10.0), Bandwidth::from_gbps(10.0)});
}

}  // namespace

TEST_CASE("rows gathered beside a compressed allreduce go through the inner gather as they are") {
  // communication.allgather_gradients with fp16: the dense tensors are halved, the rows are
  // allgathered uncompressed, as Horovod does for an IndexedSlices (sgdsim stopped on an
  // internal check here once: the compressed collective had no gather).
  const CollectivePtr inner = ring8();
  const Gather* ring_gather = inner->gather();
  REQUIRE(ring_gather != nullptr);
  const CompressedCollective fp16(
      make_compressor("fp16", test::density(1.0), Aggregation::automatic), {}, 4,
      std::shared_ptr<const Collective>(ring8()));
  REQUIRE(fp16.gather() != nullptr);
  CHECK(fp16.gather()->gather_time(Bytes(100'000), Bytes(800'000)) ==
        ring_gather->gather_time(Bytes(100'000), Bytes(800'000)));
}

TEST_CASE("fp16 halves the bytes of a ring allreduce and adds encode and decode") {
  const CompressedCollective fp16(
      make_compressor("fp16", test::density(1.0), Aggregation::automatic), {}, 4, ring8());
  // 1e6 fp32 elements = 4e6 B -> 2e6 B on the wire.
  CHECK(fp16.wire_bytes(Bytes(4'000'000)) == Bytes(2'000'000));
  // Ring: 2*7*10 us = 140 us + 2*7/8 * 2e6 B * 0.8 ns = 2800 us -> 2940 us.
  // Encode: 5 us + 8 B * 1e6 / 500 GB/s = 21 us. Decode: 5 + 16 = 21 us. Total 2982 us.
  CHECK(fp16.time(Bytes(4'000'000)) == Time::from_us(2982.0));
  CHECK(fp16.bytes_sent_per_rank(Bytes(4'000'000)) == doctest::Approx(3.5e6));  // 1.75 * 2e6
  // Launched behind another message (ByteScheduler), the encoding and the ring's startup run
  // beside its data: 21 + 140 = 161 us. Queued on the FIFO stream the ring runs nothing beside
  // it; a collective that pipelines queued messages (its 0.5 ms startup) keeps doing so under
  // compression, its encoding too: 521 us.
  CHECK(fp16.overlappable(Bytes(4'000'000)) == Time::from_us(161.0));
  CHECK(fp16.queued_overlap(Bytes(4'000'000)) == Time::zero());
  const CompressedCollective pipelined(
      make_compressor("fp16", test::density(1.0), Aggregation::automatic), {}, 4,
      std::make_unique<test::LinearCollective>(Time::from_us(500.0), 1e6, true));
  CHECK(pipelined.queued_overlap(Bytes(4'000'000)) == Time::from_us(521.0));
}

TEST_CASE("top-k contributions are gathered round the ring and each one decoded") {
  const CompressedCollective topk(
      make_compressor("topk", test::density(0.01), Aggregation::automatic), {}, 4, ring8());
  // d = 1e6: k = 10,000 at 52 bits = 520,000 bits = 65,000 B per contribution.
  CHECK(topk.wire_bytes(Bytes(4'000'000)) == Bytes(65'000));
  // Allgather: 7 * 10 us + 7 * 65,000 B * 0.8 ns = 70 + 364 = 434 us.
  // Encode: 30 us + 8e6 B / 50 GB/s = 190 us. Decode 7 contributions of k = 10,000:
  // 7 * (5 + 0.16) us = 36.12 us. Total 660.12 us.
  CHECK(topk.time(Bytes(4'000'000)) == Time::from_us(660.12));
  CHECK(topk.bytes_sent_per_rank(Bytes(4'000'000)) == doctest::Approx(455'000.0));  // 7 * 65,000
}

TEST_CASE("gathering grows with the number of ranks while a ring allreduce does not") {
  const CompressorSpec topk = make_compressor("topk", test::density(0.01));
  auto ring = [](int ranks) {
    return std::make_unique<RingAllreduce>(
        ranks, LinkModel{Time::from_us(10.0), Bandwidth::from_gbps(10.0)});
  };
  const CompressedCollective small(topk, {}, 4, ring(8));
  const CompressedCollective large(topk, {}, 4, ring(1024));
  const RingAllreduce dense(1024, LinkModel{Time::from_us(10.0), Bandwidth::from_gbps(10.0)});
  // At 1024 ranks the gather moves 1023 * 65 kB = 66.5 MB per rank, more than the dense
  // allreduce's 2 * 1023/1024 * 4 MB = 8 MB: compression no longer pays.
  CHECK(large.time(Bytes(4'000'000)) > dense.time(Bytes(4'000'000)));
  CHECK(small.time(Bytes(4'000'000)) <
        RingAllreduce(8, LinkModel{Time::from_us(10.0), Bandwidth::from_gbps(10.0)})
            .time(Bytes(4'000'000)));
}

TEST_CASE("quantised messages are summed in the ring with a re-encode at every reduce step") {
  const CompressedCollective natural(
      make_compressor("natural", test::density(1.0), Aggregation::automatic), {}, 4, ring8());
  // d = 1e6: 9 bits each = 1,125,000 B. Ring: 140 us + 1.75 * 1.125e6 B * 0.8 ns = 1715 us.
  // Encode and final decode of d: 5 + 8e6 B / 500 GB/s = 21 us each. Re-quantisation: 7 steps
  // on chunks of 125,000 elements, each a decode and an encode of 5 + 2 us: 98 us. 1855 us.
  CHECK(natural.time(Bytes(4'000'000)) == Time::from_us(1855.0));
  // Asked to gather instead: 7 * 10 us + 7 * 1.125e6 B * 0.8 ns = 6370 us of transfer,
  // 21 us encode, 7 decodes of 21 us = 147 us: 6538 us.
  const CompressedCollective gathered_natural(
      make_compressor("natural", test::density(1.0), Aggregation::gather), {}, 4, ring8());
  CHECK(gathered_natural.time(Bytes(4'000'000)) == Time::from_us(6538.0));
  // The ring's GPUs run all of it, the requantising steps included: kernels the whole 1,855 us.
  CHECK(natural.kernel_time(Bytes(4'000'000)) == Time::from_us(1855.0));
}

TEST_CASE("beside parameter servers only a worker's own encoding and decoding are kernels") {
  // 4 workers, 2 dedicated servers at 10 Gbit/s: the servers' CPUs decode, add and re-encode
  // the 4 contributions, copy engines move them. The worker encodes d = 1e6 elements and decodes
  // the sum, 21 us each (as above): 42 us of kernels, however long the rest takes.
  const CompressedCollective natural(
      make_compressor("natural", test::density(1.0), Aggregation::automatic), {}, 4,
      std::make_shared<ParameterServer>(
          test::full_context(test::workers(4, 2, ServerPlacement::dedicated))));
  CHECK(natural.time(Bytes(4'000'000)) > Time::from_us(42.0));
  CHECK(natural.kernel_time(Bytes(4'000'000)) == Time::from_us(42.0));
}

TEST_CASE("compression composes the inner collective's roles and refuses what it cannot do") {
  // A hand-built ring has the allreduce and gather roles but no transfer programs (no topology).
  const auto ring = std::make_shared<const RingAllreduce>(
      8, LinkModel{Time::from_us(10.0), Bandwidth::from_gbps(10.0)});
  CHECK(ring->gather() != nullptr);
  CHECK(ring->programs() == nullptr);
  const CompressedCollective topk(make_compressor("topk", test::density(0.01)), {}, 4, ring);
  CHECK(topk.programs() == nullptr);  // none to compose
  // Compressed messages are not gathered again; rows gathered beside them (allgather_gradients)
  // go through the ring's own gather, as they are.
  CHECK(topk.gather() == ring->gather());

  // An allreduce-only collective carries summable formats but not gathered ones.
  const auto linear = std::make_shared<const test::LinearCollective>(Time::from_us(10.0), 800.0);
  const CompressedCollective fp16(make_compressor("fp16"), {}, 4, linear);
  // 2e6 wire bytes * 800 ps = 1600 us + 10 us, plus encode and decode of 21 us each (above).
  CHECK(fp16.time(Bytes(4'000'000)) == Time::from_us(1652.0));
  CHECK(test::input_error_of([&] {
          const CompressedCollective refused(make_compressor("topk", test::density(0.01)), {}, 4,
                                             linear);
        }) ==
        "compressor topk(density=0.01) aggregates by gathering contributions, which collective "
        "linear-test "
        "cannot do");
}
