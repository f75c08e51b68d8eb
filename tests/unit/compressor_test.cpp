// Tests for compression/compressor.hpp: each bit formula with its arithmetic.
#include <doctest/doctest.h>

#include <cmath>

#include "printers.hpp"

#include "sgdsim/compression/compressor.hpp"

using namespace sgdsim;

namespace {

// A registered compressor with its density and levels (keys it does not declare are ignored).
CompressorSpec make(std::string_view name, double density = 1.0, int levels = 1) {
  Settings settings;
  settings.set("density", density);
  settings.set("levels", std::int64_t{levels});
  return make_compressor(name, settings);
}

}  // namespace

TEST_CASE("uncompressed and fp16 messages take 32 and 16 bits per element") {
  CHECK(wire_bits(make("none"), 1000) == 32'000);
  CHECK(wire_bits(make("fp16"), 1000) == 16'000);
}

TEST_CASE("top-k sends k values and k indices of ceil(log2 d) bits") {
  // d = 1,000,000: ceil(log2 1e6) = 20 (2^20 = 1,048,576); k = 1% = 10,000.
  // 10,000 * (32 + 20) = 520,000 bits.
  CHECK(wire_bits(make("topk", 0.01), 1'000'000) == 520'000);
  // k rounds up: 0.1% of 1500 = 1.5 -> 2 elements; ceil(log2 1500) = 11: 2 * 43 = 86 bits.
  CHECK(kept_elements(make("topk", 0.001), 1500) == 2);
  CHECK(wire_bits(make("topk", 0.001), 1500) == 86);
}

TEST_CASE("random-k with a shared seed sends only values plus the seed") {
  // 10,000 * 32 + 64 = 320,064 bits.
  CHECK(wire_bits(make("randk", 0.01), 1'000'000) == 320'064);
}

TEST_CASE("natural compression is 9 bits per fp32 coordinate") {
  CHECK(wire_bits(make("natural"), 1000) == 9000);
}

TEST_CASE("dithering sends a norm, then a sign and a level index per element") {
  // s = 16 levels: indices 0..16 need ceil(log2 17) = 5 bits, plus the sign: 6 bits.
  // 32 + 1000 * 6 = 6032 bits; natural dithering has the same layout.
  CHECK(wire_bits(make("standard_dithering", 1.0, 16), 1000) == 6032);
  CHECK(wire_bits(make("natural_dithering", 1.0, 16), 1000) == 6032);
  // s = 1 (ternary-like): ceil(log2 2) = 1 + sign = 2 bits: 32 + 2000 = 2032.
  CHECK(wire_bits(make("standard_dithering", 1.0, 1), 1000) == 2032);
}

TEST_CASE("top-k followed by natural dithering keeps k elements at index + level bits") {
  // d = 1e6 (20 index bits), k = 10,000, s = 8 (ceil(log2 9) = 4, + sign = 5):
  // 32 + 10,000 * (20 + 5) = 250,032 bits.
  CHECK(wire_bits(make("topk_natural_dithering", 0.01, 8), 1'000'000) == 250'032);
}

TEST_CASE("scaled sign is one bit per element plus the scale") {
  CHECK(wire_bits(make("sign"), 1000) == 1032);
}

TEST_CASE("a bare ratio scales the fp32 size") {
  Settings settings;
  settings.set("ratio", 0.1);
  const CompressorSpec spec = make_compressor("ratio", settings);
  CHECK(wire_bits(spec, 1000) == 3200);  // 0.1 * 32,000
}

TEST_CASE("only formats with common coordinates can be summed inside an allreduce") {
  CHECK(summable(make("fp16")));
  CHECK(summable(make("randk", 0.1)));
  CHECK_FALSE(summable(make("topk", 0.1)));
  CHECK_FALSE(summable(make("natural")));
}

TEST_CASE("biased compressors need error feedback; their delta is d/k") {
  CHECK(biased(make("topk", 0.01)));
  CHECK_FALSE(biased(make("randk", 0.01)));
  CHECK(quality(make("topk", 0.01), 1'000'000).delta == doctest::Approx(100.0));
  // Rand-k: omega = d/k - 1 = 99; natural compression: omega = 1/8.
  CHECK(quality(make("randk", 0.01), 1'000'000).omega == doctest::Approx(99.0));
  CHECK(quality(make("natural"), 1000).omega == doctest::Approx(0.125));
  // Standard dithering, d = 10,000, s = 16: min(d/s^2, sqrt(d)/s) = min(39.06, 6.25) = 6.25.
  CHECK(quality(make("standard_dithering", 1.0, 16), 10'000).omega == doctest::Approx(6.25));
}

TEST_CASE("compressor names parse, qsgd is standard dithering, unknown names do not") {
  CHECK(compressor_registry().find("qsgd")->name == "standard_dithering");
  CHECK(compressor_registry().find("topk")->name == "topk");
  CHECK(compressor_registry().find("top-k") == nullptr);
  CHECK(compressor_registry().closest("top-k") == "topk");  // one substitution away
  CHECK(compressor_label(make("topk", 0.01)) == "topk(density=0.01)");
}

// The compressors as operators on real vectors (what the convergence engine applies).
namespace {

std::vector<double> applied(const CompressorSpec& spec, std::vector<double> x,
                            std::uint64_t seed = 1) {
  Rng rng(seed);
  REQUIRE(spec.compressor->apply(x, rng));
  return x;
}

// The mean of C(x) over `draws` independent draws (seed 11).
std::vector<double> mean_of(const CompressorSpec& spec, const std::vector<double>& x, int draws) {
  std::vector<double> sum(x.size(), 0.0);
  Rng rng(11);
  for (int draw = 0; draw < draws; ++draw) {
    std::vector<double> y = x;
    spec.compressor->apply(y, rng);
    for (std::size_t i = 0; i < x.size(); ++i) sum[i] += y[i];
  }
  for (double& v : sum) v /= draws;
  return sum;
}

}  // namespace

TEST_CASE("deterministic operators, by hand") {
  // top-k with k = 2 of 4 keeps -5 and 4.
  CHECK(applied(make("topk", 0.5), {3, -5, 1, 4}) == std::vector<double>{0, -5, 0, 4});
  // Scaled sign: |x|_1 / d = 6 / 4 = 1.5 times the signs (0 stays 0).
  CHECK(applied(make("sign"), {1, -3, 0, 2}) == std::vector<double>{1.5, -1.5, 0, 1.5});
  // fp16: 1/3 is 0x3555 = 0.333251953125 in half precision; 1e6 saturates at 65504;
  // 1e-8 is below half the smallest subnormal, 2^-24 / 2, so it becomes 0.
  const std::vector<double> half = applied(make("fp16"), {1.0 / 3.0, 1e6, -1e-8, 2.0});
  CHECK(half == std::vector<double>{0.333251953125, 65504.0, -0.0, 2.0});
  // A bare ratio has no operator.
  Settings ratio;
  ratio.set("ratio", 0.5);
  std::vector<double> x{1.0};
  Rng rng(1);
  CHECK_FALSE(make_compressor("ratio", ratio).compressor->apply(x, rng));
}

TEST_CASE("top-k contracts every vector by at least k/d, as class B3 requires") {
  // |C(x) - x|^2 <= (1 - k/d) |x|^2 for any x (the d - k dropped elements are the smallest).
  Rng rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> x(50);
    for (double& v : x) v = rng.next_unit() - 0.5;
    const std::vector<double> y = applied(make("topk", 0.1), x);
    double error = 0.0;
    double norm = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      error += (y[i] - x[i]) * (y[i] - x[i]);
      norm += x[i] * x[i];
    }
    CHECK(error <= (1.0 - 5.0 / 50.0) * norm + 1e-15);
  }
}

TEST_CASE("unbiased compressors are unbiased on average; unscaled rand-k is not") {
  // x = (3, -0.7, 0.05, 1.2). 40,000 draws (seed 11): each coordinate's mean has a standard
  // deviation of at most |x| sqrt(1 + omega) / 200; with omega <= d/k - 1 = 1 for rand-k at
  // density 0.5 and |x| = 3.3, 4 standard deviations stay under 0.1. We require 0.1.
  const std::vector<double> x{3.0, -0.7, 0.05, 1.2};
  for (const CompressorSpec& spec : {make("natural"), make("natural_dithering", 1.0, 3),
                                     make("standard_dithering", 1.0, 4), make("randk", 0.5)}) {
    INFO(spec.compressor->label());
    const std::vector<double> mean = mean_of(spec, x, 40000);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::abs(mean[i] - x[i]) < 0.1);
  }
  // Unscaled rand-k keeps each coordinate with probability k/d = 1/2 and does not scale it:
  // its mean is x / 2.
  Settings unscaled;
  unscaled.set("density", 0.5);
  unscaled.set("scaling", std::string("unscaled"));
  const std::vector<double> half = mean_of(make_compressor("randk", unscaled), x, 40000);
  CHECK(std::abs(half[0] - 1.5) < 0.1);
}
