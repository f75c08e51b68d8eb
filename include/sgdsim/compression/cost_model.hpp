// Encode and decode time of a compressor on the GPU, as a function of the message's elements.
// Either measured (a gpu_probe profile: points of elements -> microseconds, interpolated
// linearly and extrapolated along the last segment) or the compressor's documented default.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sgdsim/compression/compressor.hpp"
#include "sgdsim/core/time.hpp"

namespace sgdsim {

// Measured (elements, time) points, sorted by elements.
class CostCurve {
 public:
  CostCurve() = default;
  // At least one point, elements strictly increasing, times >= 0 (checked by the caller).
  explicit CostCurve(std::vector<std::pair<std::int64_t, Time>> points);
  Time at(std::int64_t elements) const;
  bool empty() const { return points_.empty(); }

 private:
  std::vector<std::pair<std::int64_t, Time>> points_;
};

struct CompressorCosts {
  CostCurve encode;
  CostCurve decode;
};

// Costs by compressor name, for the compressors a profile measured.
using CompressionProfile = std::map<std::string, CompressorCosts, std::less<>>;

// Measured curves when the profile has them, else the compressor's own default model
// (Compressor::default_encode and default_decode).
Time encode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile);
Time decode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile);

}  // namespace sgdsim
