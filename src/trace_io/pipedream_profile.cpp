// PipeDream graph.txt parsing and topological ordering.
#include "sgdsim/trace_io/pipedream_profile.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <string_view>

#include "sgdsim/core/error.hpp"
#include "sgdsim/core/input_file.hpp"

namespace sgdsim {

namespace {

struct Node {
  std::string description;
  double forward_ms = 0.0;
  double backward_ms = 0.0;
  double parameter_bytes = 0.0;
};

// Lines are parsed by hand, without std::regex (whose matcher recurses once per character and
// overflows the stack on a long line) and without std::stoi/stod (which throw on overflow).
std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// "node12" -> 12; nullopt when the text is not "node" and 1 to 9 digits.
std::optional<int> node_number(std::string_view name) {
  if (!name.starts_with("node") || name.size() < 5 || name.size() > 13) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(name.data() + 4, name.data() + name.size(), value);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return value;
}

// The value of "key=NUMBER" as a finite, non-negative double; nullopt otherwise.
std::optional<double> field(std::string_view text, std::string_view key) {
  text = trimmed(text);
  if (!text.starts_with(key) || text.size() <= key.size() || text[key.size()] != '=') {
    return std::nullopt;
  }
  const std::string_view number = text.substr(key.size() + 1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size() || !std::isfinite(value) ||
      value < 0.0) {
    return std::nullopt;
  }
  return value;
}

struct ParsedLine {
  enum class Kind : std::uint8_t { node, edge, other } kind = Kind::other;
  int id = 0;
  int to = 0;
  Node node;
};

ParsedLine parse_line(std::string_view line) {
  ParsedLine parsed;
  const std::string_view separator = " -- ";
  const std::string_view text = trimmed(line);
  const std::size_t first = text.find(separator);
  if (first == std::string_view::npos) return parsed;
  const std::optional<int> id = node_number(text.substr(0, first));
  if (!id) return parsed;
  const std::string_view rest = text.substr(first + separator.size());
  if (const std::optional<int> to = node_number(trimmed(rest))) {
    return ParsedLine{ParsedLine::Kind::edge, *id, *to, {}};
  }
  const std::string_view times = " -- forward_compute_time=";
  const std::size_t last = rest.rfind(times);
  if (last == std::string_view::npos) return parsed;
  std::vector<std::string_view> fields;
  std::string_view values = rest.substr(last + 4);
  for (std::size_t comma; (comma = values.find(',')) != std::string_view::npos;) {
    fields.push_back(values.substr(0, comma));
    values.remove_prefix(comma + 1);
  }
  fields.push_back(values);
  if (fields.size() != 4) return parsed;
  const auto forward = field(fields[0], "forward_compute_time");
  const auto backward = field(fields[1], "backward_compute_time");
  const auto activation = field(fields[2], "activation_size");
  const auto parameters = field(fields[3], "parameter_size");
  if (!forward || !backward || !activation || !parameters) return parsed;
  return ParsedLine{ParsedLine::Kind::node, *id, 0,
                    Node{std::string(rest.substr(0, last)), *forward, *backward, *parameters}};
}

}  // namespace

Workload import_pipedream_profile(const std::filesystem::path& path, int batch_size,
                                  const std::string& model, const std::string& device) {
  std::istringstream file(read_input_file(path, "file"));
  std::map<int, Node> nodes;
  std::vector<std::pair<int, int>> edges;
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    const ParsedLine parsed = parse_line(line);
    if (parsed.kind == ParsedLine::Kind::node && !valid_utf8(parsed.node.description)) {
      throw InputError(fmt::format(  // it becomes a layer name in a JSON trace: UTF-8 only
          "{}:{}: expected a node description in UTF-8 text, found bytes that are not UTF-8",
          path.string(), line_number));
    }
    if (parsed.kind == ParsedLine::Kind::node) {
      nodes[parsed.id] = parsed.node;
    } else if (parsed.kind == ParsedLine::Kind::edge) {
      edges.emplace_back(parsed.id, parsed.to);
    } else if (!trimmed(line).empty()) {
      throw InputError(fmt::format(
          "{}:{}: expected a PipeDream node (\"nodeN -- ... -- forward_compute_time=...\") or edge "
          "(\"nodeA -- nodeB\") line with node numbers below 10^9 and finite, non-negative "
          "numbers, found \"{}\"",
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
