// Conversions between floating-point units and integer picoseconds.
#include "sgdsim/core/units.hpp"

#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// int64 holds about 9.2e18 ps (106 days); a duration beyond that cannot be simulated. A NaN
// from a unit conversion is a bug, not a long run.
// (Not named rounded_ps: inside Time's members that name finds Time::rounded_ps, skipping this
// check.)
Time checked_ps(double picoseconds) {
  if (std::isnan(picoseconds)) SGDSIM_ASSERT(false, "a time computed as NaN");
  return Time::rounded_ps(picoseconds);
}

}  // namespace

namespace detail {

void time_out_of_range() {
  throw SimulationError(
      "a simulated time or duration beyond about 106 days (2^63 picoseconds), the longest the "
      "simulator can represent: shorten the run (iterations, run_iterations) or check for a unit "
      "mistake (a bandwidth far too low, a latency or layer time far too high)");
}

}  // namespace detail

Time Time::from_ns(double nanoseconds) {
  return checked_ps(nanoseconds * 1e3);
}
Time Time::from_us(double microseconds) {
  return checked_ps(microseconds * 1e6);
}
Time Time::from_ms(double milliseconds) {
  return checked_ps(milliseconds * 1e9);
}
Time Time::from_seconds(double seconds) {
  return checked_ps(seconds * 1e12);
}

Time transfer_time(Bytes bytes, Bandwidth bandwidth, double volume_factor) {
  SGDSIM_ASSERT(bandwidth.bits_per_second() > 0.0, "transfer over a link without bandwidth");
  SGDSIM_ASSERT(bytes.count() >= 0 && volume_factor >= 0.0, "negative transfer volume");
  return checked_ps(static_cast<double>(bytes.count()) * volume_factor * bandwidth.ps_per_byte());
}

}  // namespace sgdsim
