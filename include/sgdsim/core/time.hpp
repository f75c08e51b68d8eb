// Simulated time: a signed 64-bit count of picoseconds (range about +-106 days), so event order
// is exact and long sums never drift the way floating-point seconds would. Arithmetic that would
// leave the range throws SimulationError (a run that cannot be represented: exit 3), never wraps.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace sgdsim {

namespace detail {
[[noreturn]] void time_out_of_range();
}  // namespace detail

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time from_ps(std::int64_t picoseconds) { return Time(picoseconds); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }
  // The magnitude a converted double must stay below (just under 2^63 ps, about 104 days);
  // readers and diagnoses compare against it instead of converting.
  static constexpr double max_convertible_ps = 9.0e18;
  // Conversions from floating-point units round to the nearest picosecond.
  static Time from_ns(double nanoseconds);
  static Time from_us(double microseconds);
  static Time from_ms(double milliseconds);
  static Time from_seconds(double seconds);
  // A count of picoseconds rounded half away from zero, as std::llround rounds, but inline (it
  // is on per_rank's hot path). Beyond the range, or NaN, it throws like the arithmetic below.
  static Time rounded_ps(double picoseconds) {
    if (!(picoseconds > -max_convertible_ps && picoseconds < max_convertible_ps)) {
      detail::time_out_of_range();
    }
    // Below 2^52 the fraction is exact; above it every double is a whole number.
    const auto whole = static_cast<std::int64_t>(picoseconds);
    const double fraction = picoseconds - static_cast<double>(whole);
    return Time(whole + (fraction >= 0.5 ? 1 : 0) - (fraction <= -0.5 ? 1 : 0));
  }

  // This time multiplied by `factor`, rounded to the picosecond (exact for factor 1).
  Time scaled(double factor) const {
    return factor == 1.0 ? *this : rounded_ps(static_cast<double>(picoseconds_) * factor);
  }

  constexpr std::int64_t ps() const { return picoseconds_; }
  constexpr double ns() const { return static_cast<double>(picoseconds_) * 1e-3; }
  constexpr double us() const { return static_cast<double>(picoseconds_) * 1e-6; }
  constexpr double ms() const { return static_cast<double>(picoseconds_) * 1e-9; }
  constexpr double seconds() const { return static_cast<double>(picoseconds_) * 1e-12; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time other) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(picoseconds_, other.picoseconds_, &sum)) detail::time_out_of_range();
    return Time(sum);
  }
  constexpr Time operator-(Time other) const {
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(picoseconds_, other.picoseconds_, &difference))
      detail::time_out_of_range();
    return Time(difference);
  }
  constexpr Time operator*(std::int64_t factor) const {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(picoseconds_, factor, &product)) detail::time_out_of_range();
    return Time(product);
  }
  constexpr Time& operator+=(Time other) { return *this = *this + other; }
  constexpr Time& operator-=(Time other) { return *this = *this - other; }

 private:
  constexpr explicit Time(std::int64_t picoseconds) : picoseconds_(picoseconds) {}
  std::int64_t picoseconds_ = 0;
};

}  // namespace sgdsim
