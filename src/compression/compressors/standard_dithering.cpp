// Standard dithering (QSGD, Alistarh et al. 2017): the norm, then per element a sign and one of
// s uniform levels. Unbiased with omega = min(d/s^2, sqrt(d)/s).
#include <fmt/format.h>

#include <cmath>

#include "sgdsim/compression/compressor.hpp"

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
