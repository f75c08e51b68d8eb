// xoshiro256** and its splitmix64 seeding, written from the published algorithm description.
#include "sgdsim/core/rng.hpp"

#include <cmath>

namespace sgdsim {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

constexpr std::uint64_t rotate_left(std::uint64_t x, unsigned k) {
  return (x << k) | (x >> (64U - k));
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : state_) {
    word = splitmix64(seed);
  }
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotate_left(state_[1] * 5U, 7U) * 9U;
  const std::uint64_t t = state_[1] << 17U;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotate_left(state_[3], 45U);
  return result;
}

double Rng::next_unit() {
  return static_cast<double>(next_u64() >> 11U) * 0x1.0p-53;
}

double Rng::next_normal() {
  const double u1 = 1.0 - next_unit();
  const double u2 = next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

}  // namespace sgdsim
