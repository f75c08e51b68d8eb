// Encode/decode cost: profile curves first, else the default launch + bandwidth model.
#include "sgdsim/compression/cost_model.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// launch_us + bytes_per_element * elements / (gb_per_s * 1e9), in picoseconds.
Time kernel(double launch_us, double bytes_per_element, std::int64_t elements, double gb_per_s) {
  return Time::from_us(launch_us) +
         Time::from_seconds(bytes_per_element * static_cast<double>(elements) / (gb_per_s * 1e9));
}

Time default_encode(const CompressorSpec& spec, std::int64_t d) {
  const std::int64_t k = kept_elements(spec, d);
  switch (spec.kind) {
    case CompressorKind::none:
    case CompressorKind::ratio: return Time::zero();
    case CompressorKind::fp16:
    case CompressorKind::natural:
    case CompressorKind::sign: return kernel(5.0, 8.0, d, 500.0);
    case CompressorKind::natural_dithering:
    case CompressorKind::standard_dithering: return kernel(10.0, 12.0, d, 500.0);
    case CompressorKind::topk: return kernel(30.0, 8.0, d, 50.0);
    case CompressorKind::randk: return kernel(10.0, 8.0, k, 200.0);
    case CompressorKind::topk_natural_dithering:
      return kernel(30.0, 8.0, d, 50.0) + kernel(10.0, 12.0, k, 500.0);
  }
  return Time::zero();
}

Time default_decode(const CompressorSpec& spec, std::int64_t d) {
  if (spec.kind == CompressorKind::none || spec.kind == CompressorKind::ratio) return Time::zero();
  return kernel(5.0, 8.0, kept_elements(spec, d), 500.0);
}

}  // namespace

CostCurve::CostCurve(std::vector<std::pair<std::int64_t, Time>> points)
    : points_(std::move(points)) {
  SGDSIM_ASSERT(!points_.empty(), "a cost curve needs a point");
  for (std::size_t i = 1; i < points_.size(); ++i) {
    SGDSIM_ASSERT(points_[i].first > points_[i - 1].first, "cost curve sizes must increase");
  }
}

Time CostCurve::at(std::int64_t elements) const {
  SGDSIM_ASSERT(!points_.empty(), "an empty cost curve");
  if (points_.size() == 1) {
    // One point: time proportional to size.
    const auto& [size, time] = points_.front();
    return Time::from_ps(
        static_cast<std::int64_t>(static_cast<double>(time.ps()) * static_cast<double>(elements) /
                                  static_cast<double>(size)));
  }
  std::size_t upper = 1;
  while (upper + 1 < points_.size() && points_[upper].first < elements) ++upper;
  const auto& [x0, t0] = points_[upper - 1];
  const auto& [x1, t1] = points_[upper];
  const double slope = static_cast<double>((t1 - t0).ps()) / static_cast<double>(x1 - x0);
  const double ps = static_cast<double>(t0.ps()) + slope * static_cast<double>(elements - x0);
  return Time::from_ps(std::max<std::int64_t>(0, static_cast<std::int64_t>(ps)));
}

Time encode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile) {
  const auto found = profile.find(spec.kind);
  if (found != profile.end() && !found->second.encode.empty())
    return found->second.encode.at(elements);
  return default_encode(spec, elements);
}

Time decode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile) {
  const auto found = profile.find(spec.kind);
  if (found != profile.end() && !found->second.decode.empty()) {
    return found->second.decode.at(elements);
  }
  return default_decode(spec, elements);
}

}  // namespace sgdsim
