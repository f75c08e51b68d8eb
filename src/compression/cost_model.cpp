// Encode/decode cost: profile curves first, else the compressor's default model.
#include "sgdsim/compression/cost_model.hpp"

#include "sgdsim/core/error.hpp"

namespace sgdsim {

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
  const auto found = profile.find(spec.compressor->name());
  if (found != profile.end() && !found->second.encode.empty())
    return found->second.encode.at(elements);
  return spec.compressor->default_encode(elements);
}

Time decode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile) {
  const auto found = profile.find(spec.compressor->name());
  if (found != profile.end() && !found->second.decode.empty()) {
    return found->second.decode.at(elements);
  }
  return spec.compressor->default_decode(elements);
}

}  // namespace sgdsim
