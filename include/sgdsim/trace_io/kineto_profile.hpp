// PyTorch profiler (Kineto) Chrome traces of training iterations to workloads: per layer the GPU
// kernel time of its forward and backward, per gradient tensor when it is ready on the GPU's
// timeline, the optimizer step and the GPU's waits for the host kept apart, several profiled
// iterations averaged. The attribution follows the profile's own links; traces/README.md
// ("Importing a PyTorch profiler trace") documents it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct KinetoImport {
  int batch_size = 0;
  int sequence_length = 0;  // 0: not a sequence model
  std::string model;        // empty: from the file name
  std::string device;       // empty: the profile's GPU name, else "cpu"
  // Measured apart from the profile (a plain, unprofiled iteration), written as
  // measured_iteration_us.
  std::optional<double> measured_iteration_us;
  // The model's trainable parameters: the gradients found must add up to exactly this.
  std::optional<std::int64_t> parameter_count;
  std::string precision;  // "fp32", "amp" or "bf16" when known
};

// Reads a profile, plain or gzip-compressed (by content, not by name). Throws InputError naming
// the file and what is missing: not gzip or truncated, not a Chrome trace, no kernels (a GPU
// profile recorded without CUDA activity), no training step, inference only (no backward),
// no input shapes (record_shapes off), gradients that do not add up to parameter_count.
Workload import_kineto_profile(const std::filesystem::path& path, const KinetoImport& options);

}  // namespace sgdsim
