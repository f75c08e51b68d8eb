// Building the backward-order gradient view of a workload.
#include "sgdsim/training/gradient_layers.hpp"

#include <algorithm>

namespace sgdsim {

BackwardProfile backward_profile(const Workload& workload) {
  BackwardProfile profile;
  profile.forward = total_forward(workload);
  profile.backward = total_backward(workload);
  profile.optimizer = workload.optimizer;
  Time elapsed;
  for (auto layer = workload.layers.rbegin(); layer != workload.layers.rend(); ++layer) {
    elapsed += layer->backward;
    if (layer->gradients.empty()) continue;
    Time ready = Time::zero();
    bool captured = false;
    for (const GradientTensor& tensor : layer->gradients) {
      if (tensor.ready_offset) {
        ready = std::max(ready, *tensor.ready_offset);
        captured = true;
      }
    }
    profile.layers.push_back(GradientLayer{layer->name,
                                           gradient_bytes(*layer, workload.bytes_per_element),
                                           captured ? ready : elapsed});
  }
  return profile;
}

}  // namespace sgdsim
