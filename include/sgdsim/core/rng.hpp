// A small, seeded, platform-independent random number generator (xoshiro256**, seeded through
// splitmix64; Blackman & Vigna 2018). Passed explicitly, never global, so runs are reproducible.
#pragma once

#include <array>
#include <cstdint>

namespace sgdsim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double next_unit();
  // Standard normal by Box-Muller from two uniform draws (the first taken as 1 - u, in (0, 1]).
  double next_normal();

 private:
  std::array<std::uint64_t, 4> state_{};
};

}  // namespace sgdsim
