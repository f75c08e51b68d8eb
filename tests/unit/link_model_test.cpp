// Tests for network/link_model.hpp.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "printers.hpp"

#include "sgdsim/collectives/ring_allreduce.hpp"
#include "sgdsim/network/link_model.hpp"

using namespace sgdsim;

TEST_CASE("a measured 8-GPU allreduce fit becomes the link that reproduces it") {
  // B-Caffe's 10GbE cluster, 8 nodes: a = 832 us, b = 3.34 ns/byte (shared/reference README).
  const MeasuredAllreduce fit{8, Time::from_us(832.0), 3340.0};
  const LinkModel link = link_from_ring_fit(fit);
  // alpha = 832 / (2 * 7) = 59.428571 us
  CHECK(link.alpha.us() == doctest::Approx(59.428571));
  // link ps/byte = 3340 * 8 / 14 = 1908.571; bandwidth = 8e12 / 1908.571 bit/s = 4.1916 Gbps
  CHECK(link.bandwidth.gbps() == test::relative(4.19162, 1e-5));
  // And back: the ring on 8 ranks over this link has the measured startup and slope.
  const RingAllreduce ring(8, link);
  CHECK(ring.linear_cost().startup.us() == doctest::Approx(832.0));
  CHECK(ring.linear_cost().ps_per_byte == doctest::Approx(3340.0));
}

TEST_CASE("the measurement nearest on a log scale is chosen, larger on ties") {
  const std::vector<MeasuredAllreduce> fits{
      {2, Time::from_us(1.0), 1.0}, {8, Time::from_us(2.0), 1.0}, {32, Time::from_us(3.0), 1.0}};
  CHECK(select_measurement(fits, 8).gpus == 8);
  CHECK(select_measurement(fits, 3).gpus == 2);  // log2(3/2)=0.58 < log2(8/3)=1.42
  CHECK(select_measurement(fits, 4).gpus == 8);  // 1 octave either way: the larger
  CHECK(select_measurement(fits, 2048).gpus == 32);
}

TEST_CASE("a message over a link pays the startup once") {
  const LinkModel link{Time::from_us(10.0), Bandwidth::from_gbps(10.0)};
  CHECK(link.message_time(Bytes(1'000'000)) == Time::from_us(810.0));  // 10 us + 800 us
}
