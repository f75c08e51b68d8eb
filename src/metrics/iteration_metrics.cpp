// Breakdown and scaling arithmetic.
#include "sgdsim/metrics/iteration_metrics.hpp"

#include <algorithm>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

IterationBreakdown breakdown(Time iteration, Time compute, const std::vector<MessageSpan>& spans) {
  // An iteration shorter than the trace's compute: per_rank's GPUs faster than the trace's
  // (compute.groups' scale below 1, a jitter draw below its mean) with communication that
  // hides; none of it is exposed then.
  IterationBreakdown result;
  result.iteration = iteration;
  result.compute = compute;
  for (const MessageSpan& span : spans) {
    SGDSIM_ASSERT(span.ready <= span.start && span.start <= span.end, "message span out of order");
    result.communication += span.end - span.start;
    result.gradient_bytes += span.bytes;
  }
  result.messages = static_cast<int>(spans.size());
  result.exposed_communication = std::max(Time::zero(), iteration - compute);
  result.overlapped_communication =
      hidden_communication(result.communication, result.exposed_communication);
  return result;
}

Time hidden_communication(Time busy, Time exposed) {
  return std::max(Time::zero(), busy - exposed);
}

ScalingFigures scaling(Time iteration, Time single_gpu_iteration, int gpus, int batch_size) {
  SGDSIM_ASSERT(iteration > Time::zero(), "an iteration that takes no time");
  const double ratio = single_gpu_iteration.seconds() / iteration.seconds();
  return ScalingFigures{gpus * static_cast<double>(batch_size) / iteration.seconds(), gpus * ratio,
                        ratio};
}

}  // namespace sgdsim
