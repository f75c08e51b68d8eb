// A model's training step as plain data: layers in forward order with their compute times and
// gradient tensors. Filled from a trace file; no behaviour beyond totals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

struct GradientTensor {
  std::string name;
  std::int64_t elements = 0;
  // Offset from the start of backward at which this gradient is ready; when absent, the end of
  // its layer's backward.
  std::optional<Time> ready_offset;
  // The same on the GPU's timeline, waits for the host included (profiler imports; see Layer).
  std::optional<Time> ready_wall_offset{};
};

struct Layer {
  std::string name;
  Time forward;
  Time backward;
  std::vector<GradientTensor> gradients;
  // From a profiler trace: the layer's share of the GPU's timeline, its kernel time plus the time
  // the GPU sat idle waiting for the host to launch them (what a launch-bound model runs at).
  // forward/backward are then the kernel time alone.
  std::optional<Time> forward_wall{};
  std::optional<Time> backward_wall{};
};

// A collective call seen in a profile taken inside a framework's distributed wrapper (PyTorch
// DDP's nccl:all_reduce): the elements it carried, the gradients they add up to (in readiness
// order; empty when no run of consecutive ready gradients adds up to them) and when it was
// launched, on the GPU's timeline from the start of backward.
struct ObservedBucket {
  std::int64_t elements = 0;
  std::vector<std::string> gradients;
  Time launch_wall_offset;
};

// How a captured trace was taken; every field is optional (estimated and imported traces have
// none). The two ratios tell how far to trust the per-layer times.
struct CaptureDetails {
  std::string pytorch;
  std::string gpu;
  std::string cuda;
  std::string driver;
  std::string precision;  // "fp32", "amp" (fp16 autocast) or "bf16"
  std::optional<std::int64_t> warmup_iterations;
  std::optional<std::int64_t> timed_iterations;
  // Instrumented iteration time / plain iteration time - 1.
  std::optional<double> instrumentation_overhead;
  // (Sum of the per-layer times + optimizer step) / measured iteration.
  std::optional<double> layer_sum_ratio;
};

struct Provenance {
  std::string method;  // "captured", "estimated" or "imported"
  std::string description;
  std::string date;
  CaptureDetails capture;
};

// What a framework's distributed wrapper adds to training, measured by the capture tool from one
// GPU with the wrapper off and on (tools/capture/README.md): a fixed cost per iteration and a
// cost per collective call (per bucket or fused message).
struct FrameworkOverheads {
  std::string wrapper;  // e.g. "ddp"
  std::string backend;  // e.g. "nccl", "gloo"
  Time per_iteration;
  Time per_message;
};

struct Workload {
  std::string model;
  std::string device;
  std::string framework;
  int batch_size = 0;
  int sequence_length = 0;  // tokens per sample of a sequence model; 0: not a sequence model
  std::string gradient_dtype = "fp32";
  int bytes_per_element = 4;
  std::optional<Time> measured_iteration;
  Time optimizer;
  Provenance provenance;
  std::optional<FrameworkOverheads> framework_overheads;
  // The optimizer step on the GPU's timeline (profiler imports; see Layer::forward_wall).
  std::optional<Time> optimizer_wall;
  // The model's trainable parameters, when known: gradient elements must equal it.
  std::optional<std::int64_t> parameter_count;
  std::vector<ObservedBucket> observed_buckets;  // in launch order
  std::vector<Layer> layers;                     // forward order
};

// The gradient element types a trace or a scenario may name, and their size: 4 bytes for fp32,
// 2 for fp16 and bf16. dtype_bytes asks for one of gradient_dtypes().
const std::vector<std::string>& gradient_dtypes();
int dtype_bytes(std::string_view dtype);

// The first gradient tensor with this name, or null.
const GradientTensor* find_gradient(const Workload& workload, std::string_view name);

Time total_forward(const Workload& workload);
Time total_backward(const Workload& workload);
std::int64_t total_gradient_elements(const Workload& workload);
std::int64_t total_gradient_tensors(const Workload& workload);
Bytes total_gradient_bytes(const Workload& workload);
// A layer's gradient elements (its trainable parameters), and their bytes.
std::int64_t gradient_elements(const Layer& layer);
Bytes gradient_bytes(const Layer& layer, int bytes_per_element);

// The workload with every forward, backward and ready-offset time multiplied by one factor so
// that forward + backward equals the measured iteration minus the optimizer step. Captured
// per-layer times include what instrumentation adds (event records, launch gaps); this keeps
// their distribution and takes the total from the uninstrumented measurement. Throws InputError
// (naming `source`) when the trace has no measured iteration or it leaves no time for layers.
// `key`: what an error names, the scenario key that set the measured iteration.
Workload scaled_to_measured(Workload workload, const std::string& source,
                            std::string_view key = "compute.layer_times");

// One GPU's iteration at `samples_per_s` (measured, at the trace's batch): batch / samples_per_s.
// Throws InputError (naming `source`) for a trace without a batch size, or an iteration past
// Time's range.
Time single_gpu_iteration(const Workload& workload, double samples_per_s,
                          const std::string& source);

// What does not add up in a trace, with the numbers, one line each (trace show prints them):
// gradients ready after their backward pass ends (by more than 1%: the hook captures' event
// times include the hooks' own launch gaps); per-layer times adding up to more than 105% of the
// measured iteration (instrumentation inflated them).
std::vector<std::string> consistency_warnings(const Workload& workload);

// The workload replayed as the GPU's timeline shows it (compute.layer_times "wall"): every layer,
// ready offset and the optimizer step take their *_wall times, kernel time plus the waits for the
// host. Throws InputError (naming `source`) when the trace has no wall times (only profiler
// imports have them).
Workload on_wall_clock(Workload workload, const std::string& source);

}  // namespace sgdsim
