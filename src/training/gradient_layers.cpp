// Building the backward-order gradient view of a workload.
#include "sgdsim/training/gradient_layers.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

BackwardProfile backward_profile(const Workload& workload, const std::vector<RowGather>& gathered) {
  BackwardProfile profile;
  profile.forward = total_forward(workload);
  profile.backward = total_backward(workload);
  profile.optimizer = workload.optimizer;
  const std::int64_t element_bytes = workload.bytes_per_element;
  Time forward_end = profile.forward;
  Time elapsed;
  for (auto layer = workload.layers.rbegin(); layer != workload.layers.rend(); ++layer) {
    elapsed += layer->backward;
    forward_end -= layer->forward;
    if (layer->gradients.empty()) continue;
    GradientLayer out{layer->name, gradient_bytes(*layer, workload.bytes_per_element), {}};
    out.needed = forward_end;
    Time ready = Time::zero();
    bool captured = false;
    for (const GradientTensor& tensor : layer->gradients) {
      if (tensor.ready_offset) {
        ready = std::max(ready, *tensor.ready_offset);
        captured = true;
      }
      const auto rows = std::find_if(gathered.begin(), gathered.end(),
                                     [&](const RowGather& g) { return g.tensor == tensor.name; });
      if (rows == gathered.end()) continue;
      SGDSIM_ASSERT(tensor.elements % rows->row_elements == 0, "gathered rows do not tile");
      const std::int64_t count =
          std::min(tensor.elements / rows->row_elements,
                   std::int64_t{workload.batch_size} * rows->rows_per_sample);
      out.bytes = Bytes(out.bytes.count() - tensor.elements * element_bytes);
      out.gathered += Bytes(count * (rows->row_elements * element_bytes + 8));
      out.gathered_dense += Bytes(tensor.elements * element_bytes);
    }
    out.ready = captured ? ready : elapsed;
    profile.layers.push_back(std::move(out));
  }
  return profile;
}

}  // namespace sgdsim
