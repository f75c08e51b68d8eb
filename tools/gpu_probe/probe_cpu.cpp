// CPU implementations of the compressors, timed with a steady clock. They do the same work as
// the GPU kernels (selection, quantisation with stochastic rounding, packing) on one core.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "probe.hpp"

namespace sgdsim::probe {

namespace {

using Clock = std::chrono::steady_clock;

template <class Work>
double median_us(int repeats, Work&& work) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    work();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2),
                   samples.end());
  return samples[samples.size() / 2];
}

std::uint16_t to_half(float value) {  // round-to-nearest-even fp32 -> fp16 bits
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint32_t sign = (bits >> 16U) & 0x8000U;
  const int exponent = static_cast<int>((bits >> 23U) & 0xFFU) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7FFFFFU;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7C00U);
  mantissa += 0x1000U;  // rounding
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10U) |
                                    (mantissa >> 13U));
}

float from_half(std::uint16_t h) {  // fp16 bits -> fp32 (subnormals flush to zero)
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16U;
  const std::uint32_t exponent = (h >> 10U) & 0x1FU;
  const std::uint32_t mantissa = h & 0x3FFU;
  std::uint32_t bits = sign;
  if (exponent == 31U) {
    bits |= 0x7F800000U | (mantissa << 13U);
  } else if (exponent != 0U) {
    bits |= ((exponent - 15U + 127U) << 23U) | (mantissa << 13U);
  }
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

Report probe_cpu(const Settings& settings, Progress progress) {
  Report report{"CPU (one core)", {}};
  std::mt19937_64 rng(42);
  std::normal_distribution<float> normal(0.0F, 1.0F);
  std::uniform_real_distribution<float> uniform(0.0F, 1.0F);
  const int total = static_cast<int>(settings.sizes.size());
  int done = 0;
  for (const std::int64_t d : settings.sizes) {
    progress(done++, total, "cpu");
    const auto n = static_cast<std::size_t>(d);
    const auto k = static_cast<std::size_t>(
        std::max<double>(1.0, std::ceil(settings.density * static_cast<double>(d))));
    std::vector<float> x(n);
    for (float& v : x) v = normal(rng);
    std::vector<float> dense(n, 0.0F);
    std::vector<std::uint32_t> index(n);
    std::vector<float> values(k);
    std::vector<std::uint8_t> codes(n);
    std::vector<std::uint16_t> half(n);
    auto add = [&](const char* what, bool encode, double us) {
      report.measurements.push_back({what, encode, d, us});
    };
    // Top-k: select the k largest magnitudes, then pack values and indices.
    add("topk", true, median_us(settings.repeats, [&] {
          std::iota(index.begin(), index.end(), 0U);
          std::nth_element(
              index.begin(), index.begin() + static_cast<long>(k - 1), index.end(),
              [&](std::uint32_t a, std::uint32_t b) { return std::fabs(x[a]) > std::fabs(x[b]); });
          for (std::size_t i = 0; i < k; ++i) values[i] = x[index[i]];
        }));
    add("topk", false, median_us(settings.repeats, [&] {
          std::fill(dense.begin(), dense.end(), 0.0F);
          for (std::size_t i = 0; i < k; ++i) dense[index[i]] += values[i];
        }));
    // Random-k with a shared seed: the indices come from the seed on every worker.
    add("randk", true, median_us(settings.repeats, [&] {
          std::mt19937_64 shared(7);
          for (std::size_t i = 0; i < k; ++i) {
            index[i] = static_cast<std::uint32_t>(shared() % n);
            values[i] = x[index[i]];
          }
        }));
    add("randk", false, median_us(settings.repeats, [&] {
          std::fill(dense.begin(), dense.end(), 0.0F);
          for (std::size_t i = 0; i < k; ++i) dense[index[i]] += values[i];
        }));
    // Natural compression: round each value to a neighbouring power of two, unbiased.
    add("natural", true, median_us(settings.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) {
            const float magnitude = std::fabs(x[i]);
            const int exponent =
                magnitude > 0 ? static_cast<int>(std::floor(std::log2(magnitude))) : -127;
            const float low = std::ldexp(1.0F, exponent);
            const bool up = uniform(rng) < (magnitude - low) / low;
            codes[i] =
                static_cast<std::uint8_t>((exponent + up + 127) & 0x7F) | (x[i] < 0 ? 0x80 : 0);
          }
        }));
    add("natural", false, median_us(settings.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) {
            const float value = std::ldexp(1.0F, (codes[i] & 0x7F) - 127);
            dense[i] = (codes[i] & 0x80) != 0 ? -value : value;
          }
        }));
    // Dithering: a norm, then a stochastic level per element (uniform or power-of-two levels).
    for (const bool natural_levels : {false, true}) {
      const char* name = natural_levels ? "natural_dithering" : "standard_dithering";
      float norm = 1.0F;
      add(name, true, median_us(settings.repeats, [&] {
            double sum = 0;
            for (float v : x) sum += static_cast<double>(v) * v;
            norm = static_cast<float>(std::sqrt(sum));
            for (std::size_t i = 0; i < n; ++i) {
              const float r = std::fabs(x[i]) / norm;
              float level = 0;
              if (natural_levels) {
                const float e =
                    r > 0 ? std::floor(std::log2(r)) : -static_cast<float>(settings.levels);
                level = std::max(e, -static_cast<float>(settings.levels - 1)) +
                        (uniform(rng) < r ? 1.0F : 0.0F);
              } else {
                const float scaled = r * static_cast<float>(settings.levels);
                level =
                    std::floor(scaled) + (uniform(rng) < scaled - std::floor(scaled) ? 1.0F : 0.0F);
              }
              codes[i] =
                  static_cast<std::uint8_t>(static_cast<int>(level) & 0x7F) | (x[i] < 0 ? 0x80 : 0);
            }
          }));
      add(name, false, median_us(settings.repeats, [&] {
            for (std::size_t i = 0; i < n; ++i) {
              const float level =
                  static_cast<float>(static_cast<std::int8_t>((codes[i] & 0x7F) << 1) >> 1);
              const float value = natural_levels
                                      ? std::ldexp(norm, static_cast<int>(level))
                                      : norm * level / static_cast<float>(settings.levels);
              dense[i] = (codes[i] & 0x80) != 0 ? -value : value;
            }
          }));
    }
    add("fp16", true, median_us(settings.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) half[i] = to_half(x[i]);
        }));
    add("fp16", false, median_us(settings.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) dense[i] = from_half(half[i]);
        }));
    add("sign", true, median_us(settings.repeats, [&] {
          double sum = 0;
          for (std::size_t i = 0; i < n; ++i) {
            sum += std::fabs(x[i]);
            codes[i] = x[i] < 0 ? 1 : 0;
          }
          values[0] = static_cast<float>(sum / static_cast<double>(n));
        }));
    add("sign", false, median_us(settings.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) dense[i] = codes[i] != 0 ? -values[0] : values[0];
        }));
  }
  progress(total, total, "cpu");
  return report;
}

#ifndef SGDSIM_PROBE_CUDA
bool cuda_available() {
  return false;
}
Report probe_gpu(const Settings&, Progress) {
  return {};
}
#endif

}  // namespace sgdsim::probe
