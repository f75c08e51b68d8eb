// Tests for core/rng.hpp.
#include <doctest/doctest.h>

#include "approx.hpp"
#include "printers.hpp"

#include "sgdsim/core/rng.hpp"

using namespace sgdsim;

TEST_CASE("the same seed gives the same sequence and another seed a different one") {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    CHECK(x == b.next_u64());
    differs = differs || x != c.next_u64();
  }
  CHECK(differs);
}

TEST_CASE("unit draws lie in [0, 1) with mean one half") {
  Rng rng(1);
  double sum = 0.0;
  const int draws = 100'000;
  for (int i = 0; i < draws; ++i) {
    const double u = rng.next_unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  // Standard error of the mean of U(0,1): sqrt(1/12) / sqrt(1e5) = 0.0009; allow 5 of them.
  CHECK(sum / draws == test::relative(0.5, 0.009));
}
