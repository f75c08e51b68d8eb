// What all compressors share: labels, aggregation, the default decode and the building blocks.
#include "sgdsim/compression/compressor.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

Time Compressor::default_decode(std::int64_t elements) const {
  return detail::kernel_time(5.0, 8.0, kept_elements(elements), 500.0);
}

CompressorSpec make_compressor(std::string_view name, const Settings& settings,
                               Aggregation aggregation) {
  const CompressorEntry& entry = compressor_registry().at(name);
  Settings all = Settings::defaults(entry.keys);
  for (const auto& [key, value] : settings.values()) all.set(key, value);
  return CompressorSpec{entry.make(all), aggregation};
}

std::string compressor_label(const CompressorSpec& spec) {
  std::string label = spec.compressor->label();
  if (spec.aggregation == Aggregation::automatic) return label;
  return label + (spec.aggregation == Aggregation::gather ? "/gather" : "/allreduce");
}

bool gathered(const CompressorSpec& spec) {
  switch (spec.aggregation) {
    case Aggregation::automatic: return per_worker_sparse(spec);
    case Aggregation::allreduce: return false;
    case Aggregation::gather: return true;
  }
  return true;
}

namespace detail {

Time kernel_time(double launch_us, double bytes_per_element, std::int64_t elements,
                 double gb_per_s) {
  return Time::from_us(launch_us) +
         Time::from_seconds(bytes_per_element * static_cast<double>(elements) / (gb_per_s * 1e9));
}

std::int64_t ceil_log2(std::int64_t x) {
  std::int64_t bits = 0;
  while ((std::int64_t{1} << bits) < x) ++bits;
  return bits;
}

std::int64_t kept_by_density(double density, std::int64_t elements) {
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(density * static_cast<double>(elements) - 1e-9)));
}

std::int64_t level_bits(std::int64_t levels) {
  return 1 + ceil_log2(levels + 1);
}

KeySpec density_key() {
  return KeySpec::fraction("density", "fraction k/d of the elements kept");
}

KeySpec levels_key() {
  return KeySpec::integer("levels", "quantisation levels s", 1, 1 << 20);
}

void keep_top(std::span<double> x, std::int64_t k) {
  if (k >= static_cast<std::int64_t>(x.size())) return;
  std::vector<std::size_t> order(x.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto larger = [&](std::size_t a, std::size_t b) {
    return std::abs(x[a]) > std::abs(x[b]) || (std::abs(x[a]) == std::abs(x[b]) && a < b);
  };
  std::nth_element(order.begin(), order.begin() + k, order.end(), larger);
  for (auto it = order.begin() + k; it != order.end(); ++it) x[*it] = 0.0;
}

void natural_dither(std::span<double> x, std::int64_t levels, Rng& rng) {
  double norm = 0.0;
  for (const double v : x) norm += v * v;
  norm = std::sqrt(norm);
  if (norm == 0.0) return;
  const double smallest = std::ldexp(1.0, static_cast<int>(1 - levels));
  for (double& v : x) {
    const double r = std::min(1.0, std::abs(v) / norm);
    double low = 0.0;
    double high = smallest;
    if (r >= smallest) {
      int exponent = 0;
      std::frexp(r, &exponent);  // r = m 2^exponent, m in [0.5, 1)
      low = std::ldexp(1.0, exponent - 1);
      high = std::min(1.0, 2.0 * low);
    }
    const double level = high > low && rng.next_unit() < (r - low) / (high - low) ? high : low;
    v = std::copysign(level * norm, v);
  }
}

}  // namespace detail

}  // namespace sgdsim
