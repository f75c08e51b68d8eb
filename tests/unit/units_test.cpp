// Tests for core/time.hpp and core/units.hpp.
#include <doctest/doctest.h>

#include <cmath>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/units.hpp"

using namespace sgdsim;

TEST_CASE("time converts between units and rounds to the nearest picosecond") {
  CHECK(Time::from_us(1.5).ps() == 1'500'000);
  CHECK(Time::from_ms(2.0).ps() == 2'000'000'000);
  CHECK(Time::from_ns(0.0004).ps() == 0);  // 0.4 ps rounds down
  CHECK(Time::from_ns(0.0006).ps() == 1);  // 0.6 ps rounds up
  CHECK(Time::from_seconds(1.0).us() == doctest::Approx(1e6));
}

TEST_CASE("one megabyte over 10 Gbps takes 0.8 ms") {
  // 1e6 bytes * 8 bits / 1e10 bit/s = 8e-4 s = 8e8 ps.
  CHECK(transfer_time(Bytes(1'000'000), Bandwidth::from_gbps(10.0)).ps() == 800'000'000);
}

TEST_CASE("transfer volume factors scale the time") {
  // Ring allreduce on 4 ranks moves 2(4-1)/4 = 1.5 times the message: 1.5 * 0.8 ms = 1.2 ms.
  CHECK(transfer_time(Bytes(1'000'000), Bandwidth::from_gbps(10.0), 1.5).ps() == 1'200'000'000);
}

TEST_CASE("a link without bandwidth is an internal error, not a silent zero") {
  CHECK_THROWS_AS(transfer_time(Bytes(1), Bandwidth::from_gbps(0.0)), InvariantError);
}

TEST_CASE("a unit conversion that yields NaN is an internal error, not a long run") {
  // NaN is no duration at all: a bug upstream, unlike a finite time past the range.
  const double nan = std::nan("");
  CHECK_THROWS_AS(Time::from_ns(nan), InvariantError);
  CHECK_THROWS_AS(Time::from_us(nan), InvariantError);
  CHECK_THROWS_AS(Time::from_ms(nan), InvariantError);
  CHECK_THROWS_AS(Time::from_seconds(nan), InvariantError);
}

TEST_CASE("a mebibyte is 1048576 bytes") {
  CHECK(Bytes::from_mib(25).count() == 26'214'400);
}

TEST_CASE("picoseconds round half away from zero, as std::llround does, and stay in range") {
  // Halves go away from zero on both sides; anything else to the nearest whole picosecond.
  CHECK(Time::rounded_ps(2.5).ps() == 3);
  CHECK(Time::rounded_ps(2.4999).ps() == 2);
  CHECK(Time::rounded_ps(-2.5).ps() == -3);
  CHECK(Time::rounded_ps(-2.4999).ps() == -2);
  CHECK(Time::rounded_ps(0.49999999999999994).ps() == 0);  // the largest double below 0.5
  // 2^53 + 2 is a whole double: it passes unchanged.
  CHECK(Time::rounded_ps(9007199254740994.0).ps() == 9007199254740994);
  // 9e18 ps (about 104 days) is past what the simulator accepts: a run that cannot finish.
  CHECK_THROWS_AS(Time::rounded_ps(9.0e18), SimulationError);
  CHECK_THROWS_AS(Time::rounded_ps(-1e300), SimulationError);
}
