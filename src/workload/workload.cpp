// Totals over a workload's layers.
#include "sgdsim/workload/workload.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

const std::vector<std::string>& gradient_dtypes() {
  static const std::vector<std::string> dtypes{"fp32", "fp16", "bf16"};
  return dtypes;
}

int dtype_bytes(std::string_view dtype) {
  SGDSIM_ASSERT(dtype == "fp32" || dtype == "fp16" || dtype == "bf16", "unknown gradient dtype");
  return dtype == "fp32" ? 4 : 2;
}

const GradientTensor* find_gradient(const Workload& workload, std::string_view name) {
  for (const Layer& layer : workload.layers) {
    for (const GradientTensor& tensor : layer.gradients) {
      if (tensor.name == name) return &tensor;
    }
  }
  return nullptr;
}

Time total_forward(const Workload& workload) {
  Time sum;
  for (const Layer& layer : workload.layers) sum += layer.forward;
  return sum;
}

Time total_backward(const Workload& workload) {
  Time sum;
  for (const Layer& layer : workload.layers) sum += layer.backward;
  return sum;
}

std::int64_t gradient_elements(const Layer& layer) {
  std::int64_t elements = 0;
  for (const GradientTensor& tensor : layer.gradients) elements += tensor.elements;
  return elements;
}

std::int64_t total_gradient_elements(const Workload& workload) {
  std::int64_t sum = 0;
  for (const Layer& layer : workload.layers) sum += gradient_elements(layer);
  return sum;
}

Bytes total_gradient_bytes(const Workload& workload) {
  return Bytes(total_gradient_elements(workload) * workload.bytes_per_element);
}

Bytes gradient_bytes(const Layer& layer, int bytes_per_element) {
  return Bytes(gradient_elements(layer) * bytes_per_element);
}

Workload scaled_to_measured(Workload workload, const std::string& source, std::string_view key) {
  if (!workload.measured_iteration) {
    throw InputError(
        fmt::format("{}: compute.layer_times: \"scaled_to_measured\" needs a trace with "
                    "measured_iteration_us, and {} has none (use \"as_traced\", or give one GPU's "
                    "measured throughput as compute.single_gpu_samples_per_s)",
                    source, workload.model));
  }
  const Time layers = total_forward(workload) + total_backward(workload);
  const Time target = *workload.measured_iteration - workload.optimizer;
  if (layers.ps() <= 0 || target.ps() <= 0) {
    throw InputError(fmt::format(
        "{}: {}: cannot scale to the measured iteration: the trace's layers take {:.3f} ms and "
        "the measured iteration minus the optimizer step is {:.3f} ms",
        source, key, layers.ms(), target.ms()));
  }
  const double factor = static_cast<double>(target.ps()) / static_cast<double>(layers.ps());
  auto scale = [factor](Time time) { return time.scaled(factor); };
  for (Layer& layer : workload.layers) {
    layer.forward = scale(layer.forward);
    layer.backward = scale(layer.backward);
    for (GradientTensor& tensor : layer.gradients) {
      if (tensor.ready_offset) tensor.ready_offset = scale(*tensor.ready_offset);
    }
  }
  return workload;
}

Time single_gpu_iteration(const Workload& workload, double samples_per_s,
                          const std::string& source) {
  if (workload.batch_size < 1) {
    throw InputError(fmt::format(
        "{}: compute.single_gpu_samples_per_s needs the trace's batch size, and {} has none",
        source, workload.model));
  }
  const double seconds = workload.batch_size / samples_per_s;
  if (!(seconds * 1e12 < Time::max_convertible_ps)) {
    throw InputError(fmt::format(
        "{}: compute.single_gpu_samples_per_s: {:g} samples/s makes one iteration of batch {} "
        "take {:g} s, past what sgdsim can time",
        source, samples_per_s, workload.batch_size, seconds));
  }
  return Time::from_seconds(seconds);
}

std::vector<std::string> consistency_warnings(const Workload& workload) {
  std::vector<std::string> out;
  const auto check_ready = [&](const char* clock, Time backward, auto offset_of) {
    int late = 0;
    const GradientTensor* latest = nullptr;
    for (const Layer& layer : workload.layers) {
      for (const GradientTensor& tensor : layer.gradients) {
        const std::optional<Time> offset = offset_of(tensor);
        if (!offset || offset->seconds() <= backward.seconds() * 1.01) continue;
        ++late;
        if (latest == nullptr || *offset > *offset_of(*latest)) latest = &tensor;
      }
    }
    if (late == 0) return;
    out.push_back(fmt::format(
        "{} of {} gradients are ready after the backward pass ends{}: {} at {:.3f} ms, backward "
        "takes {:.3f} ms; the ready times and the layer times disagree (a hook capture's events "
        "include its own launch gaps), so exposed communication is overstated",
        late, total_gradient_tensors(workload), clock, latest->name, offset_of(*latest)->ms(),
        backward.ms()));
  };
  check_ready("", total_backward(workload), [](const GradientTensor& t) { return t.ready_offset; });
  Time backward_wall;
  bool has_wall = true;
  for (const Layer& layer : workload.layers) {
    if (!layer.backward_wall) has_wall = false;
    backward_wall += layer.backward_wall.value_or(Time::zero());
  }
  if (has_wall) {
    check_ready(" on the GPU's timeline", backward_wall,
                [](const GradientTensor& t) { return t.ready_wall_offset; });
  }
  const Time compute = total_forward(workload) + total_backward(workload) + workload.optimizer;
  if (workload.measured_iteration &&
      compute.seconds() > 1.05 * workload.measured_iteration->seconds()) {
    out.push_back(fmt::format(
        "the layers and optimizer add up to {:.3f} ms, {:.2f}x the measured iteration of {:.3f} "
        "ms: the per-layer times include what instrumentation added; compute.layer_times "
        "\"scaled_to_measured\" rescales them",
        compute.ms(), compute.seconds() / workload.measured_iteration->seconds(),
        workload.measured_iteration->ms()));
  }
  return out;
}

std::int64_t total_gradient_tensors(const Workload& workload) {
  std::int64_t count = 0;
  for (const Layer& layer : workload.layers)
    count += static_cast<std::int64_t>(layer.gradients.size());
  return count;
}

Workload on_wall_clock(Workload workload, const std::string& source) {
  const auto missing = [&](const std::string& what) {
    return InputError(fmt::format(
        "{}: compute.layer_times: \"wall\" needs a trace with the GPU timeline's times "
        "(forward_wall_us, backward_wall_us, ready_wall_offset_us, optimizer_wall_us: a trace "
        "imported from a PyTorch profiler trace), and {} has no {}",
        source, workload.model, what));
  };
  if (!workload.optimizer_wall) throw missing("optimizer_wall_us");
  workload.optimizer = *workload.optimizer_wall;
  for (Layer& layer : workload.layers) {
    if (!layer.forward_wall || !layer.backward_wall)
      throw missing(fmt::format("wall times for layer {}", layer.name));
    layer.forward = *layer.forward_wall;
    layer.backward = *layer.backward_wall;
    for (GradientTensor& tensor : layer.gradients) {
      if (!tensor.ready_wall_offset && tensor.ready_offset)
        throw missing(fmt::format("ready_wall_offset_us for {}", tensor.name));
      tensor.ready_offset = tensor.ready_wall_offset;
    }
  }
  return workload;
}

}  // namespace sgdsim
