// Tests for core/error.hpp.
#include <doctest/doctest.h>

#include "printers.hpp"

#include "sgdsim/core/error.hpp"

using namespace sgdsim;

TEST_CASE("value errors read: source, path, expected, found") {
  CHECK(
      std::string(value_error("a.json", "network.bandwidth_gbps", "a number > 0", "-10").what()) ==
      "a.json: network.bandwidth_gbps: expected a number > 0, found -10");
}

TEST_CASE("broken invariants throw even in release builds") {
  CHECK_THROWS_AS(SGDSIM_ASSERT(1 + 1 == 3, "arithmetic"), InvariantError);
}
