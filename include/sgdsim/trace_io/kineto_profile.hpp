// PyTorch profiler (Kineto) Chrome traces of training iterations to workloads: per layer the GPU
// kernel time of its forward and backward, per gradient tensor when it is ready on the GPU's
// timeline, the optimizer step and the GPU's waits for the host kept apart, several profiled
// iterations averaged. The attribution follows the profile's own links; traces/README.md
// ("Importing a PyTorch profiler trace") documents it.
#pragma once

#include "sgdsim/trace_io/importer_registry.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

// Reads a profile, plain or gzip-compressed (by content, not by name). Throws InputError naming
// the file and what is missing: not gzip or truncated, not a Chrome trace, no kernels (a GPU
// profile recorded without CUDA activity), no training step, inference only (no backward),
// no input shapes (record_shapes off), gradients that do not add up to parameter_count.
// What it reads of `request`: the input, batch, sequence length, model (empty: the file's
// name), device (empty or "unknown": the profile's GPU, else "cpu"; "cpu" also imports a CPU
// run that names a GPU), the plain iteration measured apart (measured_iteration_us), the
// parameter count the gradients must equal, and the precision.
Workload import_kineto_profile(const ImportRequest& request);

}  // namespace sgdsim
