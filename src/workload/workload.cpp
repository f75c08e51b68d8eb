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

std::int64_t total_gradient_elements(const Workload& workload) {
  std::int64_t sum = 0;
  for (const Layer& layer : workload.layers) {
    for (const GradientTensor& tensor : layer.gradients) sum += tensor.elements;
  }
  return sum;
}

Bytes total_gradient_bytes(const Workload& workload) {
  return Bytes(total_gradient_elements(workload) * workload.bytes_per_element);
}

Bytes gradient_bytes(const Layer& layer, int bytes_per_element) {
  std::int64_t elements = 0;
  for (const GradientTensor& tensor : layer.gradients) elements += tensor.elements;
  return Bytes(elements * bytes_per_element);
}

Workload scaled_to_measured(Workload workload, const std::string& source) {
  if (!workload.measured_iteration) {
    throw InputError(
        fmt::format("{}: compute.layer_times: \"scaled_to_measured\" needs a trace with "
                    "measured_iteration_us, and {} has none (use \"as_traced\")",
                    source, workload.model));
  }
  const Time layers = total_forward(workload) + total_backward(workload);
  const Time target = *workload.measured_iteration - workload.optimizer;
  if (layers.ps() <= 0 || target.ps() <= 0) {
    throw InputError(fmt::format(
        "{}: compute.layer_times: cannot scale to the measured iteration: the trace's layers "
        "take {:.3f} ms and the measured iteration minus the optimizer step is {:.3f} ms",
        source, layers.ms(), target.ms()));
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

}  // namespace sgdsim
