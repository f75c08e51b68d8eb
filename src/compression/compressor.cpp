// Bit formulas and properties of the compressors.
#include "sgdsim/compression/compressor.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

struct Names {
  CompressorKind kind;
  std::string_view name;
};

constexpr std::array<Names, 10> names{{
    {CompressorKind::none, "none"},
    {CompressorKind::fp16, "fp16"},
    {CompressorKind::topk, "topk"},
    {CompressorKind::randk, "randk"},
    {CompressorKind::natural, "natural"},
    {CompressorKind::natural_dithering, "natural_dithering"},
    {CompressorKind::standard_dithering, "standard_dithering"},
    {CompressorKind::topk_natural_dithering, "topk_natural_dithering"},
    {CompressorKind::sign, "sign"},
    {CompressorKind::ratio, "ratio"},
}};

// ceil(log2 x) for x >= 1, exact in integers.
std::int64_t ceil_log2(std::int64_t x) {
  std::int64_t bits = 0;
  while ((std::int64_t{1} << bits) < x) ++bits;
  return bits;
}

std::int64_t level_bits(int levels) {
  return 1 + ceil_log2(levels + 1);
}

std::string compressor_parameters(const CompressorSpec& spec) {
  const std::string_view name = compressor_name(spec.kind);
  switch (spec.kind) {
    case CompressorKind::topk:
    case CompressorKind::randk: return fmt::format("{}(density={:g})", name, spec.density);
    case CompressorKind::natural_dithering:
    case CompressorKind::standard_dithering: return fmt::format("{}(levels={})", name, spec.levels);
    case CompressorKind::topk_natural_dithering:
      return fmt::format("{}(density={:g},levels={})", name, spec.density, spec.levels);
    case CompressorKind::ratio: return fmt::format("ratio({:g})", spec.ratio);
    default: return std::string(name);
  }
}

}  // namespace

std::string_view compressor_name(CompressorKind kind) {
  return names[static_cast<std::size_t>(kind)].name;
}

std::optional<CompressorKind> parse_compressor(std::string_view name) {
  if (name == "qsgd") return CompressorKind::standard_dithering;
  for (const Names& entry : names) {
    if (entry.name == name) return entry.kind;
  }
  return std::nullopt;
}

std::string compressor_label(const CompressorSpec& spec) {
  std::string label = compressor_parameters(spec);
  if (spec.aggregation == Aggregation::automatic) return label;
  return label + (spec.aggregation == Aggregation::gather ? "/gather" : "/allreduce");
}

std::int64_t kept_elements(const CompressorSpec& spec, std::int64_t elements) {
  switch (spec.kind) {
    case CompressorKind::topk:
    case CompressorKind::randk:
    case CompressorKind::topk_natural_dithering:
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(
                                           spec.density * static_cast<double>(elements) - 1e-9)));
    default: return elements;
  }
}

std::int64_t wire_bits(const CompressorSpec& spec, std::int64_t elements) {
  SGDSIM_ASSERT(elements >= 1, "a message without elements");
  const std::int64_t d = elements;
  const std::int64_t k = kept_elements(spec, d);
  switch (spec.kind) {
    case CompressorKind::none: return 32 * d;
    case CompressorKind::fp16: return 16 * d;
    case CompressorKind::topk: return k * (32 + ceil_log2(d));
    case CompressorKind::randk: return 32 * k + 64;
    case CompressorKind::natural: return 9 * d;
    case CompressorKind::natural_dithering:
    case CompressorKind::standard_dithering: return 32 + d * level_bits(spec.levels);
    case CompressorKind::topk_natural_dithering:
      return 32 + k * (ceil_log2(d) + level_bits(spec.levels));
    case CompressorKind::sign: return 32 + d;
    case CompressorKind::ratio:
      return static_cast<std::int64_t>(std::ceil(32.0 * static_cast<double>(d) * spec.ratio));
  }
  SGDSIM_ASSERT(false, "unknown compressor");
  return 0;
}

bool summable(const CompressorSpec& spec) {
  switch (spec.kind) {
    case CompressorKind::none:
    case CompressorKind::fp16:
    case CompressorKind::randk:
    case CompressorKind::ratio: return true;
    default: return false;
  }
}

bool per_worker_sparse(const CompressorSpec& spec) {
  return spec.kind == CompressorKind::topk || spec.kind == CompressorKind::topk_natural_dithering;
}

bool gathered(const CompressorSpec& spec) {
  switch (spec.aggregation) {
    case Aggregation::automatic: return per_worker_sparse(spec);
    case Aggregation::allreduce: return false;
    case Aggregation::gather: return true;
  }
  return true;
}

bool biased(const CompressorSpec& spec) {
  return spec.kind == CompressorKind::topk || spec.kind == CompressorKind::topk_natural_dithering ||
         spec.kind == CompressorKind::sign;
}

CompressionQuality quality(const CompressorSpec& spec, std::int64_t elements) {
  const double d = static_cast<double>(elements);
  const double k = static_cast<double>(kept_elements(spec, elements));
  const double s = spec.levels;
  switch (spec.kind) {
    case CompressorKind::none: return {1.0, 0.0};
    case CompressorKind::topk: return {d / k, std::nullopt};
    case CompressorKind::sign: return {d, std::nullopt};
    case CompressorKind::randk: return {std::nullopt, d / k - 1.0};
    case CompressorKind::natural: return {std::nullopt, 1.0 / 8.0};
    case CompressorKind::standard_dithering:
      return {std::nullopt, std::min(d / (s * s), std::sqrt(d) / s)};
    case CompressorKind::natural_dithering:
      return {std::nullopt, 1.0 / 8.0 + std::min(d / std::pow(4.0, s - 1.0),
                                                 std::sqrt(d) / std::pow(2.0, s - 1.0))};
    default: return {};
  }
}

}  // namespace sgdsim
