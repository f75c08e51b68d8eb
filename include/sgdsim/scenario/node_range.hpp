// Honest uncertainty about the node and the transport. The node: a scenario with several GPUs per
// node that names no node, no intra-node bandwidth and no intra-node fit leaves a decisive fact
// unstated. Over the node presets of that size (scenarios/README.md, "Node presets") the rings
// inside a node range from the slowest preset's to the fastest's; the scenario is run at both ends
// and the fastest policy's iteration reported as a range, with the key that would narrow it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/scenario/scenario_run.hpp"

namespace sgdsim {

// The range when `result`'s scenario leaves the node unstated and presets of its size exist;
// none otherwise. Runs the scenario twice more (without its averaging and convergence parts).
std::optional<NodeRange> unstated_node_range(const ScenarioResult& result);

// One line for the terminal: what was assumed, the range, the key that narrows it.
std::string node_range_note(const NodeRange& range);

// The same for a transport whose cap per connection is its default (a TCP or IPoIB stream, set
// by the host's CPU; scenarios/README.md, "Transports"): the scenario run again with one
// connection at the low and the high end of the plausible range, when that moves the network's
// rate. None otherwise.
std::optional<TransportRange> unstated_transport_range(const ScenarioResult& result);
std::string transport_range_note(const TransportRange& range);

// The same for a node (cluster.node) that copies through host memory, without
// cluster.host_read_efficiency: the node modelled again with its GPUs reading host memory at
// the low and the high end of the plausible range (topology/node_topology.hpp), and the
// scenario run on each, when that moves the intra-node link or the network. None otherwise.
std::optional<HostReadRange> unstated_host_read_range(const ScenarioResult& result);
std::string host_read_range_note(const HostReadRange& range);

// The same for compute slowed beside communication, without compute.overlap_slowdown: the
// scenario, run at its default slowdown, run again at 1 (full speed) and 1.40 (Lee et al.'s
// maximum, arXiv:2507.03114), where that moves the fastest policy's iteration by 0.5% or more.
// None otherwise, and at per_rank fidelity and with jobs (two more runs cost too much there);
// with sharding it reruns the merge policies only, as the other ranges do.
std::optional<OverlapRange> unstated_overlap_range(const ScenarioResult& result);
std::string overlap_range_note(const OverlapRange& range);

// Where `result` holds two or more of the ranges above (computed first): the scenario run again
// with each fact at the end of its range that made the fastest policy faster, all together, and
// again at the slower ends. Published measurements fall inside this more often than inside
// any one range (tests/validation/commodity.py counts both).
std::optional<CombinedRange> unstated_combined_range(const ScenarioResult& result);
std::string combined_range_note(const CombinedRange& range);

// The notes of every range `result` holds, in the order above.
std::vector<std::string> range_notes(const ScenarioResult& result);

}  // namespace sgdsim
