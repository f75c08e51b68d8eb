// top-k followed by natural dithering of the kept values (Beznosikov et al. 2020): indices plus
// sign and level per kept element. Biased; gathered like top-k.
#include <fmt/format.h>

#include "sgdsim/compression/compressor.hpp"

namespace sgdsim {

namespace {

class TopKNaturalDithering final : public Compressor {
 public:
  TopKNaturalDithering(double density, std::int64_t levels)
      : Compressor("topk_natural_dithering"), density_(density), levels_(levels) {}
  std::string label() const override {
    return fmt::format("topk_natural_dithering(density={:g},levels={})", density_, levels_);
  }
  // 32 + k (ceil(log2 d) + 1 + ceil(log2(s + 1))): the norm, then index, sign and level.
  std::int64_t wire_bits(std::int64_t d) const override {
    return 32 + kept_elements(d) * (detail::ceil_log2(d) + detail::level_bits(levels_));
  }
  std::int64_t kept_elements(std::int64_t d) const override {
    return detail::kept_by_density(density_, d);
  }
  bool per_worker_sparse() const override { return true; }
  bool biased() const override { return true; }
  // top-k's selection, then dithering of the k kept elements.
  Time default_encode(std::int64_t d) const override {
    return detail::kernel_time(30.0, 8.0, d, 50.0) +
           detail::kernel_time(10.0, 12.0, kept_elements(d), 500.0);
  }
  bool apply(std::span<double> x, Rng& rng) const override {
    detail::keep_top(x, kept_elements(static_cast<std::int64_t>(x.size())));
    detail::natural_dither(x, levels_, rng);
    return true;
  }

 private:
  double density_;
  std::int64_t levels_;
};

}  // namespace

CompressorEntry topk_natural_dithering_compressor() {
  return {{"topk_natural_dithering",
           "top-k, then natural dithering of the kept values (biased)",
           {detail::density_key(), detail::levels_key()},
           {},
           {}},
          [](const Settings& settings) {
            return std::make_shared<TopKNaturalDithering>(settings.number("density"),
                                                          settings.integer("levels"));
          }};
}

}  // namespace sgdsim
