// Standard dithering (QSGD, Alistarh et al. 2017): the norm, then per element a sign and one of
// s uniform levels. Unbiased with omega = min(d/s^2, sqrt(d)/s).
#include <fmt/format.h>

#include <cmath>

#include "sgdsim/compression/compressor.hpp"

#include <algorithm>

namespace sgdsim {

namespace {

class StandardDithering final : public Compressor {
 public:
  explicit StandardDithering(std::int64_t levels)
      : Compressor("standard_dithering"), levels_(levels) {}
  std::string label() const override {
    return fmt::format("standard_dithering(levels={})", levels_);
  }
  // 32 + d (1 + ceil(log2(s + 1))): the norm, then sign and level per element.
  std::int64_t wire_bits(std::int64_t d) const override {
    return 32 + d * detail::level_bits(levels_);
  }
  CompressionQuality quality(std::int64_t elements) const override {
    const auto d = static_cast<double>(elements);
    const auto s = static_cast<double>(levels_);
    return {std::nullopt, std::min(d / (s * s), std::sqrt(d) / s)};
  }
  // A norm pass, then quantisation: 10 us + 12 B/element at 500 GB/s.
  Time default_encode(std::int64_t d) const override {
    return detail::kernel_time(10.0, 12.0, d, 500.0);
  }
  // |x_i| / |x| in [0, 1] rounded at random to one of its two neighbours among l / s (QSGD).
  bool apply(std::span<double> x, Rng& rng) const override {
    double norm = 0.0;
    for (const double v : x) norm += v * v;
    norm = std::sqrt(norm);
    if (norm == 0.0) return true;
    const double s = static_cast<double>(levels_);
    for (double& v : x) {
      const double scaled = std::min(1.0, std::abs(v) / norm) * s;
      const double low = std::floor(scaled);
      const double level = rng.next_unit() < scaled - low ? low + 1.0 : low;
      v = std::copysign(level / s * norm, v);
    }
    return true;
  }

 private:
  std::int64_t levels_;
};

}  // namespace

CompressorEntry standard_dithering_compressor() {
  return {{"standard_dithering",
           "QSGD: the norm, then sign and one of s uniform levels",
           {detail::levels_key()},
           {"qsgd"},
           {}},
          [](const Settings& settings) {
            return std::make_shared<StandardDithering>(settings.integer("levels"));
          }};
}

}  // namespace sgdsim
