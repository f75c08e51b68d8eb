// The compression-cost probe: times each compressor's encode and decode, sparse pack/unpack and
// host<->device copies over a range of tensor sizes, on the GPU (CUDA kernels, CUB, cuRAND) or,
// without one, on the CPU (plain C++), so that the same tool and profile format work everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sgdsim::probe {

struct Settings {
  std::vector<std::int64_t> sizes;  // elements per tensor
  double density = 0.01;            // k/d for topk, randk, topk_natural_dithering
  int levels = 16;                  // s for the dithering compressors
  int repeats = 5;                  // the median of these is reported
};

struct Measurement {
  std::string what;    // compressor name, "pack", "unpack", "host_to_device", "device_to_host"
  bool encode = true;  // false: decode
  std::int64_t elements = 0;
  double microseconds = 0.0;
};

struct Report {
  std::string device;
  std::vector<Measurement> measurements;
};

// The callback reports progress as (done, total) steps.
using Progress = void (*)(int done, int total, const std::string& what);

Report probe_cpu(const Settings& settings, Progress progress);
bool cuda_available();  // false when built without CUDA or no GPU is present
Report probe_gpu(const Settings& settings, Progress progress);

}  // namespace sgdsim::probe
