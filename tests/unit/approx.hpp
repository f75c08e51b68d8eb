// Relative tolerances for doctest. Approx(x).epsilon(f) alone passes |a - x| < f (1 + max(|a|,
// |x|)): its default scale of 1 adds f in the value's own unit, a slack that swamps any value
// well below 1 (times in seconds, slopes in us per byte, means of unit draws).
#pragma once

#include <doctest/doctest.h>

namespace sgdsim::test {

// Within `fraction` of `expected`, and nothing more.
inline doctest::Approx relative(double expected, double fraction) {
  return doctest::Approx(expected).epsilon(fraction).scale(0.0);
}

}  // namespace sgdsim::test
