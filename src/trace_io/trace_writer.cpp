// Trace schema v1 writer; times are written in microseconds with picosecond resolution.
#include "sgdsim/trace_io/trace_writer.hpp"

#include <utility>

#include "sgdsim/trace_io/trace_reader.hpp"

namespace sgdsim {

namespace {

nlohmann::json provenance_to_json(const Provenance& provenance) {
  nlohmann::json out{{"method", provenance.method},
                     {"description", provenance.description},
                     {"date", provenance.date}};
  const CaptureDetails& capture = provenance.capture;
  for (const auto& [key, text] : {std::pair{"pytorch", &capture.pytorch},
                                  {"gpu", &capture.gpu},
                                  {"cuda", &capture.cuda},
                                  {"driver", &capture.driver},
                                  {"precision", &capture.precision}}) {
    if (!text->empty()) out[key] = *text;
  }
  if (capture.warmup_iterations) out["warmup_iterations"] = *capture.warmup_iterations;
  if (capture.timed_iterations) out["timed_iterations"] = *capture.timed_iterations;
  if (capture.instrumentation_overhead)
    out["instrumentation_overhead"] = *capture.instrumentation_overhead;
  if (capture.layer_sum_ratio) out["layer_sum_ratio"] = *capture.layer_sum_ratio;
  return out;
}

}  // namespace

nlohmann::json trace_to_json(const Workload& workload) {
  nlohmann::json layers = nlohmann::json::array();
  for (const Layer& layer : workload.layers) {
    nlohmann::json gradients = nlohmann::json::array();
    for (const GradientTensor& tensor : layer.gradients) {
      nlohmann::json entry{{"name", tensor.name}, {"elements", tensor.elements}};
      if (tensor.ready_offset) entry["ready_offset_us"] = tensor.ready_offset->us();
      if (tensor.ready_wall_offset) entry["ready_wall_offset_us"] = tensor.ready_wall_offset->us();
      gradients.push_back(std::move(entry));
    }
    nlohmann::json out{{"name", layer.name},
                       {"forward_us", layer.forward.us()},
                       {"backward_us", layer.backward.us()}};
    if (layer.forward_wall) out["forward_wall_us"] = layer.forward_wall->us();
    if (layer.backward_wall) out["backward_wall_us"] = layer.backward_wall->us();
    out["gradients"] = std::move(gradients);
    layers.push_back(std::move(out));
  }
  nlohmann::json trace{{"format", "sgdsim-trace"},
                       {"schema_version", trace_schema_version},
                       {"model", workload.model},
                       {"device", workload.device},
                       {"framework", workload.framework},
                       {"batch_size", workload.batch_size},
                       {"gradient_dtype", workload.gradient_dtype},
                       {"optimizer_us", workload.optimizer.us()},
                       {"provenance", provenance_to_json(workload.provenance)},
                       {"layers", std::move(layers)}};
  if (workload.sequence_length > 0) trace["sequence_length"] = workload.sequence_length;
  if (workload.optimizer_wall) trace["optimizer_wall_us"] = workload.optimizer_wall->us();
  if (workload.parameter_count) trace["parameter_count"] = *workload.parameter_count;
  if (!workload.observed_buckets.empty()) {
    nlohmann::json buckets = nlohmann::json::array();
    for (const ObservedBucket& bucket : workload.observed_buckets) {
      buckets.push_back({{"elements", bucket.elements},
                         {"gradients", bucket.gradients},
                         {"launch_wall_offset_us", bucket.launch_wall_offset.us()}});
    }
    trace["observed_buckets"] = std::move(buckets);
  }
  if (workload.measured_iteration)
    trace["measured_iteration_us"] = workload.measured_iteration->us();
  if (const auto& overheads = workload.framework_overheads) {
    trace["framework_overheads"] = {{"wrapper", overheads->wrapper},
                                    {"iteration_us", overheads->per_iteration.us()},
                                    {"message_us", overheads->per_message.us()}};
    if (!overheads->backend.empty()) trace["framework_overheads"]["backend"] = overheads->backend;
  }
  return trace;
}

void write_trace(const Workload& workload, std::ostream& out) {
  out << trace_to_json(workload).dump(1) << '\n';
}

}  // namespace sgdsim
