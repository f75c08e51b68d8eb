// Gradient compressors as cost models (no data is compressed): how many bits a d-element fp32
// message becomes on the wire, whether compressed messages can be summed inside an allreduce,
// and what the compressor does to convergence (Beznosikov, Horvath, Richtarik, Safaryan 2020).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sgdsim {

enum class CompressorKind {
  none,
  fp16,
  topk,
  randk,
  natural,
  natural_dithering,
  standard_dithering,
  topk_natural_dithering,
  sign,
  ratio,
};

// How compressed messages from all workers are combined.
//   automatic  gather for sparse formats with per-worker coordinates (topk,
//              topk_natural_dithering), allreduce for everything else
//   allreduce  summed hop by hop; quantised formats are decoded, summed and re-encoded at
//              every reduction stage (refused for per-worker sparse formats)
//   gather     every contribution is collected and decoded by every worker
enum class Aggregation { automatic, allreduce, gather };

struct CompressorSpec {
  CompressorKind kind = CompressorKind::none;
  Aggregation aggregation = Aggregation::automatic;
  double density = 1.0;  // k/d for topk, randk, topk_natural_dithering; in (0, 1]
  int levels = 0;        // s for the dithering compressors; >= 1
  double ratio = 1.0;    // wire bytes / fp32 bytes for a bare ratio; in (0, 1]
};

std::string_view compressor_name(CompressorKind kind);
std::optional<CompressorKind> parse_compressor(std::string_view name);
// "topk(density=0.01)", "standard_dithering(levels=16)", "none".
std::string compressor_label(const CompressorSpec& spec);

// Bits on the wire for one message of d fp32 elements (d >= 1):
//   none                 32d
//   fp16                 16d
//   topk                 k (32 + ceil(log2 d))               values and indices, k = ceil(density
//   d) randk                32k + 64                            values; indices from a 64-bit
//   shared seed natural              9d                                  sign + 8-bit exponent
//   (Horvath et al.) standard_dithering   32 + d (1 + ceil(log2(s + 1)))      norm, then sign and
//   level per element natural_dithering    32 + d (1 + ceil(log2(s + 1)))      same layout,
//   power-of-two levels topk_natural_dithering 32 + k (ceil(log2 d) + 1 + ceil(log2(s + 1))) sign
//   32 + d                              scale and one bit per element ratio                ceil(32
//   d ratio)
std::int64_t wire_bits(const CompressorSpec& spec, std::int64_t elements);
std::int64_t kept_elements(const CompressorSpec& spec, std::int64_t elements);  // k, or d if dense

// Whether compressed messages from all workers can be summed hop by hop without decoding: only
// when every worker sends the same coordinates in a summable format (fp16, randk with a shared
// seed, a bare ratio).
bool summable(const CompressorSpec& spec);
// Whether workers choose their own coordinates, so that messages cannot be summed at all
// (topk, topk_natural_dithering).
bool per_worker_sparse(const CompressorSpec& spec);
// Whether this spec is aggregated by gathering contributions (see Aggregation).
bool gathered(const CompressorSpec& spec);

// Biased compressors need error feedback (a residual buffer the size of the model).
bool biased(const CompressorSpec& spec);

// Contraction parameter delta of class B3 (E||C(x) - x||^2 <= (1 - 1/delta) ||x||^2) for biased
// compressors (top-k: d/k; scaled sign: d, the worst case), or variance factor omega of unbiased
// ones (E||C(x)||^2 <= (1 + omega) ||x||^2): rand-k d/k - 1, natural 1/8, standard dithering
// min(d/s^2, sqrt(d)/s), natural dithering 1/8 + min(d/4^(s-1), sqrt(d)/2^(s-1)). Empty where
// the literature gives no simple bound (ratio, topk_natural_dithering).
struct CompressionQuality {
  std::optional<double> delta;
  std::optional<double> omega;
};
CompressionQuality quality(const CompressorSpec& spec, std::int64_t elements);

}  // namespace sgdsim
