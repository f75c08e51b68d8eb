// A ResNet-50-sized synthetic workload shared by the benchmarks: 107 layers of 239,000 fp32
// parameters (25.6 M in all) with V100-like times, so results do not depend on trace files.
#pragma once

#include <fmt/format.h>

#include "sgdsim/workload/workload.hpp"

namespace sgdsim::bench {

inline Workload resnet50_sized() {
  Workload workload;
  workload.model = "synthetic-resnet50-sized";
  workload.batch_size = 32;
  for (int index = 0; index < 107; ++index) {
    Layer layer{fmt::format("layer{}", index), Time::from_us(280.0), Time::from_us(560.0), {}};
    layer.gradients.push_back({layer.name + ".weight", 239'000, std::nullopt});
    workload.layers.push_back(layer);
  }
  workload.optimizer = Time::from_us(1000.0);
  return workload;
}

}  // namespace sgdsim::bench
