// Parameter-server closed form: the busiest NIC of a push (or pull) phase bounds its time.
#include "sgdsim/collectives/parameter_server.hpp"
#include <fmt/format.h>
#include "sgdsim/collectives/collective_registry.hpp"

#include <algorithm>
#include <cmath>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

ParameterServer::ParameterServer(const CollectiveContext& context)
    : workers_(context.shape().gpus),
      servers_(context.shape().servers),
      reduction_ps_per_byte_(context.reduction_ps_per_byte),
      topology_(context.full() ? context.topology : nullptr) {
  const Topology& topology = *context.topology;
  const ClusterShape& shape = topology.shape();
  SGDSIM_ASSERT(shape.servers >= 1, "a parameter server collective needs a server");
  const double n = shape.gpus;
  const double g = shape.gpus_per_node;
  const double g_per_nic = shape.nic_per_gpu ? 1.0 : g;  // GPUs whose pushes share one NIC
  const double s = shape.servers;
  // The last worker is on the last node, so for any placement its path to server 0 crosses the
  // network whenever the cluster has more than one node: the slowest push sets the startup.
  const PathModel worker_path = path_model(
      topology, topology.route(topology.gpu(topology.farthest_built_gpu()), topology.server(0)));
  alpha_ = worker_path.latency;
  const double nic_ps_per_byte = shape.network.bandwidth.ps_per_byte();
  // Bytes crossing the busiest link per gradient byte, each expressed in that link's time.
  double bottleneck = 0.0;
  if (shape.server_placement == ServerPlacement::dedicated) {
    bottleneck =
        std::max(g_per_nic * nic_ps_per_byte, n / s * shape.server_link.bandwidth.ps_per_byte());
  } else {
    const double nodes = topology.nodes();
    const double most = std::ceil(s / nodes);
    const double fewest = std::floor(s / nodes);
    const double inbound = most * (n - g) / s;
    const double outbound = g_per_nic * (s - fewest) / s;
    // Each co-located server's own link into its host (a node's switch, or with a NIC per GPU
    // the node's GPU 0; at the intra-node rate) takes every worker's share for it, n / s
    // gradients. With a NIC per GPU, GPU 0's link from the node's switch also carries its node's
    // other GPUs' shares for the servers it hosts, (g - 1) x most / s. Both bind inside one
    // node, where no byte crosses a NIC.
    const double host_link = shape.nic_per_gpu ? std::max(n / s, (g - 1.0) * most / s) : n / s;
    bottleneck = std::max(std::max(inbound, outbound) * nic_ps_per_byte,
                          host_link * shape.intra_node.bandwidth.ps_per_byte());
  }
  // A GPU's own link into its node switch carries its full gradient too.
  bottleneck = std::max(
      bottleneck, shape.intra_node.bandwidth.ps_per_byte() * (shape.gpus_per_node > 1 ? 1.0 : 0.0));
  // Zero only when no byte leaves a GPU (one GPU with a co-located server): no transfer time.
  phase_rate_ = Bandwidth::from_bits_per_second(bottleneck > 0.0 ? 8e12 / bottleneck : 1e30);
}

Time ParameterServer::server_reduction(Bytes message) const {
  return reduction_time(static_cast<double>(message.count()) * workers_ / servers_,
                        reduction_ps_per_byte_);
}

Time ParameterServer::time(Bytes message) const {
  return (alpha_ + transfer_time(message, phase_rate_)) * 2 + server_reduction(message);
}

LinearCost ParameterServer::linear_cost() const {
  return LinearCost{alpha_ * 2,
                    2.0 * phase_rate_.ps_per_byte() + reduction_ps_per_byte_ * workers_ / servers_};
}

double ParameterServer::bytes_sent_per_rank(Bytes message) const {
  return static_cast<double>(message.count());
}

Time ParameterServer::gather_time(Bytes contribution, Bytes aggregate) const {
  const Bytes pulled(std::min(contribution.count() * workers_, aggregate.count()));
  return alpha_ * 2 + transfer_time(contribution, phase_rate_) +
         transfer_time(pulled, phase_rate_) + server_reduction(aggregate);
}

TransferProgram ParameterServer::push_pull(double push_bytes, double pull_bytes,
                                           Time reduction) const {
  SGDSIM_ASSERT(topology_ != nullptr, "a transfer program needs the full topology");
  TransferStep push;
  TransferStep pull;
  for (int worker = 0; worker < workers_; ++worker) {
    for (int server = 0; server < servers_; ++server) {
      push.transfers.push_back(
          {topology_->gpu(worker), topology_->server(server), push_bytes / servers_});
      pull.transfers.push_back(
          {topology_->server(server), topology_->gpu(worker), pull_bytes / servers_});
    }
  }
  push.compute = reduction;
  return {push, pull};
}

TransferProgram ParameterServer::program(Bytes message) const {
  const auto bytes = static_cast<double>(message.count());
  return push_pull(bytes, bytes, server_reduction(message));
}

TransferProgram ParameterServer::gather_program(Bytes contribution, Bytes aggregate) const {
  const auto pulled = std::min(static_cast<double>(contribution.count()) * workers_,
                               static_cast<double>(aggregate.count()));
  return push_pull(static_cast<double>(contribution.count()), pulled, server_reduction(aggregate));
}

double ParameterServer::gather_bytes_sent_per_rank(Bytes contribution) const {
  return static_cast<double>(contribution.count());
}

// Each server decodes one shard from every worker (N shards of d/s elements, about N/s whole
// contributions); the worker then decodes the pulled aggregate once.
int ParameterServer::gather_decodes() const {
  return (workers_ + servers_ - 1) / servers_ + 1;
}

void add_servers(const Settings& settings, ClusterShape& shape) {
  shape.servers = static_cast<int>(settings.integer("servers"));
  shape.server_placement = settings.text("placement") == "dedicated" ? ServerPlacement::dedicated
                                                                     : ServerPlacement::colocated;
  const Bandwidth fallback = shape.server_default.bits_per_second() > 0.0
                                 ? shape.server_default
                                 : shape.fabric_bandwidth();
  const Bandwidth bandwidth = settings.has("server_bandwidth_gbps")
                                  ? Bandwidth::from_gbps(settings.number("server_bandwidth_gbps"))
                                  : fallback;
  shape.server_link = LinkSpec{bandwidth, shape.network.latency};
}

std::optional<KeyProblem> check_server_keys(const Settings& settings, const ClusterShape&) {
  if (settings.text("placement") != "colocated" || !settings.has("server_bandwidth_gbps")) {
    return std::nullopt;
  }
  return KeyProblem{"server_bandwidth_gbps",
                    "no server_bandwidth_gbps with placement \"colocated\" (the servers share "
                    "their machines' NICs)",
                    fmt::format("{:g}", settings.number("server_bandwidth_gbps"))};
}

CollectiveEntry parameter_server_collective() {
  CollectiveEntry entry;
  entry.name = "parameter_server";
  entry.description =
      "sharded parameter servers: push to s servers, then pull (dedicated or co-located)";
  entry.keys = {
      KeySpec::integer("servers", "parameter server shards", 1, std::int64_t{1} << 20),
      KeySpec::choice("placement", "servers on their own nodes or on the workers' nodes",
                      {"dedicated", "colocated"}, "dedicated"),
      KeySpec::positive("server_bandwidth_gbps", "each server's NIC; default: the network's")
          .optional(),
  };
  entry.shape = add_servers;
  entry.check = check_server_keys;
  entry.make = [](const CollectiveContext& context, const Settings&) -> CollectivePtr {
    return std::make_unique<ParameterServer>(context);
  };
  entry.describe = [](const Settings& settings, const ClusterShape& shape) {
    // Servers on the workers share their machines' NICs: no link of their own to state.
    if (shape.server_placement == ServerPlacement::colocated) {
      return fmt::format("parameter_server ({} colocated servers)", shape.servers);
    }
    return fmt::format("parameter_server ({} {} servers at {:g} Gbps)", shape.servers,
                       settings.text("placement"), shape.server_link.bandwidth.gbps());
  };
  return entry;
}

}  // namespace sgdsim
