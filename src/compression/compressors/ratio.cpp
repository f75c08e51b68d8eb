// A bare compression ratio: wire bytes = ratio x fp32 bytes, summable and free, for what-if
// questions about compressors sgdsim does not model. A scenario may write it as a bare number.
#include <fmt/format.h>

#include <cmath>

#include "sgdsim/compression/compressor.hpp"

namespace sgdsim {

namespace {

class Ratio final : public Compressor {
 public:
  explicit Ratio(double ratio) : Compressor("ratio"), ratio_(ratio) {}
  std::string label() const override { return fmt::format("ratio({:g})", ratio_); }
  // ceil(32 d ratio).
  std::int64_t wire_bits(std::int64_t d) const override {
    return static_cast<std::int64_t>(std::ceil(32.0 * static_cast<double>(d) * ratio_));
  }
  bool summable() const override { return true; }
  Time default_encode(std::int64_t) const override { return Time::zero(); }
  Time default_decode(std::int64_t) const override { return Time::zero(); }
  // A bare ratio says how many bytes travel, not what happens to the values.
  bool apply(std::span<double>, Rng&) const override { return false; }

 private:
  double ratio_;
};

}  // namespace

CompressorEntry ratio_compressor() {
  return {
      {"ratio",
       "a bare ratio of wire bytes to fp32 bytes, summable and free",
       {KeySpec::fraction("ratio", "wire bytes / fp32 bytes")},
       {},
       {}},
      [](const Settings& settings) { return std::make_shared<Ratio>(settings.number("ratio")); }};
}

}  // namespace sgdsim
