// Building the backward-order gradient view of a workload.
#include "sgdsim/training/gradient_layers.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// Moves a gathered tensor's bytes from the summed part to the gathered rows.
void gather_rows(GradientLayer& out, const GradientTensor& tensor,
                 const std::vector<RowGather>& gathered, const Workload& workload) {
  const std::int64_t element_bytes = workload.bytes_per_element;
  const auto rows = std::find_if(gathered.begin(), gathered.end(),
                                 [&](const RowGather& g) { return g.tensor == tensor.name; });
  if (rows == gathered.end()) return;
  SGDSIM_ASSERT(tensor.elements % rows->row_elements == 0, "gathered rows do not tile");
  const std::int64_t count = std::min(tensor.elements / rows->row_elements,
                                      std::int64_t{workload.batch_size} * rows->rows_per_sample);
  out.bytes = Bytes(out.bytes.count() - tensor.elements * element_bytes);
  out.gathered += Bytes(count * (rows->row_elements * element_bytes + 8));
  out.gathered_dense += Bytes(tensor.elements * element_bytes);
}

}  // namespace

BackwardProfile backward_profile(const Workload& workload, const std::vector<RowGather>& gathered,
                                 bool per_tensor) {
  BackwardProfile profile;
  profile.forward = total_forward(workload);
  profile.backward = total_backward(workload);
  profile.optimizer = workload.optimizer;
  Time forward_end = profile.forward;
  Time elapsed;
  for (auto layer = workload.layers.rbegin(); layer != workload.layers.rend(); ++layer) {
    elapsed += layer->backward;
    forward_end -= layer->forward;
    if (layer->gradients.empty()) continue;
    if (per_tensor) {
      for (const GradientTensor& tensor : layer->gradients) {
        GradientLayer out{tensor.name, Bytes(tensor.elements * workload.bytes_per_element), {}};
        out.needed = forward_end;
        out.ready = tensor.ready_offset.value_or(elapsed);
        gather_rows(out, tensor, gathered, workload);
        profile.layers.push_back(std::move(out));
      }
      continue;
    }
    GradientLayer out{layer->name, gradient_bytes(*layer, workload.bytes_per_element), {}};
    out.needed = forward_end;
    Time ready = Time::zero();
    bool captured = false;
    for (const GradientTensor& tensor : layer->gradients) {
      if (tensor.ready_offset) {
        ready = std::max(ready, *tensor.ready_offset);
        captured = true;
      }
      gather_rows(out, tensor, gathered, workload);
    }
    out.ready = captured ? ready : elapsed;
    profile.layers.push_back(std::move(out));
  }
  if (per_tensor) {
    std::stable_sort(
        profile.layers.begin(), profile.layers.end(),
        [](const GradientLayer& a, const GradientLayer& b) { return a.ready < b.ready; });
  }
  return profile;
}

}  // namespace sgdsim
