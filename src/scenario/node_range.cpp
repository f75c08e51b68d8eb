// The range over node presets of a scenario that names no node (node_range.hpp).
#include "sgdsim/scenario/node_range.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "sgdsim/scenario/node_presets.hpp"
#include "sgdsim/scenario/scenario_reader.hpp"
#include "sgdsim/topology/node_topology.hpp"

namespace sgdsim {

namespace {

Time fastest(const ScenarioResult& result) {
  Time best = Time::max();
  for (const PolicyOutcome& outcome : result.outcomes) {
    best = std::min(best, outcome.simulation.mean_iteration());
  }
  return best;
}

// A variant of the scenario, on the workload already read and prepared (its layer times as
// run): no second read of the trace.
Time fastest_of(const ScenarioResult& result, ScenarioConfig variant) {
  variant.layer_times = "as_traced";
  variant.schedules.clear();
  variant.convergence.reset();
  variant.sharding.reset();  // only the policies' iterations are compared
  variant.jobs.reset();
  return fastest(run_scenario(variant, result.workload));
}

// The scenario's fastest iteration with one fact edited (the intra-node link, the slowdown).
template <typename Edit>
Time fastest_with(const ScenarioResult& result, Edit edit) {
  ScenarioConfig variant = result.config;
  edit(variant);
  return fastest_of(result, std::move(variant));
}

Time fastest_with_intra(const ScenarioResult& result, double intra_gbps) {
  return fastest_with(result, [intra_gbps](ScenarioConfig& variant) {
    variant.intra_node.bandwidth = Bandwidth::from_gbps(intra_gbps);
  });
}

// The scenario's network with one connection at `per_connection`, as the reader caps it.
ScenarioConfig with_connections_at(const ScenarioConfig& config, Bandwidth per_connection) {
  ScenarioConfig variant = config;
  cap_connections(variant, per_connection);
  return variant;
}

}  // namespace

std::optional<NodeRange> unstated_node_range(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  const bool intra_fit = std::any_of(
      config.network.measured_allreduce.begin(), config.network.measured_allreduce.end(),
      [](const MeasuredAllreduce& m) { return m.inside_one_node(); });
  if (config.gpus_per_node < 2 || config.node || config.intra_node_given || intra_fit) {
    return std::nullopt;
  }
  NodeRange range;
  range.gpus_per_node = config.gpus_per_node;
  for (const NodePresetEntry& entry : node_preset_entries()) {
    if (static_cast<int>(entry.description.gpus.size()) != config.gpus_per_node) continue;
    const NodeModel model = model_node(NodeTopology::build(entry.description, entry.name));
    range.presets.push_back(entry.name);
    if (range.low_preset.empty() || model.ring_gbps < range.low_gbps) {
      range.low_gbps = model.ring_gbps;
      range.low_preset = entry.name;
    }
    if (range.high_preset.empty() || model.ring_gbps > range.high_gbps) {
      range.high_gbps = model.ring_gbps;
      range.high_preset = entry.name;
    }
  }
  if (range.presets.empty() || range.low_gbps == range.high_gbps) return std::nullopt;
  range.assumed_gbps = config.intra_node.bandwidth.gbps();
  range.fastest_assumed = fastest(result);
  range.fastest_low = fastest_with_intra(result, range.low_gbps);
  range.fastest_high = fastest_with_intra(result, range.high_gbps);
  return range;
}

std::string node_range_note(const NodeRange& range) {
  return fmt::format(
      "the scenario names no node for its {} GPUs per node and assumes {:.0f} Gbit/s inside one "
      "({:.3f} ms per iteration, fastest policy); over the {}-GPU node presets ({}) the rings "
      "run {:.0f} ({}) to {:.0f} Gbit/s ({}): {:.3f} to {:.3f} ms. cluster.node (a preset or "
      "your node's nvidia-smi topo -m) or cluster.intra_node_bandwidth_gbps narrows it",
      range.gpus_per_node, range.assumed_gbps, range.fastest_assumed.ms(), range.gpus_per_node,
      fmt::join(range.presets, ", "), range.low_gbps, range.low_preset, range.high_gbps,
      range.high_preset, range.fastest_low.ms(), range.fastest_high.ms());
}

std::optional<TransportRange> unstated_transport_range(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  if (!config.network.transport || config.network.measures_network()) return std::nullopt;
  const Transport& transport = *config.network.transport;
  if (transport.flow_cap_given || transport.flow_cap_low.bits_per_second() <= 0.0) {
    return std::nullopt;
  }
  const ScenarioConfig low = with_connections_at(config, transport.flow_cap_low);
  const ScenarioConfig high = with_connections_at(config, transport.flow_cap_high);
  // Only where one connection's plausible rates move the network's rate (not where the line
  // decides at both ends).
  if (low.network.link.bandwidth.bits_per_second() ==
      high.network.link.bandwidth.bits_per_second()) {
    return std::nullopt;
  }
  TransportRange range;
  range.transport = transport.name;
  range.connections = transport.connections_used;
  range.assumed_gbps = transport.flow_cap.gbps();
  range.low_gbps = transport.flow_cap_low.gbps();
  range.high_gbps = transport.flow_cap_high.gbps();
  range.network_gbps = config.network.link.bandwidth.gbps();
  range.network_low_gbps = low.network.link.bandwidth.gbps();
  range.network_high_gbps = high.network.link.bandwidth.gbps();
  range.fastest_assumed = fastest(result);
  range.fastest_low = fastest_of(result, low);
  range.fastest_high = fastest_of(result, high);
  return range;
}

namespace {

// The scenario on its node modelled again with the GPUs' reads of host memory at `efficiency`,
// as the reader would have set it up: the rings (where the node sets the intra-node link) and
// the network under the node's GPU-NIC paths, then the transport's cap.
ScenarioConfig with_host_reads_at(const ScenarioConfig& config, double efficiency) {
  ScenarioConfig variant = config;
  NodeChoice& node = *variant.node;
  node.read_efficiency = efficiency;
  node.model = model_node(*node.topology, efficiency);
  if (node.sets_intra_node)
    variant.intra_node.bandwidth = Bandwidth::from_gbps(node.model.ring_gbps);
  apply_node_cap(variant);
  apply_transport_cap(variant);
  return variant;
}

// The rings of BytePS's two groups, where it runs them on a described node: the collective
// takes them from the node's model whatever intra-node link is stated (collectives/byteps.hpp).
// Zero otherwise.
double group_ring_gbps(const ScenarioConfig& c) {
  const auto group = byteps_group_of(c);
  if (!c.node || !group || *group == c.gpus_per_node) return 0.0;
  return first_gpus_ring_gbps(*c.node->topology, *group, c.node->read_efficiency);
}

// Whether two configurations' links differ anywhere the node reaches: inside a node (BytePS's
// groups' rings too), the network, and what the fabric's switches and a dedicated server's link
// see.
bool same_links(const ScenarioConfig& a, const ScenarioConfig& b) {
  const auto bits = [](const ScenarioConfig& c) {
    return std::array<double, 5>{c.intra_node.bandwidth.bits_per_second(),
                                 c.network.link.bandwidth.bits_per_second(),
                                 c.network.fabric.bits_per_second(),
                                 c.network.server_default.bits_per_second(), group_ring_gbps(c)};
  };
  return bits(a) == bits(b);
}

}  // namespace

std::optional<HostReadRange> unstated_host_read_range(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  if (!config.node || config.node->read_efficiency_given) return std::nullopt;
  const NodeModel& model = config.node->model;
  // The NICs' data goes through host memory without GPUDirect RDMA, and always through sockets.
  const bool sockets = config.network.transport && config.network.transport->host_memory_only;
  const bool staged_nic =
      sockets ? model.nic_staged_gbps > 0.0 : model.nic_path_gbps > 0.0 && !model.gdr;
  if (!model.ring_through_host && !staged_nic) return std::nullopt;
  const ScenarioConfig low = with_host_reads_at(config, host_read_efficiency_low);
  const ScenarioConfig high = with_host_reads_at(config, host_read_efficiency_high);
  if (same_links(low, config) && same_links(high, config)) return std::nullopt;
  HostReadRange range;
  range.assumed = config.node->read_efficiency;
  range.low = host_read_efficiency_low;
  range.high = host_read_efficiency_high;
  range.intra_gbps = config.intra_node.bandwidth.gbps();
  range.intra_low_gbps = low.intra_node.bandwidth.gbps();
  range.intra_high_gbps = high.intra_node.bandwidth.gbps();
  range.network_gbps = config.network.link.bandwidth.gbps();
  range.network_low_gbps = low.network.link.bandwidth.gbps();
  range.network_high_gbps = high.network.link.bandwidth.gbps();
  range.network = config.network.stated;
  range.server_gbps = config.network.server_default.gbps();
  range.server_low_gbps = low.network.server_default.gbps();
  range.server_high_gbps = high.network.server_default.gbps();
  range.fastest_assumed = fastest(result);
  range.fastest_low = fastest_of(result, low);
  range.fastest_high = fastest_of(result, high);
  // Links that moved where no policy's iteration feels them (a compute-bound run): no range.
  if (range.fastest_low == range.fastest_high) return std::nullopt;
  return range;
}

std::string host_read_range_note(const HostReadRange& range) {
  const bool server = range.server_low_gbps != range.server_high_gbps;
  const std::string network =
      range.network ? fmt::format(", {:.2f} Gbit/s network", range.network_gbps) : "";
  const std::string network_ends =
      range.network ? fmt::format(", {:.2f} to {:.2f} network", range.network_low_gbps,
                                  range.network_high_gbps)
                    : "";
  return fmt::format(
      "the node copies through host memory, and its GPUs' reads of it were taken at {:.3f} of "
      "their writes (nvbandwidth's H100 figures): {:.2f} Gbit/s inside a node{}{} ({:.3f} ms "
      "per iteration, fastest policy); at a plausible {:.2f} to {:.2f}: {:.2f} to {:.2f} "
      "inside{}{}, {:.3f} to {:.3f} ms. cluster.host_read_efficiency (sgdsim calibrate --node "
      "fits it to your node's nccl-tests) narrows it",
      range.assumed, range.intra_gbps, network,
      server ? fmt::format(", {:.2f} Gbit/s to a server", range.server_gbps) : "",
      range.fastest_assumed.ms(), range.low, range.high, range.intra_low_gbps,
      range.intra_high_gbps, network_ends,
      server ? fmt::format(", {:.2f} to {:.2f} to a server", range.server_low_gbps,
                           range.server_high_gbps)
             : "",
      range.fastest_low.ms(), range.fastest_high.ms());
}

std::optional<OverlapRange> unstated_overlap_range(const ScenarioResult& result) {
  const ScenarioConfig& config = result.config;
  // Stated, or too costly to run twice more (per_rank, jobs), or beside no kernel (parameter
  // servers, one GPU). With sharding, as the other ranges, it reruns the merge policies only.
  const auto no_kernels = [](const PolicyOutcome& outcome) { return outcome.kernel_share == 0.0; };
  if (config.overlap_slowdown_given || config.fidelity == "per_rank" || config.jobs ||
      std::all_of(result.outcomes.begin(), result.outcomes.end(), no_kernels)) {
    return std::nullopt;
  }
  // From the GPU at full speed to Lee et al.'s maximum beside NCCL's kernels (arXiv:2507.03114;
  // scenarios/README.md, compute.overlap_slowdown), each policy's weighed by its kernels' share
  // as the run weighs the average.
  OverlapRange range{config.overlap_slowdown, 1.0, most_overlap_slowdown, fastest(result), {}, {}};
  const auto at = [&](double slowdown) {
    return fastest_with(
        result, [slowdown](ScenarioConfig& variant) { variant.overlap_slowdown = slowdown; });
  };
  range.fastest_high = at(range.high);
  range.fastest_low = range.assumed == range.low ? range.fastest_assumed : at(range.low);
  if (range.fastest_high.seconds() < range.fastest_low.seconds() * 1.005) return std::nullopt;
  return range;
}

std::string overlap_range_note(const OverlapRange& range) {
  return fmt::format(
      "the GPUs were taken to compute {:.1f}% slower beside the kernels that run their "
      "collectives, the average Lee et al. measured beside NCCL's (arXiv:2507.03114): {:.3f} ms "
      "per iteration, fastest policy; from full speed to {:.0f}% slower, their maximum: {:.3f} "
      "to {:.3f} ms. compute.overlap_slowdown (1 for full speed) states it",
      (range.assumed - 1.0) * 100.0, range.fastest_assumed.ms(), (range.high - 1.0) * 100.0,
      range.fastest_low.ms(), range.fastest_high.ms());
}

std::optional<CombinedRange> unstated_combined_range(const ScenarioResult& result) {
  CombinedRange range;
  if (result.node_range) range.facts.emplace_back("cluster.node");
  if (result.host_read_range) range.facts.emplace_back("cluster.host_read_efficiency");
  if (result.transport_range) range.facts.emplace_back("network.flow_cap_gbps");
  if (result.overlap_range) range.facts.emplace_back("compute.overlap_slowdown");
  if (range.facts.size() < 2) return std::nullopt;
  // Each fact at its faster end (fast: faster links and connections, reads of host memory at
  // the writes' rate, compute at full speed beside the collectives), or all at their slower ends.
  const auto corner = [&](bool fast) {
    ScenarioConfig variant = result.config;
    if (const auto& r = result.host_read_range) {  // first: it rebuilds the node's links
      variant = with_host_reads_at(variant, fast ? r->high : r->low);
    }
    if (const auto& r = result.node_range) {
      variant.intra_node.bandwidth = Bandwidth::from_gbps(fast ? r->high_gbps : r->low_gbps);
    }
    if (const auto& r = result.transport_range) {
      cap_connections(variant, Bandwidth::from_gbps(fast ? r->high_gbps : r->low_gbps));
    }
    if (const auto& r = result.overlap_range) variant.overlap_slowdown = fast ? r->low : r->high;
    return fastest_of(result, std::move(variant));
  };
  range.fastest_assumed = fastest(result);
  range.fastest_low = corner(true);
  range.fastest_high = corner(false);
  return range;
}

std::string combined_range_note(const CombinedRange& range) {
  return fmt::format(
      "with all {} unstated facts above at their faster ends together, then at their slower "
      "ends: {:.3f} to {:.3f} ms per iteration, fastest policy ({:.3f} as run). {} narrow it",
      range.facts.size(), range.fastest_low.ms(), range.fastest_high.ms(),
      range.fastest_assumed.ms(), fmt::join(range.facts, ", "));
}

std::vector<std::string> range_notes(const ScenarioResult& result) {
  std::vector<std::string> notes;
  if (result.node_range) notes.push_back(node_range_note(*result.node_range));
  if (result.transport_range) notes.push_back(transport_range_note(*result.transport_range));
  if (result.host_read_range) notes.push_back(host_read_range_note(*result.host_read_range));
  if (result.overlap_range) notes.push_back(overlap_range_note(*result.overlap_range));
  if (result.combined_range) notes.push_back(combined_range_note(*result.combined_range));
  return notes;
}

std::string transport_range_note(const TransportRange& range) {
  return fmt::format(
      "the network ran at {:.2f} Gbit/s with the {} transport's {:.2f} Gbit/s per connection "
      "over {} connection{} ({:.3f} ms per iteration, fastest policy); one connection plausibly "
      "reaches {:.2f} to {:.2f} Gbit/s, which runs the network at {:.2f} to {:.2f} Gbit/s: "
      "{:.3f} to {:.3f} ms. network.flow_cap_gbps (one iperf3 stream between two of your "
      "hosts) narrows it",
      range.network_gbps, range.transport, range.assumed_gbps, range.connections,
      range.connections == 1 ? "" : "s", range.fastest_assumed.ms(), range.low_gbps,
      range.high_gbps, range.network_low_gbps, range.network_high_gbps, range.fastest_low.ms(),
      range.fastest_high.ms());
}

}  // namespace sgdsim
