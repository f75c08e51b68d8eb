// `trace show`: one row per layer in forward order, then totals.
#include "sgdsim/trace_io/trace_summary.hpp"

#include <fmt/format.h>

namespace sgdsim {

std::string trace_summary(const Workload& workload) {
  std::string out = fmt::format(
      "model {}  batch {}  gradients {}  device {}\nframework {}\nprovenance: {} - {}{}\n",
      workload.model, workload.batch_size, workload.gradient_dtype, workload.device,
      workload.framework, workload.provenance.method, workload.provenance.description,
      workload.provenance.date.empty() ? "" : fmt::format(" ({})", workload.provenance.date));
  if (const auto& overheads = workload.framework_overheads) {
    out += fmt::format(
        "framework overheads ({}{}): {:.3f} us per iteration + {:.3f} us per message\n",
        overheads->wrapper, overheads->backend.empty() ? "" : " on " + overheads->backend,
        overheads->per_iteration.us(), overheads->per_message.us());
  }
  out += "\n";
  out += fmt::format("{:>4}  {:<32} {:>12} {:>12} {:>10} {:>12}\n", "#", "layer", "forward ms",
                     "backward ms", "tensors", "grad bytes");
  int index = 0;
  for (const Layer& layer : workload.layers) {
    out += fmt::format("{:>4}  {:<32} {:>12.4f} {:>12.4f} {:>10} {:>12}\n", index++,
                       layer.name.size() > 32 ? layer.name.substr(0, 29) + "..." : layer.name,
                       layer.forward.ms(), layer.backward.ms(), layer.gradients.size(),
                       gradient_bytes(layer, workload.bytes_per_element).count());
  }
  const Time compute = total_forward(workload) + total_backward(workload) + workload.optimizer;
  out += fmt::format(
      "\ntotal: {} layers, {} gradient elements ({:.3f} MB)\n"
      "forward {:.3f} ms, backward {:.3f} ms, optimizer {:.3f} ms, sum {:.3f} ms\n",
      workload.layers.size(), total_gradient_elements(workload),
      total_gradient_bytes(workload).megabytes(), total_forward(workload).ms(),
      total_backward(workload).ms(), workload.optimizer.ms(), compute.ms());
  if (workload.measured_iteration) {
    out += fmt::format("measured iteration {:.3f} ms (layer sum is {:.1f}% of it)\n",
                       workload.measured_iteration->ms(),
                       100.0 * compute.seconds() / workload.measured_iteration->seconds());
  }
  Time wall = workload.optimizer_wall.value_or(Time::zero());
  for (const Layer& layer : workload.layers)
    wall += layer.forward_wall.value_or(Time::zero()) + layer.backward_wall.value_or(Time::zero());
  if (workload.optimizer_wall && wall > Time::zero()) {
    out += fmt::format(
        "on the GPU's timeline {:.3f} ms: the kernels keep the GPU busy {:.1f}% of it, the rest "
        "is waiting for the host (compute.layer_times \"wall\" replays it)\n",
        wall.ms(), 100.0 * compute.seconds() / wall.seconds());
  }
  if (workload.parameter_count) {
    out += fmt::format("parameters {} (every one has its gradient)\n", *workload.parameter_count);
  }
  if (!workload.observed_buckets.empty()) {
    out += fmt::format("\n{} collective calls in the profile (DDP buckets), in launch order:\n",
                       workload.observed_buckets.size());
    out += fmt::format("{:>4}  {:>12} {:>8} {:>16}  {}\n", "#", "elements", "tensors",
                       "launch ms (wall)", "gradients");
    int bucket_index = 0;
    for (const ObservedBucket& bucket : workload.observed_buckets) {
      const std::string span =
          bucket.gradients.empty() ? "(no run of ready gradients adds up to it)"
          : bucket.gradients.size() == 1
              ? bucket.gradients.front()
              : fmt::format("{}..{}", bucket.gradients.front(), bucket.gradients.back());
      out += fmt::format("{:>4}  {:>12} {:>8} {:>16.3f}  {}\n", bucket_index++, bucket.elements,
                         bucket.gradients.size(), bucket.launch_wall_offset.ms(), span);
    }
  }
  for (const std::string& warning : consistency_warnings(workload)) {
    out += "warning: " + warning + "\n";
  }
  return out;
}

}  // namespace sgdsim
