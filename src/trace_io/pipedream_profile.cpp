// PipeDream graph.txt parsing and topological ordering.
#include "sgdsim/trace_io/pipedream_profile.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <queue>
#include <regex>
#include <set>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

struct Node {
  std::string description;
  double forward_ms = 0.0;
  double backward_ms = 0.0;
  double parameter_bytes = 0.0;
};

int node_number(const std::string& name) {
  return std::stoi(name.substr(4));
}

}  // namespace

Workload import_pipedream_profile(const std::filesystem::path& path, int batch_size,
                                  const std::string& model, const std::string& device) {
  std::ifstream file(path);
  if (!file) throw InputError(fmt::format("{}: cannot open file", path.string()));
  const std::regex node_line(
      R"(^(node\d+) -- (.*) -- forward_compute_time=([0-9.eE+-]+), backward_compute_time=([0-9.eE+-]+), activation_size=([0-9.eE+-]+), parameter_size=([0-9.eE+-]+)\s*$)");
  const std::regex edge_line(R"(^\s*(node\d+) -- (node\d+)\s*$)");
  std::map<int, Node> nodes;
  std::vector<std::pair<int, int>> edges;
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    std::smatch match;
    if (std::regex_match(line, match, node_line)) {
      nodes[node_number(match[1])] =
          Node{match[2], std::stod(match[3]), std::stod(match[4]), std::stod(match[6])};
    } else if (std::regex_match(line, match, edge_line)) {
      edges.emplace_back(node_number(match[1]), node_number(match[2]));
    } else if (!line.empty()) {
      throw InputError(fmt::format(
          "{}:{}: expected a PipeDream node (\"nodeN -- ... -- forward_compute_time=...\") or edge "
          "(\"nodeA -- nodeB\") line, found \"{}\"",
          path.string(), line_number, line.size() > 60 ? line.substr(0, 57) + "..." : line));
    }
  }
  if (nodes.empty()) {
    throw InputError(
        fmt::format("{}: no PipeDream nodes found (is this a graph.txt?)", path.string()));
  }
  std::map<int, int> indegree;
  std::map<int, std::vector<int>> successors;
  for (const auto& [id, node] : nodes) indegree[id] = 0;
  for (const auto& [from, to] : edges) {
    if (!nodes.contains(from) || !nodes.contains(to)) {
      throw InputError(
          fmt::format("{}: edge node{} -- node{} names a node that is not defined (is "
                      "the file truncated?)",
                      path.string(), from, to));
    }
    successors[from].push_back(to);
    ++indegree[to];
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (const auto& [id, degree] : indegree) {
    if (degree == 0) ready.push(id);
  }
  Workload workload;
  workload.model = model;
  workload.device = device;
  workload.framework = "PipeDream profiler";
  workload.batch_size = batch_size;
  workload.provenance = {"imported",
                         fmt::format("PipeDream profile {} ({} layers); times as profiled, one "
                                     "gradient tensor per layer from parameter_size / 4",
                                     path.string(), nodes.size()),
                         "",
                         {}};
  while (!ready.empty()) {
    const int id = ready.top();
    ready.pop();
    const Node& node = nodes.at(id);
    Layer layer{
        fmt::format("node{} {}", id, node.description.substr(0, node.description.find('('))),
        Time::from_us(node.forward_ms * 1e3),
        Time::from_us(node.backward_ms * 1e3),
        {}};
    const auto elements = static_cast<std::int64_t>(node.parameter_bytes / 4.0);
    if (elements > 0)
      layer.gradients.push_back({fmt::format("node{}.parameters", id), elements, {}});
    workload.layers.push_back(std::move(layer));
    for (int next : successors[id]) {
      if (--indegree[next] == 0) ready.push(next);
    }
  }
  if (workload.layers.size() != nodes.size()) {
    throw InputError(
        fmt::format("{}: the graph has a cycle; a PipeDream profile is a DAG", path.string()));
  }
  return workload;
}

ImporterEntry pipedream_importer() {
  ImporterEntry entry;
  entry.name = "pipedream";
  entry.description =
      "PipeDream profile graph.txt (per-layer forward/backward times and parameter sizes)";
  entry.import = [](const ImportRequest& request) {
    const std::string model =
        request.model.empty() ? request.input.parent_path().filename().string() : request.model;
    return import_pipedream_profile(request.input, request.batch, model, request.device);
  };
  return entry;
}

}  // namespace sgdsim
