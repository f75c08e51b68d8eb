// BytePS: local reduce-scatter, push to CPU summation servers, pull, local allgather, pipelined
// over partitions.
#include "sgdsim/collectives/byteps.hpp"
#include "sgdsim/collectives/collective_registry.hpp"
#include "sgdsim/collectives/parameter_server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sgdsim/core/error.hpp"
#include "sgdsim/network/flow_pipeline.hpp"

namespace sgdsim {

namespace {

// One socket of six DDR4-2666 channels moves 6 x 2666 MT/s x 8 bytes = 128 GB/s (JEDEC DDR4):
// what a co-located server's pushes cross to reach it in its host's memory, at flow fidelity.
constexpr double host_memory_gbps = 128.0 * 8.0;
// A summation a += b reads two bytes and writes one per byte summed: 42.7 GB/s = 341 Gbit/s.
constexpr double default_summation_gbps = host_memory_gbps / 3.0;

// Flow fidelity simulates every partition's flows: flow_shape/6 at 16,384 GPUs runs ResNet-50's
// 102 MB, about 25 partitions or 410,000 GPU-partitions, in about a second on one core
// (docs/speed.md), so 2^25 of them take over a minute.
constexpr double max_staged_gpu_partitions = 0x1p25;
// What the runs that show the steady state may cost, counted as partitions simulated x pushes
// in flight among them (up to one a server, each one flow per machine), where they cost more
// than 4 of the message's own run: 2^14. ResNet-50's per-layer messages (WFBP) on 16 machines
// of 8 GPUs with 16 servers, whose one-partition messages cost 33 x 16 x 16 = 8,448, take
// 0.27 s on one core at flow fidelity (1.5 s with the servers on the workers), against 0.01 s
// with every message priced alone.
constexpr double max_steady_cost = 0x1p14;

// Where a machine's root process pushes from and pulls into: its host memory, where the GPUs
// copied their shards (the node's switch in the topology: no GPU's link on the way), with one
// NIC a node; its first GPU, whose NIC it uses, with a NIC per GPU.
Topology::Vertex pusher(const Topology& topology, int node) {
  return topology.shape().nic_per_gpu ? topology.gpu(node * topology.shape().gpus_per_node)
                                      : topology.node_switch(node);
}

// The servers of a distributed job: on one worker machine none, unless forced
// (byteps/common/global.cc: distributed with DMLC_NUM_WORKER > 1 or BYTEPS_FORCE_DISTRIBUTED).
// Co-located, they take their pushes in host memory, not through a GPU's link.
void add_byteps_servers(const Settings& settings, ClusterShape& shape) {
  add_servers(settings, shape);
  shape.colocated_server = Bandwidth::from_gbps(host_memory_gbps);
  if (shape.nodes() == 1 && settings.integer("force_distributed") == 0) shape.servers = 0;
}

// BytePS's NCCL groups with BYTEPS_PCIE_SWITCH_SIZE unset: 8 GPUs (nccl_manager.cc).
constexpr int default_pcie_switch_size = 8;

// A pcie_switch_size the scenario states must cut each machine into equal groups: BytePS warns
// "BytePS does not support unbalanced PCIe switches" and runs one group otherwise. And no size,
// stated or BytePS's default, may cut it into more than two: BytePS's CPU adds two groups'
// buffers only (core_loops.cc, RunPcieReduceLoopOnce: "we assume there are only two PCIe
// switch"), so with more it would sum wrongly.
std::optional<KeyProblem> check_byteps_keys(const Settings& settings, const ClusterShape& shape) {
  if (auto problem = check_server_keys(settings, shape)) return problem;
  const std::int64_t size = settings.integer("pcie_switch_size");
  const int per_node = shape.gpus_per_node;
  const bool stated = settings.given("pcie_switch_size");
  const bool uneven = size < per_node && per_node % size != 0;
  const int groups = per_node / byteps_group(settings, per_node);
  if (!(stated && uneven) && groups <= 2) return std::nullopt;
  // What BytePS runs correctly: two equal groups, or the whole machine.
  const std::string two = per_node % 2 == 0 ? fmt::format("{} (two groups) or ", per_node / 2) : "";
  return KeyProblem{
      "pcie_switch_size",
      fmt::format("{}at least cluster.gpus_per_node, {} (the whole machine): BytePS runs no "
                  "unequal groups (it warns and takes the whole machine), and its CPU adds two "
                  "groups' buffers only (its core_loops.cc assumes two PCIe switches){}",
                  two, per_node, stated ? "" : "; unstated, it is BytePS's default, 8"),
      fmt::format("{}", size)};
}

}  // namespace

int byteps_group(int pcie_switch_size, int gpus_per_node) {
  if (pcie_switch_size >= gpus_per_node || gpus_per_node % pcie_switch_size != 0) {
    return gpus_per_node;
  }
  return pcie_switch_size;
}

int byteps_group(const Settings& settings, int gpus_per_node) {
  return byteps_group(static_cast<int>(settings.integer("pcie_switch_size")), gpus_per_node);
}

BytePsSettings byteps_settings(const CollectiveContext& context, const Settings& settings) {
  BytePsSettings byteps;
  byteps.partition = Bytes(static_cast<std::int64_t>(settings.number("partition_bytes")));
  byteps.summation = Bandwidth::from_gbps(settings.number("summation_gbps"));
  const int per_node = context.shape().gpus_per_node;
  byteps.group = byteps_group(settings, per_node);
  // One group, or no node (the constructor's copies, each GPU over a PCIe link of its own).
  if (byteps.group == per_node || context.node == nullptr) return byteps;
  // The described node's first group stands for every group's rings (the presets' switches
  // are alike); the copies, every group's at once over the node's links.
  byteps.group_ring = Bandwidth::from_gbps(
      first_gpus_ring_gbps(*context.node, byteps.group, context.read_efficiency));
  byteps.host_copy = Bandwidth::from_gbps(host_copy_gbps(*context.node, byteps.group));
  return byteps;
}

BytePs::BytePs(const CollectiveContext& context, BytePsSettings settings)
    : gpus_(context.shape().gpus),
      per_node_(context.shape().gpus_per_node),
      group_(settings.group > 0 ? settings.group : per_node_),
      groups_(per_node_ / group_),
      nodes_(context.shape().nodes()),
      servers_(context.shape().servers),
      reduction_ps_per_byte_(context.reduction_ps_per_byte),
      settings_(settings),
      colocated_(context.shape().server_placement == ServerPlacement::colocated),
      topology_(context.full() ? context.topology : nullptr) {
  const Topology& topology = *context.topology;
  const ClusterShape& shape = context.shape();
  SGDSIM_ASSERT(servers_ >= 1 || nodes_ == 1, "BytePS across machines needs a summation server");
  SGDSIM_ASSERT(group_ >= 1 && per_node_ % group_ == 0, "BytePS's groups cut each machine evenly");
  intra_ = group_ > 1 ? hop_between(topology, 0, 1) : LinkModel{};
  if (groups_ > 1) {
    // A group's rings: the node's model of its GPUs where the node is described, else the
    // intra-node link (a ring on fewer GPUs over the same links).
    if (settings_.group_ring.bits_per_second() > 0.0) intra_.bandwidth = settings_.group_ring;
    // Its GPUs' copies of their q / group shards to host memory: as the node's links share
    // them, else each over a PCIe link of its own, 4.0 x16 or the GPU's link where slower.
    const double per_gpu = std::min(default_gpu_link_gbps, shape.intra_node.bandwidth.gbps());
    const Bandwidth copy = settings_.host_copy.bits_per_second() > 0.0
                               ? settings_.host_copy
                               : Bandwidth::from_gbps(per_gpu * group_);
    copy_ps_per_byte_ = copy.ps_per_byte();
    // The machine's CPU adds the other groups' buffers to the first's (byteps/common/
    // core_loops.cc, the PCIE_REDUCE stage: the same summation as a server's).
    group_sum_ps_per_byte_ = (groups_ - 1.0) * settings_.summation.ps_per_byte();
  }
  // On one machine without servers nothing leaves it: every server and network term stays 0.
  if (!distributed()) return;
  const int farthest_node = topology.farthest_built_gpu() / per_node_;
  server_alpha_ =
      path_model(topology, topology.route(pusher(topology, farthest_node), topology.server(0)))
          .latency;
  const double g_per_nic = shape.nic_per_gpu ? 1.0 : per_node_;
  nic_ps_per_byte_ = g_per_nic / per_node_ * shape.network.bandwidth.ps_per_byte();
  // (With the servers on one worker machine alone, nothing crosses the network.)
  push_ps_per_byte_ =
      shape.server_placement == ServerPlacement::colocated && nodes_ == 1 ? 0.0 : nic_ps_per_byte_;
  const double shards = static_cast<double>(nodes_) / servers_;
  // One partition alone goes whole to one server, which takes in the n machines' copies (n - 1
  // with the servers on the workers: its own machine's stays there) and adds all n.
  one_server_ps_per_byte_ = shape.server_placement == ServerPlacement::dedicated
                                ? nodes_ * shape.server_link.bandwidth.ps_per_byte()
                                : (nodes_ - 1.0) * shape.network.bandwidth.ps_per_byte();
  one_sum_ps_per_byte_ = nodes_ * settings_.summation.ps_per_byte();
  // A machine's CPU adds for every server on it: one with dedicated servers, up to ceil(k / n)
  // with the servers on the worker machines.
  double servers_per_cpu = 1.0;
  if (shape.server_placement == ServerPlacement::dedicated) {
    server_ps_per_byte_ = shards * shape.server_link.bandwidth.ps_per_byte();
    // Pushes leave the workers' NICs and pulls come back on their other direction: the two
    // phases use different resources.
    period_ps_per_byte_ = std::max(nic_ps_per_byte_, server_ps_per_byte_);
  } else {
    // Servers on the worker machines, round-robin: a machine with m of the k servers sends the
    // (k - m) / k of each partition that the others hold and takes in m / k of every other
    // machine's copy (through the NIC its servers share: GPU 0's with a NIC per GPU), and the
    // pull the other way round. One phase: the machine with the fewest servers sends the most,
    // the one with the most takes in the most. Between partitions a machine's NIC carries its
    // pushes and its servers' pulls in the same direction, (k - m) / k + m (n - 1) / k of a
    // partition: for k = n, 2 (n - 1) / n, what a ring moves.
    const double k = servers_;
    const double n = nodes_;
    const double network = shape.network.bandwidth.ps_per_byte();
    const double most = std::ceil(k / n);
    const double fewest = std::floor(k / n);
    const auto sends = [&](double m) { return (k - m) / k * nic_ps_per_byte_; };
    const auto serves = [&](double m) { return m * (n - 1.0) / k * network; };
    server_ps_per_byte_ = serves(most);
    period_ps_per_byte_ = std::max(sends(most) + serves(most), sends(fewest) + serves(fewest));
    nic_ps_per_byte_ = sends(fewest);
    servers_per_cpu = most;
  }
  sum_ps_per_byte_ = servers_per_cpu * shards * settings_.summation.ps_per_byte();
}

std::int64_t BytePs::partitions(Bytes message) const {
  const std::int64_t p = settings_.partition.count();
  return std::max<std::int64_t>(1, message.count() / p + (message.count() % p != 0 ? 1 : 0));
}

Time BytePs::Stages::pipelined() const {
  return first + Time::rounded_ps(period * static_cast<double>(count - 1));
}

Time BytePs::time(Bytes message) const {
  return gpus_ == 1 ? Time::zero() : stages(message).total;
}

Time BytePs::kernel_time(Bytes message) const {
  if (gpus_ == 1) return Time::zero();
  const Stages p = stages(message);
  if (!distributed() && groups_ == 1) return p.total;  // the NCCL stream is all there is
  return std::min(p.total, Time::rounded_ps(p.stream * static_cast<double>(p.count)));
}

Time BytePs::overlappable(Bytes message) const {
  if (gpus_ == 1) return Time::zero();
  // What a queued message holds BytePS is its partitions' periods (the steady state, where
  // queued partitions take the servers in turn); the rest of its time alone overlaps the one
  // ahead. The total is at least the pipeline's, first + (P - 1) periods, so this is at least
  // the first partition's stages less one period.
  const Stages p = stages(message);
  return std::max(Time::zero(),
                  p.total - Time::rounded_ps(p.period * static_cast<double>(p.count)));
}

BytePs::PartitionTerms BytePs::terms(double q) const {
  const double g = group_;
  PartitionTerms t;
  t.ring_latency = intra_.alpha * std::int64_t{group_ - 1};
  t.ring = group_ > 1 ? (g - 1.0) * q / g * intra_.bandwidth.ps_per_byte() : 0.0;
  t.reduction = (g - 1.0) * q / g * reduction_ps_per_byte_;
  t.copy = q * copy_ps_per_byte_;
  t.group_sum = q * group_sum_ps_per_byte_;
  return t;
}

BytePs::Stages BytePs::stages(Bytes message) const {
  const std::int64_t count = partitions(message);
  const double q = static_cast<double>(message.count()) / static_cast<double>(count);
  // Bandwidth terms per partition, in picoseconds.
  const PartitionTerms t = terms(q);
  const double network = std::max(q * nic_ps_per_byte_, q * server_ps_per_byte_);
  const double sum = q * sum_ps_per_byte_;
  const Time fixed = t.ring_latency * 2 + Time::rounded_ps(2.0 * t.ring + t.reduction) +
                     server_alpha_ * 2 + Time::rounded_ps(2.0 * t.copy + t.group_sum);
  // The NCCL stream runs each partition's reduce-scatter and allgather, their ring steps'
  // latencies included (a kernel's steps wait on them), one partition after another.
  const double stream = static_cast<double>((t.ring_latency * 2).ps()) + 2.0 * t.ring + t.reduction;
  Stages p;
  p.stream = stream;
  if (!distributed()) {
    // Without servers the stream, each direction's copies and the CPU's sum (across groups; the
    // push a barrier on the machine alone) pipeline the partitions. With one group the stream is
    // all there is: each partition holds it its whole time, so a message queued behind another
    // overlaps none of it (overlappable).
    p.first = fixed;
    p.period = std::max({stream, t.copy, t.group_sum});
    p.count = count;
    p.total = p.pipelined();
    return p;
  }
  p.first = fixed + Time::rounded_ps(2.0 * network + sum);
  p.period = std::max({stream, q * period_ps_per_byte_, sum, t.copy, t.group_sum});
  p.count = count;
  // The pipeline spreads each partition's server work over the k servers. A partition goes whole
  // to one server, though: alone, its push and pull wait for that server's n copies, and its sum
  // for all n. So the message takes at least
  //   - the NCCL stream's P reduce-scatters, then the last partition alone from its push on:
  //     first alone + (P - 1) reduce-scatters;
  //   - a partition alone, then for each further round of k partitions (partitions j and j + k
  //     share a server) k periods of the NICs, the servers' links and their CPUs, the NCCL
  //     stream's left out: first alone + (ceil(P / k) - 1) k max(NIC, server link, sum).
  //     With the servers on the workers a round's pushes share a NIC direction with the round
  //     ahead's pulls, which the first partition alone already counts: there this can exceed
  //     the flow level by up to a copy's time or a sum.
  // With P a multiple of k and the servers the bottleneck, this exceeds the pipeline by about a
  // partition alone on one server.
  const double alone_network = std::max(q * push_ps_per_byte_, q * one_server_ps_per_byte_);
  const Time first_alone = fixed + Time::rounded_ps(2.0 * alone_network + q * one_sum_ps_per_byte_);
  const std::int64_t rounds = (count + servers_ - 1) / servers_;
  const double round = static_cast<double>(servers_) * std::max(q * period_ps_per_byte_, sum);
  const Time by_rounds = first_alone + Time::rounded_ps(static_cast<double>(rounds - 1) * round);
  const Time by_stream = first_alone + (t.ring_latency + Time::rounded_ps(t.ring + t.reduction)) *
                                           static_cast<std::int64_t>(count - 1);
  p.total = std::max({p.pipelined(), by_rounds, by_stream});
  return p;
}

std::optional<Time> BytePs::staged_hold(FlowNetwork& network, Bytes message) const {
  if (gpus_ == 1) return Time::zero();
  if (!distributed()) {
    // Without servers and with one group the NCCL stream is the only resource: a message holds
    // it its whole time. Across groups the copies and the CPU pipeline beside it: what the P
    // partitions of a message more queued behind it add (none where that run would pass the
    // limit on partitions simulated: the closed form's hold).
    if (groups_ == 1) return stream_time(network, message, 0);
    const std::int64_t count = partitions(message);
    if (2.0 * static_cast<double>(count) * gpus_ > max_staged_gpu_partitions) return std::nullopt;
    return stream_time(network, message, count) - stream_time(network, message, 0);
  }
  // A run costs as its partitions times the pushes in flight among them, up to k at once, n
  // flows each: within a few times the message's own run (large messages), or within a budget.
  const std::int64_t count = partitions(message);
  const double k = servers_;
  const auto cost = [&](double items) { return items * std::min(k, items) * nodes_; };
  const double p = static_cast<double>(count);
  if (cost(p + 2.0 * k) > std::max(max_steady_cost, 4.0 * cost(p))) return std::nullopt;
  const Time stream = stream_time(network, message, servers_);
  const Time longer = stream_time(network, message, 2 * std::int64_t{servers_});
  return Time::rounded_ps(static_cast<double>((longer - stream).ps()) * static_cast<double>(count) /
                          k);
}

Time BytePs::stream_time(FlowNetwork& network, Bytes message, std::int64_t queued) const {
  SGDSIM_ASSERT(topology_ != nullptr, "staged transfers need the full topology");
  SGDSIM_ASSERT(queued >= 0, "no fewer than no partitions queued");
  if (gpus_ == 1) return Time::zero();
  const std::int64_t count = partitions(message);
  const std::int64_t items = count + queued;
  if (static_cast<double>(items) * gpus_ > max_staged_gpu_partitions) {
    throw InputError(fmt::format(
        "communication.collective.partition_bytes: a message of {} bytes is {} partitions of {} "
        "bytes{} on {} GPUs; flow fidelity simulates every partition and is limited to 2^25 GPUs "
        "x partitions per message (raise partition_bytes, or use \"analytic\")",
        message.count(), count, settings_.partition.count(),
        queued > 0 ? fmt::format(", {} with those queued behind it", items) : "", gpus_));
  }
  const double q = static_cast<double>(message.count()) / static_cast<double>(count);
  // With one group a machine, the rings inside the nodes as flows, all nodes stepping together
  // (groups are timed stages, below).
  TransferProgram reduce_scatter;
  TransferProgram allgather;
  if (groups_ == 1) {
    const double g = per_node_;
    std::vector<std::vector<Topology::Vertex>> rings(static_cast<std::size_t>(nodes_));
    for (int rank = 0; rank < gpus_; ++rank) {
      rings[static_cast<std::size_t>(rank / per_node_)].push_back(topology_->gpu(rank));
    }
    const RingPass pass = uniform_ring_pass(per_node_, intra_);
    append_ring_pass(reduce_scatter, rings, q / g, pass,
                     reduction_time(q / g, reduction_ps_per_byte_));
    append_ring_pass(allgather, rings, q / g, pass, Time::zero());
  }
  // Per server used, its push and its pull, each also streamed (steps of no latency: following
  // the previous partition on the same connections).
  struct Connections {
    TransferProgram push, push_streamed, pull, pull_streamed;
  };
  const auto both = [](TransferStep step, TransferProgram& plain, TransferProgram& streamed) {
    plain.push_back(step);
    step.latency = Time::zero();
    streamed.push_back(std::move(step));
  };
  // Across a machine's groups: each group's rings priced as the closed form prices them (the
  // flow network's GPU links carry the whole machine's ring, not a group's), then its GPUs'
  // copies to host memory, the CPU's sum and the copies back, each on a resource of its own
  // (the copy streams each way and the CPU, every machine's alike).
  // Identical jobs on the same machines (network.copies()) share those links, GPUs and CPUs.
  const PartitionTerms t = terms(q);
  const double jobs = network.copies();
  // (The reduction is each job's own kernel, as a ring pass's compute step is.)
  const Time group_reduce_scatter = t.ring_latency + Time::rounded_ps(jobs * t.ring + t.reduction);
  const Time group_allgather = t.ring_latency + Time::rounded_ps(jobs * t.ring);
  const Time copy = Time::rounded_ps(jobs * t.copy);
  const Time group_sum = Time::rounded_ps(jobs * t.group_sum);
  const auto group_stages = [&](std::vector<PipelineStage>& route, int first_resource, bool in) {
    if (in) {  // reduce-scatter, copy out, sum
      route.push_back({nullptr, group_reduce_scatter, 0});
      route.push_back({nullptr, copy, first_resource});
      route.push_back({nullptr, group_sum, first_resource + 1});
    } else {  // copy back, allgather
      route.push_back({nullptr, copy, first_resource + 2});
      route.push_back({nullptr, group_allgather, 0});
    }
  };
  if (!distributed()) {
    Pipeline alone;
    alone.items = static_cast<int>(items);
    if (groups_ > 1) {
      alone.resources = 4;
      std::vector<PipelineStage> route;
      group_stages(route, 1, true);
      group_stages(route, 1, false);
      alone.routes.push_back(std::move(route));
      return run_pipeline(network, alone);
    }
    alone.resources = 1;
    alone.routes.push_back({{&reduce_scatter, Time::zero(), 0}, {&allgather, Time::zero(), 0}});
    return run_pipeline(network, alone);
  }
  const int used = static_cast<int>(std::min<std::int64_t>(servers_, items));
  std::vector<Connections> connections(static_cast<std::size_t>(used));
  // Each copy the network runs adds its machines' shards on the same CPU.
  const Time sum = Time::rounded_ps(static_cast<double>(nodes_) * network.copies() * q *
                                    settings_.summation.ps_per_byte());
  // Resources: the NCCL stream, then per server s its pushes (1 + 3s), CPU and pulls.
  constexpr int nccl = 0;
  Pipeline pipeline;
  // The message's partitions, then those queued behind it: item j on server j mod k, as
  // consecutive keys are.
  pipeline.items = static_cast<int>(items);  // at most 2^25 (checked above)
  pipeline.resources = 1 + 3 * used + (groups_ > 1 ? 3 : 0);
  const int host = 1 + 3 * used;  // across groups: copies out, the CPU's sum, copies back
  for (int server = 0; server < used; ++server) {
    TransferStep push;
    TransferStep pull;
    for (int node = 0; node < nodes_; ++node) {
      push.transfers.push_back({pusher(*topology_, node), topology_->server(server), q});
      pull.transfers.push_back({topology_->server(server), pusher(*topology_, node), q});
    }
    Connections& c = connections[static_cast<std::size_t>(server)];
    both(std::move(push), c.push, c.push_streamed);
    both(std::move(pull), c.pull, c.pull_streamed);
    std::vector<PipelineStage> route;
    if (groups_ > 1) {
      group_stages(route, host, true);
    } else if (per_node_ > 1) {
      route.push_back({&reduce_scatter, Time::zero(), nccl});
    }
    route.push_back({&c.push, Time::zero(), 1 + 3 * server, &c.push_streamed});
    // The CPU that adds: the server's own, or the machine's it shares with the others there
    // (co-located servers sit on machine j mod n).
    const int cpu = colocated_ ? server % nodes_ : server;
    route.push_back({nullptr, sum, 2 + 3 * cpu});
    route.push_back({&c.pull, Time::zero(), 3 + 3 * server, &c.pull_streamed});
    if (groups_ > 1) {
      group_stages(route, host, false);
    } else if (per_node_ > 1) {
      route.push_back({&allgather, Time::zero(), nccl});
    }
    pipeline.routes.push_back(std::move(route));
  }
  return run_pipeline(network, pipeline);
}

LinearCost BytePs::linear_cost() const {
  return secant_cost(*this, Bytes(1), Bytes::from_mib(64));
}

double BytePs::bytes_sent_per_rank(Bytes message) const {
  const double g = per_node_;
  const double s = group_;
  // Across machines: each pushes S; with the servers on the machines, on average (n - 1) / n of
  // it leaves, and the servers send the other machines (n - 1) / n of S back: 2 (n - 1) / n.
  const double n = nodes_;
  const double network = !distributed() ? 0.0 : colocated_ ? 2.0 * (n - 1.0) / n : 1.0;
  // Inside the machine, (s - 1) / s of S in its group's reduce-scatter and as much in the
  // allgather (s GPUs a group: the machine's G, or a PCIe switch's); its copies to host memory
  // and back are not counted.
  return (2.0 * (s - 1.0) / s + network / g) * static_cast<double>(message.count());
}

Collective::Requantisation BytePs::requantisation() const {
  const double s = group_;
  // The group's reduce-scatter's s - 1 steps on S / s; across groups, the CPU's sum of the
  // groups' S each.
  const int groups = groups_ > 1 ? 1 : 0;
  const double group_bytes = groups_ > 1 ? groups_ - 1.0 : 0.0;
  if (!distributed()) {
    const int stages = group_ - 1 + groups;
    return stages > 0 ? Requantisation{stages, ((s - 1.0) / s + group_bytes) / stages}
                      : Requantisation{};
  }
  const int stages = group_ - 1 + groups + nodes_;
  const double bytes = (s - 1.0) / s + group_bytes + static_cast<double>(nodes_) / servers_;
  return {stages, bytes / stages};
}

CollectiveEntry byteps_collective() {
  CollectiveEntry entry;
  entry.name = "byteps";
  entry.description =
      "BytePS: reduce in each machine, push partitions to CPU summation servers, pull, "
      "broadcast (pipelined, queued tensors too)";
  entry.keys = {
      KeySpec::integer("servers",
                       "CPU summation servers (machines of their own, or on the workers' with "
                       "placement colocated)",
                       1, std::int64_t{1} << 20),
      KeySpec::choice("placement",
                      "servers on machines of their own, or on the worker machines (round-robin, "
                      "sharing their NICs)",
                      {"dedicated", "colocated"}, "dedicated"),
      KeySpec::positive("server_bandwidth_gbps", "each server's NIC; default: the network's")
          .optional(),
      // At least a byte (a fraction would truncate to no partition at all); at most 2^50, within
      // Bytes' int64 after any product the model forms.
      KeySpec::number_at_least("partition_bytes", "BYTEPS_PARTITION_BYTES", 1.0, 4'096'000.0)
          .at_most(0x1p50),
      KeySpec::positive("summation_gbps",
                        "a server's summation rate (default: one DDR4-2666 socket's memory "
                        "bandwidth over three)",
                        default_summation_gbps),
      KeySpec::integer("pcie_switch_size",
                       "BYTEPS_PCIE_SWITCH_SIZE: GPUs per PCIe switch; below the GPUs per node, "
                       "NCCL runs in each switch's group and the CPU adds the groups' sums",
                       1, std::int64_t{1} << 20, default_pcie_switch_size),
      KeySpec::integer("force_distributed",
                       "BYTEPS_FORCE_DISTRIBUTED: 1 runs the servers on one worker machine too "
                       "(0: BytePS uses none there)",
                       0, 1, 0),
  };
  entry.shape = add_byteps_servers;
  entry.check = check_byteps_keys;
  entry.make = [](const CollectiveContext& context, const Settings& settings) -> CollectivePtr {
    return std::make_unique<BytePs>(context, byteps_settings(context, settings));
  };
  entry.describe = [](const Settings& settings, const ClusterShape& shape) {
    const int group = byteps_group(settings, shape.gpus_per_node);
    const std::string groups =
        group == shape.gpus_per_node ? ""
        : group == 1
            ? std::string(", each GPU's gradient copied to host memory, the CPU adding them")
            : fmt::format(", NCCL in groups of {} GPUs, the CPU adding the groups' sums", group);
    if (shape.servers == 0) {
      return fmt::format("byteps (one machine: {}, no servers; {:.0f}-byte partitions)",
                         groups.empty() ? "NCCL inside it" : groups.substr(2),
                         settings.number("partition_bytes"));
    }
    if (shape.server_placement == ServerPlacement::colocated) {
      return fmt::format("byteps ({} server{} on the worker machines, {:.0f}-byte partitions{})",
                         shape.servers, shape.servers == 1 ? "" : "s",
                         settings.number("partition_bytes"), groups);
    }
    return fmt::format("byteps ({} server{} at {:g} Gbps, {:.0f}-byte partitions{})", shape.servers,
                       shape.servers == 1 ? "" : "s", shape.server_link.bandwidth.gbps(),
                       settings.number("partition_bytes"), groups);
  };
  return entry;
}

}  // namespace sgdsim
