// The readers' fuzz targets (fuzz_readers.cpp), behind a declaration light enough that each
// fuzz_NAME program's own source compiles in a moment.
#pragma once

#include <cstddef>
#include <cstdint>

// Feeds one input to reader `target` (1..13, tests/fuzz/meson.build); bad input is absorbed.
int sgdsim_fuzz_one(int target, const std::uint8_t* data, std::size_t size);
