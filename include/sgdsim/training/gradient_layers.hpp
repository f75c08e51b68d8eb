// A workload seen from the communication side: the layers that produce gradients, in backward
// order, each with its gradient bytes and the offset into backward at which all its gradients
// are ready. Merge policies and schedules work on this view.
#pragma once

#include <string>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct GradientLayer {
  std::string name;
  Bytes bytes;  // summed by the collective's allreduce
  Time ready;   // offset from the start of backward
  // Sent as rows that cannot be summed on the way (a sparse embedding gradient): each worker
  // contributes `gathered` bytes to the collective's gather; `gathered_dense` is their size
  // once summed. Zero for dense layers.
  Bytes gathered{};
  Bytes gathered_dense{};
};

struct BackwardProfile {
  Time forward;
  Time backward;
  Time optimizer;
  std::vector<GradientLayer> layers;  // backward order: last forward layer first

  Time compute() const { return forward + backward + optimizer; }
};

// Readiness: the latest captured ready offset among a layer's tensors, or, where none was
// captured, the end of the layer's backward (rb(l) = sum of tb over layers L..l).
BackwardProfile backward_profile(const Workload& workload);

}  // namespace sgdsim
