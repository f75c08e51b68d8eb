// Totals over a workload's layers.
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

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

}  // namespace sgdsim
