// rand-k: k random coordinates chosen from a seed all workers share, so only values travel and
// messages are summable. Unbiased when scaled: omega = d/k - 1.
#include <fmt/format.h>

#include "sgdsim/compression/compressor.hpp"

namespace sgdsim {

namespace {

class RandK final : public Compressor {
 public:
  explicit RandK(double density) : Compressor("randk"), density_(density) {}
  std::string label() const override { return fmt::format("randk(density={:g})", density_); }
  // 32k values + the 64-bit shared seed.
  std::int64_t wire_bits(std::int64_t d) const override { return 32 * kept_elements(d) + 64; }
  std::int64_t kept_elements(std::int64_t d) const override {
    return detail::kept_by_density(density_, d);
  }
  bool summable() const override { return true; }
  CompressionQuality quality(std::int64_t d) const override {
    return {std::nullopt, static_cast<double>(d) / static_cast<double>(kept_elements(d)) - 1.0};
  }
  // Indices from the shared seed: 10 us + 8 B per kept element at 200 GB/s.
  Time default_encode(std::int64_t d) const override {
    return detail::kernel_time(10.0, 8.0, kept_elements(d), 200.0);
  }

 private:
  double density_;
};

}  // namespace

CompressorEntry randk_compressor() {
  return {
      {"randk",
       "random-k sparsification with a shared seed: summable values only",
       {detail::density_key()},
       {},
       {}},
      [](const Settings& settings) { return std::make_shared<RandK>(settings.number("density")); }};
}

}  // namespace sgdsim
