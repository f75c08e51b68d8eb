// Data sizes and link speeds as strong types, and the one function in sgdsim that turns a number
// of bytes on a link into a duration. Every transfer time in the simulator goes through it.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>

#include "sgdsim/core/time.hpp"

namespace sgdsim {

// A count read as a double that may be cast: a whole number from low to high (false for NaN).
inline bool whole_in(double value, double low, double high) {
  return value >= low && value <= high && value == std::floor(value);
}

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t count) : count_(count) {}
  static constexpr Bytes from_mib(double mebibytes) {
    return Bytes(static_cast<std::int64_t>(mebibytes * 1024.0 * 1024.0));
  }

  constexpr std::int64_t count() const { return count_; }
  constexpr double megabytes() const { return static_cast<double>(count_) * 1e-6; }
  constexpr double mebibytes() const { return static_cast<double>(count_) / (1024.0 * 1024.0); }

  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes other) const { return Bytes(count_ + other.count_); }
  constexpr Bytes& operator+=(Bytes other) {
    count_ += other.count_;
    return *this;
  }

 private:
  std::int64_t count_ = 0;
};

// Link speed in bits per second (decimal units: 1 Gbps = 1e9 bit/s, as link rates are quoted).
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth from_gbps(double gigabits_per_second) {
    return Bandwidth(gigabits_per_second * 1e9);
  }
  static constexpr Bandwidth from_bits_per_second(double bits_per_second) {
    return Bandwidth(bits_per_second);
  }

  constexpr double bits_per_second() const { return bits_per_second_; }
  constexpr double gbps() const { return bits_per_second_ * 1e-9; }
  // Picoseconds one byte occupies the link: 8 bits / rate, times 1e12 ps per second.
  constexpr double ps_per_byte() const { return 8e12 / bits_per_second_; }

  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(double bits_per_second) : bits_per_second_(bits_per_second) {}
  double bits_per_second_ = 0.0;
};

// Time to push `volume_factor * bytes` through a link of `bandwidth`:
//   t = volume_factor * bytes * 8 / bits_per_second,
// rounded to the nearest picosecond (a picosecond is below any effect we model, and rounding to
// nearest keeps sums of many messages unbiased). volume_factor carries the fractional volumes of
// collectives such as 2(N-1)/N. Bandwidth must be positive.
Time transfer_time(Bytes bytes, Bandwidth bandwidth, double volume_factor = 1.0);

}  // namespace sgdsim
