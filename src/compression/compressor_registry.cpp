// The compressor family. Adding a compressor: one file src/compression/compressors/NAME.cpp
// defining `CompressorEntry NAME_compressor()`, and NAME in the compressor list of
// src/meson.build.
#include "compressor_list.hpp"
#include "sgdsim/compression/compressor.hpp"

namespace sgdsim {

#define SGDSIM_DECLARE(name) CompressorEntry name##_compressor();
SGDSIM_REGISTERED(SGDSIM_DECLARE)
#undef SGDSIM_DECLARE

const Registry<CompressorEntry>& compressor_registry() {
#define SGDSIM_ENTRY(name) name##_compressor(),
  static const Registry<CompressorEntry> registry("compressor", {SGDSIM_REGISTERED(SGDSIM_ENTRY)});
#undef SGDSIM_ENTRY
  return registry;
}

}  // namespace sgdsim
