// Workload -> Chakra ET of one data-parallel rank, in the shape Chakra's text converter gives
// ASTRA-sim's "DATA" workloads, with one _BWD node per layer and one ALL_REDUCE per tensor.
// Times are rounded to the nearest microsecond, the resolution of duration_micros.
#include <fmt/format.h>

#include <limits>
#include <optional>
#include <set>

#include "chakra/et_stream.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/trace_io/chakra_trace.hpp"

namespace sgdsim {

namespace {

// Written in the GlobalMetadata's "schema" attribute: the version of this layout of an ET.
constexpr std::string_view schema = "sgdsim-chakra-et 1";

void add_attr(google::protobuf::RepeatedPtrField<chakra::AttributeProto>& attrs,
              std::string_view name, std::string_view text) {
  chakra::AttributeProto& attr = *attrs.Add();
  attr.set_name(std::string(name));
  attr.set_string_val(std::string(text));
}

void add_attr(google::protobuf::RepeatedPtrField<chakra::AttributeProto>& attrs,
              std::string_view name, std::int64_t value) {
  chakra::AttributeProto& attr = *attrs.Add();
  attr.set_name(std::string(name));
  attr.set_int64_val(value);
}

// Nearest whole microsecond: 1 us = 10^6 ps, halves rounded up.
std::uint64_t whole_us(Time time, std::string_view source, const std::string& path) {
  if (time < Time::zero()) {
    throw value_error(source, path, "a time >= 0", fmt::format("{} us", time.us()));
  }
  return static_cast<std::uint64_t>((time.ps() + 500'000) / 1'000'000);
}

void check_unique_names(const Workload& workload, std::string_view source) {
  std::set<std::string> names;
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    if (!names.insert(workload.layers[l].name).second) {
      throw value_error(source, fmt::format("layers[{}].name", l),
                        "a name no earlier layer has (an ET names a layer's nodes after it)",
                        fmt::format("\"{}\"", workload.layers[l].name));
    }
  }
}

}  // namespace

void write_chakra_trace(const Workload& workload, std::ostream& out, std::string_view source) {
  check_unique_names(workload, source);
  chakra::GlobalMetadata metadata;
  add_attr(*metadata.mutable_attr(), "schema", schema);
  add_attr(*metadata.mutable_attr(), "model", workload.model);
  add_attr(*metadata.mutable_attr(), "device", workload.device);
  add_attr(*metadata.mutable_attr(), "framework", workload.framework);
  add_attr(*metadata.mutable_attr(), "gradient_dtype", workload.gradient_dtype);
  add_attr(*metadata.mutable_attr(), "batch_size", std::int64_t{workload.batch_size});
  detail::write_et_message(metadata, out);

  std::uint64_t next_id = 0;
  std::optional<std::uint64_t> previous;  // the compute node the next one waits for
  const auto write_compute = [&](const std::string& name, std::uint64_t duration_us) {
    chakra::Node node;
    node.set_id(next_id++);
    node.set_name(name);
    node.set_type(chakra::COMP_NODE);
    node.set_duration_micros(duration_us);
    if (previous) node.add_data_deps(*previous);
    previous = node.id();
    detail::write_et_message(node, out);
  };
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    const Layer& layer = workload.layers[l];
    write_compute(fmt::format("COMP_NODE_{}_FWD", layer.name),
                  whole_us(layer.forward, source, fmt::format("layers[{}].forward_us", l)));
  }
  for (std::size_t l = workload.layers.size(); l-- > 0;) {
    const Layer& layer = workload.layers[l];
    write_compute(fmt::format("COMP_NODE_{}_BWD", layer.name),
                  whole_us(layer.backward, source, fmt::format("layers[{}].backward_us", l)));
    for (std::size_t t = 0; t < layer.gradients.size(); ++t) {
      const GradientTensor& tensor = layer.gradients[t];
      if (tensor.elements < 1 ||
          tensor.elements > std::numeric_limits<std::int64_t>::max() / workload.bytes_per_element) {
        throw value_error(source, fmt::format("layers[{}].gradients[{}].elements", l, t),
                          "a count >= 1 whose size in bytes fits in 64 bits",
                          fmt::to_string(tensor.elements));
      }
      chakra::Node node;
      node.set_id(next_id++);
      node.set_name(fmt::format("COMM_COLL_NODE_{}_ALLREDUCE", tensor.name));
      node.set_type(chakra::COMM_COLL_NODE);
      node.add_data_deps(*previous);
      add_attr(*node.mutable_attr(), "comm_type", std::int64_t{chakra::ALL_REDUCE});
      add_attr(*node.mutable_attr(), "comm_size", tensor.elements * workload.bytes_per_element);
      detail::write_et_message(node, out);
    }
  }
}

}  // namespace sgdsim
