// Trace schema v1 reader.
#include "sgdsim/trace_io/trace_reader.hpp"

#include <fmt/format.h>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

GradientTensor read_gradient(jsonio::ObjectReader reader) {
  GradientTensor tensor;
  tensor.name = reader.text("name");
  tensor.elements = reader.integer_in("elements", 1, std::int64_t{1} << 40);
  if (reader.has("ready_offset_us")) {
    tensor.ready_offset = reader.duration_us("ready_offset_us",
                                             reader.non_negative_number_or("ready_offset_us", 0.0));
  }
  if (reader.has("ready_wall_offset_us")) {
    tensor.ready_wall_offset = reader.duration_us(
        "ready_wall_offset_us", reader.non_negative_number("ready_wall_offset_us"));
  }
  reader.reject_unknown_keys();
  return tensor;
}

Layer read_layer(jsonio::ObjectReader reader) {
  Layer layer;
  layer.name = reader.text("name");
  layer.forward =
      reader.duration_us("forward_us", reader.non_negative_number_or("forward_us", 0.0));
  layer.backward =
      reader.duration_us("backward_us", reader.non_negative_number_or("backward_us", 0.0));
  for (const auto& [key, field] : {std::pair{"forward_wall_us", &layer.forward_wall},
                                   std::pair{"backward_wall_us", &layer.backward_wall}}) {
    if (reader.has(key)) *field = reader.duration_us(key, reader.non_negative_number(key));
  }
  if (reader.has("gradients")) {
    const nlohmann::json& gradients = reader.value("gradients");
    if (!gradients.is_array()) reader.fail("gradients", "an array of gradient tensors", gradients);
    const std::string path = reader.path_of("gradients");
    for (std::size_t index = 0; index < gradients.size(); ++index) {
      layer.gradients.push_back(read_gradient(jsonio::ObjectReader(
          gradients[index], reader.source(), jsonio::element_path(path, index))));
    }
  }
  reader.reject_unknown_keys();
  return layer;
}

Provenance read_provenance(jsonio::ObjectReader reader) {
  Provenance provenance;
  provenance.method = reader.choice_or("method", {"captured", "estimated", "imported"}, "");
  if (provenance.method.empty()) {
    reader.fail("method", "one of \"captured\", \"estimated\", \"imported\"", nullptr);
  }
  provenance.description = reader.text("description");
  provenance.date = reader.text_or("date", "");
  CaptureDetails& capture = provenance.capture;
  capture.pytorch = reader.text_or("pytorch", "");
  capture.gpu = reader.text_or("gpu", "");
  capture.cuda = reader.text_or("cuda", "");
  capture.driver = reader.text_or("driver", "");
  capture.precision = reader.choice_or("precision", {"fp32", "amp", "bf16"}, "");
  if (reader.has("warmup_iterations"))
    capture.warmup_iterations = reader.integer_in("warmup_iterations", 0, 1 << 30);
  if (reader.has("timed_iterations"))
    capture.timed_iterations = reader.integer_in("timed_iterations", 1, 1 << 30);
  if (reader.has("instrumentation_overhead")) {
    // Negative when the instrumented run happened to be faster (noise), never below -1.
    const nlohmann::json& overhead = reader.value("instrumentation_overhead");
    if (!overhead.is_number() || overhead.get<double>() <= -1.0 || overhead.get<double>() > 1e6)
      reader.fail("instrumentation_overhead", "a number in (-1, 1e6]", overhead);
    capture.instrumentation_overhead = overhead.get<double>();
  }
  if (reader.has("layer_sum_ratio"))
    capture.layer_sum_ratio = reader.positive_number("layer_sum_ratio");
  reader.reject_unknown_keys();
  return provenance;
}

FrameworkOverheads read_framework_overheads(jsonio::ObjectReader reader) {
  FrameworkOverheads overheads;
  overheads.wrapper = reader.text("wrapper");
  overheads.backend = reader.text_or("backend", "");
  overheads.per_iteration =
      reader.duration_us("iteration_us", reader.non_negative_number("iteration_us"));
  overheads.per_message =
      reader.duration_us("message_us", reader.non_negative_number("message_us"));
  reader.reject_unknown_keys();
  return overheads;
}

ObservedBucket read_bucket(jsonio::ObjectReader reader) {
  ObservedBucket bucket;
  bucket.elements = reader.integer_in("elements", 1, std::int64_t{1} << 40);
  if (reader.has("gradients")) {
    const nlohmann::json& names = reader.value("gradients");
    if (!names.is_array()) reader.fail("gradients", "an array of gradient names", names);
    for (const nlohmann::json& name : names) {
      if (!name.is_string()) reader.fail("gradients", "an array of gradient names", names);
      bucket.gradients.push_back(name.get<std::string>());
    }
  }
  bucket.launch_wall_offset = reader.duration_us(
      "launch_wall_offset_us", reader.non_negative_number_or("launch_wall_offset_us", 0.0));
  reader.reject_unknown_keys();
  return bucket;
}

}  // namespace

Workload read_trace(const std::filesystem::path& path) {
  return read_trace(jsonio::parse_file(path));
}

Workload read_trace(const jsonio::Document& document) {
  jsonio::ObjectReader reader(document.root, document.source, "");
  if (!reader.has("format")) {
    throw value_error(document.source, "format", "\"sgdsim-trace\"",
                      "nothing (is this an sgdsim trace? see traces/README.md)");
  }
  if (reader.value("format") != "sgdsim-trace") {
    reader.fail("format", "\"sgdsim-trace\"", reader.value("format"));
  }
  const std::int64_t version = reader.integer_in("schema_version", 1, 1000);
  if (version != trace_schema_version) {
    reader.fail("schema_version",
                fmt::format("{} (this sgdsim reads trace schema version {})", trace_schema_version,
                            trace_schema_version),
                version);
  }
  Workload workload;
  workload.model = reader.text("model");
  workload.device = reader.text_or("device", "unknown");
  workload.framework = reader.text_or("framework", "unknown");
  workload.batch_size = static_cast<int>(reader.integer_in("batch_size", 1, 1 << 24));
  workload.sequence_length =
      static_cast<int>(reader.integer_in_or("sequence_length", 1, 1 << 24, 0));
  workload.gradient_dtype = reader.choice_or("gradient_dtype", gradient_dtypes(), "fp32");
  workload.bytes_per_element = dtype_bytes(workload.gradient_dtype);
  if (reader.has("measured_iteration_us")) {
    workload.measured_iteration = reader.duration_us(
        "measured_iteration_us", reader.positive_number("measured_iteration_us"));
  }
  workload.optimizer =
      reader.duration_us("optimizer_us", reader.non_negative_number_or("optimizer_us", 0.0));
  if (reader.has("optimizer_wall_us")) {
    workload.optimizer_wall =
        reader.duration_us("optimizer_wall_us", reader.non_negative_number("optimizer_wall_us"));
  }
  workload.provenance = read_provenance(reader.object("provenance"));
  if (reader.has("framework_overheads")) {
    workload.framework_overheads = read_framework_overheads(reader.object("framework_overheads"));
  }
  const nlohmann::json& layers = reader.value("layers");
  if (!layers.is_array() || layers.empty()) {
    reader.fail("layers", "a non-empty array of layers", layers);
  }
  for (std::size_t index = 0; index < layers.size(); ++index) {
    workload.layers.push_back(read_layer(jsonio::ObjectReader(
        layers[index], document.source, jsonio::element_path("layers", index))));
  }
  if (total_gradient_elements(workload) == 0) {
    reader.fail("layers", "at least one layer with gradients", layers);
  }
  if (reader.has("parameter_count")) {
    workload.parameter_count = reader.integer_in("parameter_count", 1, std::int64_t{1} << 40);
    if (*workload.parameter_count != total_gradient_elements(workload)) {
      reader.fail("parameter_count",
                  fmt::format("the sum of the gradients' elements, {} (a trace must list every "
                              "trainable parameter's gradient once)",
                              total_gradient_elements(workload)),
                  *workload.parameter_count);
    }
  }
  if (reader.has("observed_buckets")) {
    const nlohmann::json& buckets = reader.value("observed_buckets");
    if (!buckets.is_array()) reader.fail("observed_buckets", "an array of buckets", buckets);
    for (std::size_t index = 0; index < buckets.size(); ++index) {
      workload.observed_buckets.push_back(read_bucket(jsonio::ObjectReader(
          buckets[index], document.source, jsonio::element_path("observed_buckets", index))));
    }
  }
  reader.reject_unknown_keys();
  return workload;
}

}  // namespace sgdsim
