// A model's training step as plain data: layers in forward order with their compute times and
// gradient tensors. Filled from a trace file; no behaviour beyond totals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
};

struct Layer {
  std::string name;
  Time forward;
  Time backward;
  std::vector<GradientTensor> gradients;
};

struct Provenance {
  std::string method;  // "captured", "estimated" or "imported"
  std::string description;
  std::string date;
};

struct Workload {
  std::string model;
  std::string device;
  std::string framework;
  int batch_size = 0;
  std::string gradient_dtype = "fp32";
  int bytes_per_element = 4;
  std::optional<Time> measured_iteration;
  Time optimizer;
  Provenance provenance;
  std::vector<Layer> layers;  // forward order
};

Time total_forward(const Workload& workload);
Time total_backward(const Workload& workload);
std::int64_t total_gradient_elements(const Workload& workload);
Bytes total_gradient_bytes(const Workload& workload);
Bytes gradient_bytes(const Layer& layer, int bytes_per_element);

}  // namespace sgdsim
