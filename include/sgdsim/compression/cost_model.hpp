// Encode and decode time of a compressor on the GPU, as a function of the message's elements.
// Either measured (a gpu_probe profile: points of elements -> microseconds, interpolated
// linearly and extrapolated along the last segment) or the documented default below.
#pragma once

#include <cstdint>
#include <map>
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

// Costs by compressor, for the compressors a profile measured.
using CompressionProfile = std::map<CompressorKind, CompressorCosts>;

// Default model, used when no profile is given: a kernel launch plus memory traffic at an
// effective bandwidth (assumptions, not measurements; see scenarios/README.md):
//   encode  fp16, natural, sign: 5 us + 8 B/element at 500 GB/s
//           dithering: 10 us + 12 B/element at 500 GB/s (a norm pass, then quantisation)
//           topk: 30 us + 8 B/element at 50 GB/s (selection is the slow part on GPUs)
//           randk: 10 us + 8 B/kept element at 200 GB/s (indices from the shared seed)
//           topk_natural_dithering: topk's cost + dithering on the k kept elements
//   decode  5 us + 8 B per decoded element at 500 GB/s (k for sparse formats, d for dense)
//   none and ratio cost nothing.
Time encode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile);
Time decode_time(const CompressorSpec& spec, std::int64_t elements,
                 const CompressionProfile& profile);

}  // namespace sgdsim
