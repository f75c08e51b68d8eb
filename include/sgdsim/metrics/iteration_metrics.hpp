// What a simulated iteration is reported as: compute, communication busy time, the part of
// communication not hidden behind compute (exposed), and throughput figures against one GPU.
#pragma once

#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/core/units.hpp"

namespace sgdsim {

struct MessageSpan {
  Bytes bytes;
  Time ready;  // when the message could have started
  Time start;
  Time end;
};

struct IterationBreakdown {
  Time iteration;
  Time compute;                   // forward + backward + optimizer, what one GPU alone would take
  Time communication;             // sum of message durations (busy time of the stream)
  Time exposed_communication;     // iteration - compute, at least 0: communication that no
                                  // compute hides, and any wait for a policy's release
                                  // (Horovod's cycle)
  Time overlapped_communication;  // communication - exposed, at least 0
  int messages = 0;
  Bytes gradient_bytes;
};

IterationBreakdown breakdown(Time iteration, Time compute, const std::vector<MessageSpan>& spans);

// Communication hidden behind compute: the stream's busy time less what compute waited for, at
// least 0. What compute waited for beyond the busy time (a policy's release, as Horovod's
// cycle; compute slowed beside the collectives) is exposed but no communication.
Time hidden_communication(Time busy, Time exposed);

struct ScalingFigures {
  double samples_per_second = 0.0;  // gpus * batch / iteration
  double speedup = 0.0;             // throughput against one GPU: gpus * single / iteration
  double efficiency = 0.0;          // speedup / gpus = single / iteration
};

// `single_gpu_iteration` is the iteration without any communication.
ScalingFigures scaling(Time iteration, Time single_gpu_iteration, int gpus, int batch_size);

}  // namespace sgdsim
