// A workload seen from the communication side: the layers that produce gradients, in backward
// order, each with its gradient bytes and the offset into backward at which all its gradients
// are ready. Merge policies and schedules work on this view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"
#include "sgdsim/workload/workload.hpp"

namespace sgdsim {

struct GradientLayer {
  std::string name;
  Bytes bytes;    // summed by the collective's allreduce
  Time ready;     // offset from the start of backward
  Time needed{};  // offset from the start of forward at which the layer's forward begins
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

// A gradient tensor a framework sends as rows by allgather instead of summing it (a sparse
// embedding gradient): each worker sends the rows its batch touched, min(batch x
// rows_per_sample, rows), each with an 8-byte index. row_elements must divide the tensor.
struct RowGather {
  std::string tensor;
  std::int64_t rows_per_sample = 1;
  std::int64_t row_elements = 1;
};

// Readiness: the latest captured ready offset among a layer's tensors, or, where none was
// captured, the end of the layer's backward (rb(l) = sum of tb over layers L..l).
// Tensors named in `gathered` leave their layer's allreduce bytes for its gathered rows.
// With `per_tensor`, every gradient tensor is a unit of its own (named after the tensor, ready at
// its own offset, needed with its layer), in readiness order; ties keep backward order between
// layers and the trace's order within one (a profiler import lists them as they were stored).
BackwardProfile backward_profile(const Workload& workload,
                                 const std::vector<RowGather>& gathered = {},
                                 bool per_tensor = false);

}  // namespace sgdsim
