// One fuzz target: libFuzzer's entry point for the reader SGDSIM_FUZZ_TARGET names.
#include "fuzz_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return sgdsim_fuzz_one(SGDSIM_FUZZ_TARGET, data, size);
}
