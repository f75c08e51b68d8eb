// rand-k: k random coordinates chosen from a seed all workers share, so only values travel and
// messages are summable. Scaled by d/k it is unbiased, omega = d/k - 1; unscaled it is biased,
// delta = d/k (Beznosikov et al. 2020).
#include <fmt/format.h>

#include "sgdsim/compression/compressor.hpp"

#include <algorithm>
#include <vector>

namespace sgdsim {

namespace {

class RandK final : public Compressor {
 public:
  RandK(double density, bool scaled) : Compressor("randk"), density_(density), scaled_(scaled) {}
  std::string label() const override {
    return fmt::format("randk(density={:g}{})", density_, scaled_ ? "" : ",unscaled");
  }
  // 32k values + the 64-bit shared seed.
  std::int64_t wire_bits(std::int64_t d) const override { return 32 * kept_elements(d) + 64; }
  std::int64_t kept_elements(std::int64_t d) const override {
    return detail::kept_by_density(density_, d);
  }
  bool summable() const override { return true; }
  bool biased() const override { return !scaled_; }
  CompressionQuality quality(std::int64_t d) const override {
    const double ratio = static_cast<double>(d) / static_cast<double>(kept_elements(d));
    if (!scaled_) return {ratio, std::nullopt};
    return {std::nullopt, ratio - 1.0};
  }
  // Indices from the shared seed: 10 us + 8 B per kept element at 200 GB/s.
  Time default_encode(std::int64_t d) const override {
    return detail::kernel_time(10.0, 8.0, kept_elements(d), 200.0);
  }
  bool shared_randomness() const override { return true; }
  // k distinct coordinates by a partial Fisher-Yates shuffle; the rest zeroed.
  bool apply(std::span<double> x, Rng& rng) const override {
    const auto d = static_cast<std::int64_t>(x.size());
    const std::int64_t k = kept_elements(d);
    std::vector<std::size_t> index(x.size());
    for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
    for (std::int64_t i = 0; i < k; ++i) {
      const auto j = static_cast<std::size_t>(
          i + static_cast<std::int64_t>(rng.next_u64() % static_cast<std::uint64_t>(d - i)));
      std::swap(index[static_cast<std::size_t>(i)], index[j]);
    }
    std::vector<double> kept(static_cast<std::size_t>(k));
    const double scale = scaled_ ? static_cast<double>(d) / static_cast<double>(k) : 1.0;
    for (std::int64_t i = 0; i < k; ++i) {
      kept[static_cast<std::size_t>(i)] = x[index[static_cast<std::size_t>(i)]] * scale;
    }
    std::fill(x.begin(), x.end(), 0.0);
    for (std::int64_t i = 0; i < k; ++i) {
      x[index[static_cast<std::size_t>(i)]] = kept[static_cast<std::size_t>(i)];
    }
    return true;
  }

 private:
  double density_;
  bool scaled_;
};

}  // namespace

CompressorEntry randk_compressor() {
  return {{"randk",
           "random-k sparsification with a shared seed: summable values only",
           {detail::density_key(),
            KeySpec::choice("scaling", "kept values times d/k (unbiased) or as they are (biased)",
                            {"scaled", "unscaled"}, "scaled")},
           {},
           {}},
          [](const Settings& settings) {
            return std::make_shared<RandK>(settings.number("density"),
                                           settings.text("scaling") == "scaled");
          }};
}

}  // namespace sgdsim
