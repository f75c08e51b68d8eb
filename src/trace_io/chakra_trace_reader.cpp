// Chakra ET -> workload: node names give phase and layer, ALL_REDUCE sizes give gradient tensors
// (the convention is spelled out in chakra_trace.hpp). Times stay whole duration_micros units
// ("ticks": microseconds, or ASTRA-sim's 1 ns cycles with --time-unit ns) until the end, so sums
// and ready offsets are exact.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <queue>

#include "chakra/et_stream.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"
#include "sgdsim/trace_io/chakra_trace.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"

namespace sgdsim {

namespace {

using detail::EtMessages;

// 10^12 ticks of compute in one iteration (11.6 days in microseconds): far beyond any real one,
// and well inside the +-106 days of Time.
constexpr std::uint64_t max_total_ticks = 1'000'000'000'000;

enum class Role { other, forward, backward, later_iteration };

struct CompName {
  Role phase = Role::other;
  std::string layer;
};

std::optional<CompName> parse_comp_name(std::string_view name) {
  if (name.starts_with("COMP_NODE_")) name.remove_prefix(std::string_view("COMP_NODE_").size());
  constexpr std::pair<std::string_view, Role> suffixes[] = {{"_FWD", Role::forward},
                                                            {"_BWD_WG", Role::backward},
                                                            {"_BWD_IG", Role::backward},
                                                            {"_BWD", Role::backward}};
  for (const auto& [suffix, phase] : suffixes) {
    if (name.ends_with(suffix)) {
      return CompName{phase, std::string(name.substr(0, name.size() - suffix.size()))};
    }
  }
  return std::nullopt;
}

std::string tensor_name(std::string_view name) {
  if (name.starts_with("COMM_COLL_NODE_"))
    name.remove_prefix(std::string_view("COMM_COLL_NODE_").size());
  if (name.ends_with("_ALLREDUCE")) name.remove_suffix(std::string_view("_ALLREDUCE").size());
  return std::string(name);
}

// Names as they appear in messages: at most 60 characters, unprintable bytes as '?'.
std::string printable(std::string_view text) {
  std::string shown(text.substr(0, 60));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  return text.size() > 60 ? shown + "..." : shown;
}

std::string node_path(const chakra::Node& node) {
  return fmt::format("node {} \"{}\"", node.id(), printable(node.name()));
}

std::string type_name(int type) {
  return chakra::NodeType_IsValid(type) ? chakra::NodeType_Name(static_cast<chakra::NodeType>(type))
                                        : fmt::format("node type {}", type);
}

std::string collective_name(std::int64_t type) {
  return type >= 0 && type <= INT32_MAX &&
                 chakra::CollectiveCommType_IsValid(static_cast<int>(type))
             ? chakra::CollectiveCommType_Name(static_cast<chakra::CollectiveCommType>(type))
             : fmt::format("collective type {}", type);
}

// An integer attribute in any of the integer fields Chakra writers use; nullopt when absent.
std::optional<std::int64_t> integer_attr(
    const google::protobuf::RepeatedPtrField<chakra::AttributeProto>& attrs, std::string_view name,
    std::string_view source, const std::string& path) {
  for (const chakra::AttributeProto& attr : attrs) {
    if (attr.name() != name) continue;
    switch (attr.value_case()) {
      case chakra::AttributeProto::kInt64Val: return attr.int64_val();
      case chakra::AttributeProto::kInt32Val: return attr.int32_val();
      case chakra::AttributeProto::kUint32Val: return attr.uint32_val();
      case chakra::AttributeProto::kUint64Val:
        if (attr.uint64_val() <= static_cast<std::uint64_t>(INT64_MAX)) {
          return static_cast<std::int64_t>(attr.uint64_val());
        }
        break;
      default: break;
    }
    throw value_error(source, fmt::format("{}: attribute {}", path, name),
                      "an integer (int64_val) that fits in 64 bits", "another kind of value");
  }
  return std::nullopt;
}

std::optional<std::string> text_attr(const chakra::GlobalMetadata& metadata, std::string_view name,
                                     std::string_view source) {
  for (const chakra::AttributeProto& attr : metadata.attr()) {
    if (attr.name() == name && attr.value_case() == chakra::AttributeProto::kStringVal) {
      if (!valid_utf8(attr.string_val())) {  // it becomes text in a JSON trace
        throw value_error(
            source, fmt::format("GlobalMetadata: attribute {}", name), "UTF-8 text",
            fmt::format("\"{}\", bytes that are not UTF-8", printable(attr.string_val())));
      }
      return attr.string_val();
    }
  }
  return std::nullopt;
}

void read_metadata(const chakra::GlobalMetadata& metadata, std::string_view source,
                   Workload& workload) {
  workload.device = text_attr(metadata, "device", source).value_or("unknown");
  workload.framework = text_attr(metadata, "framework", source).value_or("unknown");
  if (const auto model = text_attr(metadata, "model", source)) workload.model = *model;
  const std::string dtype = text_attr(metadata, "gradient_dtype", source).value_or("fp32");
  if (std::find(gradient_dtypes().begin(), gradient_dtypes().end(), dtype) ==
      gradient_dtypes().end()) {
    throw value_error(source, "GlobalMetadata: attribute gradient_dtype",
                      "\"fp32\", \"fp16\" or \"bf16\"", fmt::format("\"{}\"", printable(dtype)));
  }
  workload.gradient_dtype = dtype;
  workload.bytes_per_element = dtype_bytes(dtype);
  const auto batch = integer_attr(metadata.attr(), "batch_size", source, "GlobalMetadata");
  if (batch && (*batch < 1 || *batch > (1 << 24))) {
    throw value_error(source, "GlobalMetadata: attribute batch_size", "an integer in [1, 16777216]",
                      fmt::to_string(*batch));
  }
  workload.batch_size = batch ? static_cast<int>(*batch) : 1;
}

// Node indices in dependency order, ties broken by the smaller id (Kahn's algorithm).
std::vector<std::size_t> dependency_order(const std::vector<chakra::Node>& nodes,
                                          std::string_view source) {
  std::map<std::uint64_t, std::size_t> index_of;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!index_of.emplace(nodes[i].id(), i).second) {
      throw value_error(source, node_path(nodes[i]), "a node id no other node has",
                        fmt::format("id {} used by an earlier node too", nodes[i].id()));
    }
  }
  std::vector<std::size_t> waiting(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> dependents(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const auto* deps : {&nodes[i].data_deps(), &nodes[i].ctrl_deps()}) {
      for (const std::uint64_t dep : *deps) {
        const auto found = index_of.find(dep);
        if (found == index_of.end()) {
          throw value_error(
              source, node_path(nodes[i]), "dependencies on nodes in the file",
              fmt::format("a dependency on node {}, which is not there (is the file truncated?)",
                          dep));
        }
        dependents[found->second].push_back(i);
        ++waiting[i];
      }
    }
  }
  using Entry = std::pair<std::uint64_t, std::size_t>;  // (id, index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.emplace(nodes[i].id(), i);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (const std::size_t dependent : dependents[i]) {
      if (--waiting[dependent] == 0) ready.emplace(nodes[dependent].id(), dependent);
    }
  }
  if (order.size() < nodes.size()) {
    std::size_t stuck = 0;
    while (waiting[stuck] == 0) ++stuck;
    throw value_error(source, "nodes", "an acyclic dependency graph",
                      fmt::format("{} nodes, {} among them, waiting on a dependency cycle",
                                  nodes.size() - order.size(), node_path(nodes[stuck])));
  }
  return order;
}

void check_node_types(const std::vector<chakra::Node>& nodes, std::string_view source) {
  for (const chakra::Node& node : nodes) {
    const int type = node.type();
    if (type != chakra::COMP_NODE && type != chakra::COMM_COLL_NODE &&
        type != chakra::METADATA_NODE) {
      throw value_error(source, node_path(node),
                        "a COMP_NODE, COMM_COLL_NODE or METADATA_NODE (sgdsim reads "
                        "data-parallel ETs)",
                        type_name(type));
    }
    // Names become layer and tensor names in a JSON trace, which holds only UTF-8 text.
    if (!valid_utf8(node.name())) {
      throw value_error(source, fmt::format("node {}: name", node.id()), "UTF-8 text",
                        fmt::format("\"{}\", bytes that are not UTF-8", printable(node.name())));
    }
  }
}

// The compute part of the first iteration: layers with their times, and each node's role.
struct ComputeGraph {
  std::vector<Role> role;                         // by node index
  std::vector<std::size_t> layer;                 // by node index, for forward and backward nodes
  std::vector<std::uint64_t> backward_end_ticks;  // by node index: end, from the start of backward
  std::vector<std::uint64_t> forward_ticks, backward_ticks;  // by layer
  std::size_t later_iteration_nodes = 0;
};

ComputeGraph read_compute(const std::vector<chakra::Node>& nodes,
                          const std::vector<std::size_t>& order, std::string_view source,
                          Workload& workload) {
  ComputeGraph graph;
  graph.role.assign(nodes.size(), Role::other);
  graph.layer.assign(nodes.size(), 0);
  graph.backward_end_ticks.assign(nodes.size(), 0);
  std::map<std::string, std::size_t> layer_of_name;
  std::uint64_t total_ticks = 0;
  std::uint64_t backward_elapsed_ticks = 0;
  bool in_backward = false;
  for (const std::size_t i : order) {
    const chakra::Node& node = nodes[i];
    if (node.type() != chakra::COMP_NODE) continue;
    const auto name = parse_comp_name(node.name());
    if (!name) {
      throw value_error(source, node_path(node),
                        "a compute node name ending in _FWD, _BWD, _BWD_WG or _BWD_IG (the "
                        "convention of Chakra's text converter; see chakra_trace.hpp)",
                        fmt::format("\"{}\"", printable(node.name())));
    }
    if (graph.later_iteration_nodes > 0 || (in_backward && name->phase == Role::forward)) {
      graph.role[i] = Role::later_iteration;
      ++graph.later_iteration_nodes;
      continue;
    }
    const std::uint64_t duration = node.duration_micros();
    if (duration > max_total_ticks - total_ticks) {
      throw value_error(source, node_path(node),
                        "compute times adding up to at most 10^12 duration units per iteration "
                        "(11.6 days in microseconds)",
                        fmt::format("duration_micros {} after {}", duration, total_ticks));
    }
    total_ticks += duration;
    graph.role[i] = name->phase;
    auto found = layer_of_name.find(name->layer);
    if (name->phase == Role::forward) {
      if (found == layer_of_name.end()) {
        found = layer_of_name.emplace(name->layer, workload.layers.size()).first;
        workload.layers.push_back(Layer{name->layer, Time::zero(), Time::zero(), {}});
        graph.forward_ticks.push_back(0);
        graph.backward_ticks.push_back(0);
      }
      graph.forward_ticks[found->second] += duration;
    } else {
      if (found == layer_of_name.end()) {
        throw value_error(
            source, node_path(node),
            fmt::format("a _FWD node of layer \"{}\" before its backward", printable(name->layer)),
            "none");
      }
      in_backward = true;
      graph.backward_ticks[found->second] += duration;
      backward_elapsed_ticks += duration;
      graph.backward_end_ticks[i] = backward_elapsed_ticks;
    }
    graph.layer[i] = found->second;
  }
  if (workload.layers.empty()) {
    throw value_error(source, "nodes", "compute nodes (COMP_NODE) for the layers",
                      "none (a communication-only ET, such as an ASTRA-sim microbenchmark?)");
  }
  return graph;
}

struct PendingTensor {
  std::size_t layer = 0;
  GradientTensor tensor;
  std::uint64_t ready_ticks = 0;
};

// The backward node an ALL_REDUCE waits for (the latest in dependency order), nullopt when it
// waits for one of a later iteration.
std::optional<std::size_t> gradient_producer(const chakra::Node& node,
                                             const std::vector<chakra::Node>& nodes,
                                             const std::vector<std::size_t>& position,
                                             const std::map<std::uint64_t, std::size_t>& index_of,
                                             const ComputeGraph& graph, std::string_view source) {
  std::optional<std::size_t> producer;
  std::optional<std::size_t> forward;
  bool later = false;
  for (const auto* deps : {&node.data_deps(), &node.ctrl_deps()}) {
    for (const std::uint64_t dep : *deps) {
      const std::size_t j = index_of.at(dep);
      if (graph.role[j] == Role::backward && (!producer || position[j] > position[*producer])) {
        producer = j;
      }
      if (graph.role[j] == Role::forward) forward = j;
      if (graph.role[j] == Role::later_iteration) later = true;
    }
  }
  if (producer || later) return producer;
  throw value_error(source, node_path(node),
                    "an ALL_REDUCE of gradients that depends on a backward compute node",
                    forward ? fmt::format("a dependency on forward {} only (a model-parallel ET?)",
                                          node_path(nodes[*forward]))
                            : std::string("no dependency on a backward compute node"));
}

std::vector<PendingTensor> read_gradients(const std::vector<chakra::Node>& nodes,
                                          const std::vector<std::size_t>& order,
                                          const ComputeGraph& graph, std::string_view source,
                                          int bytes_per_element) {
  std::map<std::uint64_t, std::size_t> index_of;
  std::vector<std::size_t> position(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) index_of[nodes[i].id()] = i;
  for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  std::vector<PendingTensor> tensors;
  for (const std::size_t i : order) {
    const chakra::Node& node = nodes[i];
    if (node.type() != chakra::COMM_COLL_NODE) continue;
    const std::string path = node_path(node);
    const auto type = integer_attr(node.attr(), "comm_type", source, path);
    if (!type || *type != chakra::ALL_REDUCE) {
      throw value_error(source, fmt::format("{}: attribute comm_type", path),
                        "ALL_REDUCE, the collective of gradients in a data-parallel ET",
                        type ? collective_name(*type) + " (a model- or hybrid-parallel ET?)"
                             : std::string("no comm_type attribute"));
    }
    const auto size = integer_attr(node.attr(), "comm_size", source, path);
    // The trace format's bound on a tensor's elements (trace_reader.cpp), checked here so that
    // the error names this node, not the trace being written.
    if (!size || *size < 0 || *size % bytes_per_element != 0 ||
        *size / bytes_per_element > (std::int64_t{1} << 40)) {
      throw value_error(source, fmt::format("{}: attribute comm_size", path),
                        fmt::format("a size in bytes, a whole number of {}-byte gradient elements "
                                    "up to 2^40 of them",
                                    bytes_per_element),
                        size ? fmt::to_string(*size) : std::string("no comm_size attribute"));
    }
    const auto producer = gradient_producer(node, nodes, position, index_of, graph, source);
    if (*size == 0 || !producer) continue;  // nothing to send, or a later iteration
    std::string name = tensor_name(node.name());
    tensors.push_back({graph.layer[*producer],
                       {std::move(name), *size / bytes_per_element, std::nullopt},
                       graph.backward_end_ticks[*producer]});
  }
  if (tensors.empty()) {
    throw value_error(source, "nodes", "ALL_REDUCE nodes with comm_size > 0 (the gradients)",
                      "none");
  }
  return tensors;
}

Workload read_et(const EtMessages& et, std::string_view source, const std::string& default_model,
                 std::int64_t ps_per_tick) {
  Workload workload;
  workload.model = default_model;
  read_metadata(et.metadata, source, workload);
  check_node_types(et.nodes, source);
  const std::vector<std::size_t> order = dependency_order(et.nodes, source);
  const ComputeGraph graph = read_compute(et.nodes, order, source, workload);
  const std::vector<PendingTensor> tensors =
      read_gradients(et.nodes, order, graph, source, workload.bytes_per_element);

  // sgdsim's default ready time of a layer's gradients: the backward of every layer from the
  // last down to it (traces/README.md), here as exact sums of microseconds.
  const std::size_t layers = workload.layers.size();
  std::vector<std::uint64_t> default_ready_ticks(layers + 1, 0);
  for (std::size_t l = layers; l-- > 0;) {
    default_ready_ticks[l] = default_ready_ticks[l + 1] + graph.backward_ticks[l];
    workload.layers[l].forward =
        Time::from_ps(static_cast<std::int64_t>(graph.forward_ticks[l]) * ps_per_tick);
    workload.layers[l].backward =
        Time::from_ps(static_cast<std::int64_t>(graph.backward_ticks[l]) * ps_per_tick);
  }
  for (const PendingTensor& pending : tensors) {
    GradientTensor tensor = pending.tensor;
    if (pending.ready_ticks != default_ready_ticks[pending.layer]) {
      tensor.ready_offset =
          Time::from_ps(static_cast<std::int64_t>(pending.ready_ticks) * ps_per_tick);
    }
    workload.layers[pending.layer].gradients.push_back(std::move(tensor));
  }

  const std::optional<std::string> schema = text_attr(et.metadata, "schema", source);
  const auto batch = integer_attr(et.metadata.attr(), "batch_size", source, "GlobalMetadata");
  workload.provenance = {
      "imported",
      fmt::format("Chakra execution trace {} ({} nodes, schema {}): layers from COMP_NODE names, "
                  "gradients from ALL_REDUCE comm_size; times in whole {}{}{}",
                  source, et.nodes.size(), schema ? printable(*schema) : "not stated",
                  ps_per_tick == chakra_nanoseconds
                      ? "nanoseconds (durations read as ASTRA-sim 2.0 runs them: 1 ns cycles)"
                      : "microseconds",
                  graph.later_iteration_nodes > 0
                      ? fmt::format("; first iteration only ({} compute nodes of later ones "
                                    "skipped)",
                                    graph.later_iteration_nodes)
                      : "",
                  batch ? "" : "; the batch size is not in the ET and is set to 1"),
      "",
      {}};
  return workload;
}

}  // namespace

Workload read_chakra_trace(std::string_view bytes, std::string_view source,
                           std::int64_t ps_per_tick) {
  return read_et(detail::decode_et_stream(bytes, source), source, std::string(source), ps_per_tick);
}

Workload read_chakra_trace(const std::filesystem::path& path, std::int64_t ps_per_tick) {
  const std::string bytes = read_input_file(path, "file");
  return read_et(detail::decode_et_stream(bytes, path.string()), path.string(),
                 path.stem().string(), ps_per_tick);
}

ImporterEntry chakra_importer() {
  ImporterEntry entry;
  entry.name = "chakra";
  entry.description = "Chakra execution trace of one data-parallel rank (ASTRA-sim 2.0's input)";
  entry.needs_batch = false;  // from the ET's metadata when present, else 1
  entry.time_units = {"us", "ns"};
  entry.import = [](const ImportRequest& request) {
    Workload workload = read_chakra_trace(
        request.input, request.time_unit == "ns" ? chakra_nanoseconds : chakra_microseconds);
    if (request.batch > 0) workload.batch_size = request.batch;
    if (!request.model.empty()) workload.model = request.model;
    if (request.device != "unknown") workload.device = request.device;
    return workload;
  };
  return entry;
}

}  // namespace sgdsim
