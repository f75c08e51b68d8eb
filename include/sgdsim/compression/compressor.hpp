// Gradient compressors as cost models (no data is compressed): how many bits a d-element fp32
// message becomes on the wire, whether compressed messages can be summed inside an allreduce,
// what encoding and decoding cost, and what the compressor does to convergence (Beznosikov,
// Horvath, Richtarik, Safaryan 2020). Each compressor is one file in src/compression/compressors/
// declaring its name, description and keys; compressor_registry() lists them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sgdsim/core/registry.hpp"
#include "sgdsim/core/rng.hpp"
#include "sgdsim/core/time.hpp"

namespace sgdsim {

// Contraction parameter delta of class B3 (E||C(x) - x||^2 <= (1 - 1/delta) ||x||^2) for biased
// compressors, or variance factor omega of unbiased ones (E||C(x)||^2 <= (1 + omega) ||x||^2).
// Empty where the literature gives no simple bound.
struct CompressionQuality {
  std::optional<double> delta;
  std::optional<double> omega;
};

// One configured compressor (its parameters fixed).
class Compressor {
 public:
  explicit Compressor(std::string name) : name_(std::move(name)) {}
  virtual ~Compressor() = default;

  const std::string& name() const { return name_; }
  // The name with the parameters that tell two configurations apart: "topk(density=0.01)".
  virtual std::string label() const { return name_; }
  // Bits on the wire for one message of d fp32 elements (d >= 1).
  virtual std::int64_t wire_bits(std::int64_t elements) const = 0;
  // Elements kept: k for sparsifiers, d for dense formats.
  virtual std::int64_t kept_elements(std::int64_t elements) const { return elements; }
  // Whether messages from all workers can be summed hop by hop without decoding (every worker
  // sends the same coordinates in a summable format).
  virtual bool summable() const { return false; }
  // Whether workers choose their own coordinates, so that messages cannot be summed at all.
  virtual bool per_worker_sparse() const { return false; }
  // Biased compressors need error feedback (a residual buffer the size of the model).
  virtual bool biased() const { return false; }
  virtual CompressionQuality quality(std::int64_t /*elements*/) const { return {}; }
  // The default GPU cost model, used when no gpu_probe profile measured this compressor:
  // a kernel launch plus memory traffic at an effective bandwidth (assumptions, documented in
  // scenarios/README.md).
  virtual Time default_encode(std::int64_t elements) const = 0;
  // Default decode: 5 us + 8 B per decoded (kept) element at 500 GB/s.
  virtual Time default_decode(std::int64_t elements) const;
  // The compressor as an operator on real data (the convergence engine's gradients): x is
  // replaced by C(x), decoded, with randomness from `rng`. False for a compressor that is only
  // a cost model (a bare ratio), leaving x unchanged.
  virtual bool apply(std::span<double> x, Rng& rng) const = 0;
  // Whether every worker must draw the same randomness (rand-k's shared seed).
  virtual bool shared_randomness() const { return false; }

 private:
  std::string name_;
};

// How compressed messages from all workers are combined.
//   automatic  gather for sparse formats with per-worker coordinates, allreduce otherwise
//   allreduce  summed hop by hop; quantised formats are decoded, summed and re-encoded at
//              every reduction stage (refused for per-worker sparse formats)
//   gather     every contribution is collected and decoded by every worker
enum class Aggregation { automatic, allreduce, gather };

// The shared instance of "none" (32 bits per element, nothing to encode).
std::shared_ptr<const Compressor> no_compression();

struct CompressorSpec {
  std::shared_ptr<const Compressor> compressor = no_compression();
  Aggregation aggregation = Aggregation::automatic;

  bool is_none() const { return compressor->name() == "none"; }
};

// A family member: its declaration and how to build it from validated settings.
struct CompressorEntry : Declaration {
  std::function<std::shared_ptr<const Compressor>(const Settings&)> make;
};

// Every compressor sgdsim knows, in the order they are listed to users.
const Registry<CompressorEntry>& compressor_registry();

// Builds a compressor by name with its default settings plus `settings` (tests, tools).
CompressorSpec make_compressor(std::string_view name, const Settings& settings = {},
                               Aggregation aggregation = Aggregation::automatic);

// "topk(density=0.01)", "topk(density=0.01)/gather" when the aggregation is not automatic.
std::string compressor_label(const CompressorSpec& spec);

inline std::int64_t wire_bits(const CompressorSpec& spec, std::int64_t elements) {
  return spec.compressor->wire_bits(elements);
}
inline std::int64_t kept_elements(const CompressorSpec& spec, std::int64_t elements) {
  return spec.compressor->kept_elements(elements);
}
inline bool summable(const CompressorSpec& spec) {
  return spec.compressor->summable();
}
inline bool per_worker_sparse(const CompressorSpec& spec) {
  return spec.compressor->per_worker_sparse();
}
inline bool biased(const CompressorSpec& spec) {
  return spec.compressor->biased();
}
inline CompressionQuality quality(const CompressorSpec& spec, std::int64_t elements) {
  return spec.compressor->quality(elements);
}
// Whether this spec is aggregated by gathering contributions (see Aggregation).
bool gathered(const CompressorSpec& spec);

// Building blocks shared by the compressors' files.
namespace detail {
// launch_us + bytes_per_element * elements / (gb_per_s * 1e9), in picoseconds.
Time kernel_time(double launch_us, double bytes_per_element, std::int64_t elements,
                 double gb_per_s);
// ceil(log2 x) for x >= 1, exact in integers.
std::int64_t ceil_log2(std::int64_t x);
// k = ceil(density * d), at least 1.
std::int64_t kept_by_density(double density, std::int64_t elements);
// Bits per element of a dithering level: sign + ceil(log2(s + 1)).
std::int64_t level_bits(std::int64_t levels);
// The density key of the sparsifiers and the levels key of the quantisers.
KeySpec density_key();
KeySpec levels_key();
// Operators shared by several compressors, in place. Keeps the k largest magnitudes (ties:
// the lower index) and zeroes the rest.
void keep_top(std::span<double> x, std::int64_t k);
// Natural dithering with s levels (1, 1/2, ..., 2^(1-s) of the vector's 2-norm, and 0):
// each |x_i| / |x| rounded to a neighbouring level at random, up with probability
// proportional to its distance from the lower one (unbiased).
void natural_dither(std::span<double> x, std::int64_t levels, Rng& rng);
}  // namespace detail

}  // namespace sgdsim
