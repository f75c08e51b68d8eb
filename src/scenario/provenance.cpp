// Provenance of a result: see provenance.hpp.
#include "sgdsim/scenario/provenance.hpp"

#include <algorithm>
#include <string>

#include "sgdsim/core/build_info.hpp"
#include "sgdsim/core/input_file.hpp"

namespace sgdsim {

namespace {

nlohmann::ordered_json settings_json(const Settings& settings) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : settings.values()) {
    std::visit([&, &key = key](const auto& v) { out[key] = v; }, value);
  }
  return out;
}

std::string_view protocol_name(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll: return "LL";
    case NcclProtocol::ll128: return "LL128";
    case NcclProtocol::simple: return "Simple";
  }
  return "?";
}

// Per-rank compute (per_rank fidelity) and what the framework adds.
nlohmann::ordered_json compute_json(const ScenarioConfig& config) {
  nlohmann::ordered_json stragglers = nlohmann::ordered_json::array();
  for (const auto& [rank, slowdown] : config.compute.stragglers) {
    stragglers.push_back({{"rank", rank}, {"slowdown", slowdown}});
  }
  const auto overhead = [](const std::optional<Time>& time) {
    return time ? nlohmann::ordered_json(time->us()) : nlohmann::ordered_json();
  };
  return {
      {"jitter_cv", config.compute.jitter_cv},
      {"stragglers", std::move(stragglers)},
      {"ranks_scaled", config.compute.scale.size()},
      {"accumulation_steps", config.accumulation_steps},
      {"framework_iteration_overhead_us", overhead(config.iteration_overhead)},
      {"framework_message_overhead_us", overhead(config.call_overhead)},
      {"single_gpu_samples_per_s", config.single_gpu_samples_per_s
                                       ? nlohmann::ordered_json(*config.single_gpu_samples_per_s)
                                       : nlohmann::ordered_json()}};
}

nlohmann::ordered_json resolved_json(const ScenarioConfig& config) {
  const NetworkConfig& network = config.network;
  nlohmann::ordered_json transport;
  if (network.transport) {
    const Transport& t = *network.transport;
    transport = {{"name", t.name},
                 {"goodput_fraction", t.goodput_fraction},
                 {"message_overhead_us", t.message_overhead.us()},
                 {"flow_cap_gbps", t.flow_cap.gbps()},
                 {"connections", t.connections_used}};
  }
  nlohmann::ordered_json protocols = nlohmann::ordered_json::array();
  for (const NcclProtocol protocol : config.nccl_protocols) {
    protocols.push_back(protocol_name(protocol));
  }
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const MergePolicy policy : config.policies) policies.push_back(policy_name(policy));
  nlohmann::ordered_json compressions = nlohmann::ordered_json::array();
  for (const CompressionChoice& choice : config.compressions) {
    compressions.push_back(compressor_label(choice.spec));
  }
  nlohmann::ordered_json schedules = nlohmann::ordered_json::array();
  for (const AveragingSpec& spec : config.schedules) schedules.push_back(averaging_label(spec));
  return {{"trace", config.trace_path.lexically_normal().string()},
          {"cluster",
           {{"gpus", config.gpus},
            {"gpus_per_node", config.gpus_per_node},
            {"nodes", config.gpus / config.gpus_per_node},
            {"node",
             config.node ? nlohmann::ordered_json(config.node->name) : nlohmann::ordered_json()},
            {"nic_per_gpu", config.nic_per_gpu},
            {"intra_node_bandwidth_gbps", config.intra_node.bandwidth.gbps()},
            {"intra_node_latency_us", config.intra_node.latency.us()},
            {"leaf_nodes", config.leaf_nodes},
            {"oversubscription", config.oversubscription}}},
          {"network", network.stated
                          ? nlohmann::ordered_json{{"bandwidth_gbps", network.line_rate.gbps()},
                                                   {"goodput_gbps", network.link.bandwidth.gbps()},
                                                   {"latency_us", network.link.latency.us()},
                                                   {"transport", std::move(transport)},
                                                   {"measured_allreduce_fits",
                                                    network.measured_allreduce.size()}}
                          : nlohmann::ordered_json()},
          {"collective",
           {{"name", config.collective->name},
            {"settings", settings_json(config.collective_settings)},
            {"chunks", config.collective_chunks},
            {"nccl_protocols", std::move(protocols)}}},
          {"merge_policies", std::move(policies)},
          {"compressions", std::move(compressions)},
          {"schedules", std::move(schedules)},
          {"run_iterations", config.run_iterations},
          {"compute", compute_json(config)},
          {"fidelity", config.fidelity},
          {"iterations", config.iterations},
          {"seed", config.seed}};
}

}  // namespace

nlohmann::ordered_json input_digests(const std::vector<std::filesystem::path>& inputs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  std::vector<std::filesystem::path> seen;
  for (const std::filesystem::path& input : inputs) {
    const std::filesystem::path path = input.lexically_normal();
    std::error_code error;
    if (std::find(seen.begin(), seen.end(), path) != seen.end() ||
        !std::filesystem::is_regular_file(path, error)) {
      continue;
    }
    seen.push_back(path);
    const std::string bytes = read_input_file(path, "input");
    out.push_back(
        {{"path", path.string()}, {"bytes", bytes.size()}, {"sha256", sha256_hex(bytes)}});
  }
  return out;
}

nlohmann::ordered_json provenance_json(const ScenarioConfig& config) {
  return {{"sgdsim_version", sgdsim_version()},
          {"commit", sgdsim_commit()},
          {"inputs", input_digests(config.source_is_file ? config.input_files
                                                         : std::vector<std::filesystem::path>(
                                                               config.input_files.begin() + 1,
                                                               config.input_files.end()))},
          {"scenario",
           config.document ? nlohmann::ordered_json(*config.document) : nlohmann::ordered_json()},
          {"resolved", resolved_json(config)}};
}

}  // namespace sgdsim
