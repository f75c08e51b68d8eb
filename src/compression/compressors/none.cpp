// No compression: fp32 on the wire, nothing to encode or decode.
#include "sgdsim/compression/compressor.hpp"

namespace sgdsim {

namespace {

class NoCompression final : public Compressor {
 public:
  NoCompression() : Compressor("none") {}
  std::int64_t wire_bits(std::int64_t d) const override { return 32 * d; }
  bool summable() const override { return true; }
  CompressionQuality quality(std::int64_t) const override { return {1.0, 0.0}; }
  Time default_encode(std::int64_t) const override { return Time::zero(); }
  Time default_decode(std::int64_t) const override { return Time::zero(); }
  bool apply(std::span<double>, Rng&) const override { return true; }
};

}  // namespace

std::shared_ptr<const Compressor> no_compression() {
  static const std::shared_ptr<const Compressor> none = std::make_shared<NoCompression>();
  return none;
}

CompressorEntry none_compressor() {
  return {{"none", "no compression: 32 bits per element", {}, {}, {}},
          [](const Settings&) { return no_compression(); }};
}

}  // namespace sgdsim
