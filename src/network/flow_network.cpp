// Event loop of the flow-level network and the max-min fair allocation. Times are kept in double
// seconds inside the loop and rounded to picoseconds once, at each program's end.
#include "sgdsim/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

struct Flow {
  const std::vector<int>* links;
  double remaining;  // bytes
  double rate;       // bytes per second
  std::size_t program;
};

struct Pending {
  double time;
  std::size_t program;
  bool step_start;  // false: a flow activation
  Transfer transfer;
  bool operator>(const Pending& other) const { return time > other.time; }
};

}  // namespace

std::vector<double> max_min_rates(const std::vector<double>& capacity,
                                  const std::vector<const std::vector<int>*>& flows) {
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<double> left(capacity);
  std::vector<int> unfrozen(capacity.size(), 0);
  std::vector<std::vector<int>> on_link(capacity.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (int link : *flows[f]) {
      ++unfrozen[static_cast<std::size_t>(link)];
      on_link[static_cast<std::size_t>(link)].push_back(static_cast<int>(f));
    }
  }
  using Entry = std::pair<double, int>;  // fair share, link
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    if (unfrozen[l] > 0) heap.emplace(left[l] / unfrozen[l], static_cast<int>(l));
  }
  std::vector<char> frozen(flows.size(), 0);
  while (!heap.empty()) {
    const auto [share, link] = heap.top();
    heap.pop();
    const auto l = static_cast<std::size_t>(link);
    if (unfrozen[l] == 0 || share != left[l] / unfrozen[l]) continue;  // stale entry
    // This link is the tightest: every unfrozen flow through it gets its fair share.
    for (int f : on_link[l]) {
      if (frozen[static_cast<std::size_t>(f)]) continue;
      frozen[static_cast<std::size_t>(f)] = 1;
      rate[static_cast<std::size_t>(f)] = share;
      for (int other : *flows[static_cast<std::size_t>(f)]) {
        const auto o = static_cast<std::size_t>(other);
        left[o] = std::max(0.0, left[o] - share);
        if (--unfrozen[o] > 0 && o != l) heap.emplace(left[o] / unfrozen[o], other);
      }
    }
  }
  return rate;
}

FlowNetwork::FlowNetwork(const Topology& topology) : topology_(topology) {
  const auto& graph = topology.graph();
  for (auto [edge, end] = boost::edges(graph); edge != end; ++edge) {
    const auto a = boost::source(*edge, graph);
    const auto b = boost::target(*edge, graph);
    const double bytes_per_second = graph[*edge].link.bandwidth.bits_per_second() / 8.0;
    edge_index_[{std::min(a, b), std::max(a, b)}] = static_cast<int>(capacity_.size());
    capacity_.push_back(bytes_per_second);  // lower vertex -> higher vertex
    capacity_.push_back(bytes_per_second);  // higher -> lower
  }
}

const FlowNetwork::Route& FlowNetwork::route(Topology::Vertex from, Topology::Vertex to) {
  const auto key = std::make_pair(from, to);
  if (const auto found = routes_.find(key); found != routes_.end()) return found->second;
  Route route;
  Topology::Vertex at = from;
  for (const Topology::Edge& edge : topology_.route(from, to)) {
    const auto& graph = topology_.graph();
    const auto a = boost::source(edge, graph);
    const auto b = boost::target(edge, graph);
    const Topology::Vertex next = at == a ? b : a;
    const int index = edge_index_.at({std::min(a, b), std::max(a, b)});
    route.links.push_back(index + (at < next ? 0 : 1));
    route.latency_seconds += graph[edge].link.latency.seconds();
    at = next;
  }
  return routes_.emplace(key, std::move(route)).first->second;
}

std::vector<Time> FlowNetwork::run(const std::vector<TransferProgram>& programs) {
  std::vector<std::size_t> step(programs.size(), 0);
  std::vector<std::size_t> outstanding(programs.size(), 0);
  std::vector<double> finished(programs.size(), 0.0);
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  std::vector<Flow> flows;
  double now = 0.0;
  bool rates_stale = true;

  auto start_step = [&](std::size_t p) {
    if (step[p] == programs[p].size()) {
      finished[p] = now;
      return;
    }
    const TransferStep& current = programs[p][step[p]];
    if (current.transfers.empty()) {  // a step of local compute only
      ++step[p];
      pending.push(Pending{now + current.compute.seconds(), p, true, {}});
      return;
    }
    outstanding[p] = current.transfers.size();
    for (const Transfer& transfer : current.transfers) {
      pending.push(
          Pending{now + route(transfer.from, transfer.to).latency_seconds, p, false, transfer});
    }
  };
  for (std::size_t p = 0; p < programs.size(); ++p) start_step(p);

  auto finish_transfer = [&](std::size_t p) {
    if (--outstanding[p] > 0) return;
    const TransferStep& done = programs[p][step[p]];
    ++step[p];
    pending.push(Pending{now + done.compute.seconds(), p, true, {}});
  };

  while (!flows.empty() || !pending.empty()) {
    if (rates_stale && !flows.empty()) {
      std::vector<const std::vector<int>*> routes;
      routes.reserve(flows.size());
      for (const Flow& flow : flows) routes.push_back(flow.links);
      const std::vector<double> rates = max_min_rates(capacity_, routes);
      for (std::size_t f = 0; f < flows.size(); ++f) flows[f].rate = rates[f];
      rates_stale = false;
    }
    double next_finish = infinity;
    for (const Flow& flow : flows) {
      if (flow.rate > 0.0) next_finish = std::min(next_finish, now + flow.remaining / flow.rate);
    }
    const double next_pending = pending.empty() ? infinity : pending.top().time;
    const double next = std::min(next_finish, next_pending);
    SGDSIM_ASSERT(next < infinity, "flows that can never finish (a link without bandwidth)");
    for (Flow& flow : flows) flow.remaining -= flow.rate * (next - now);
    now = next;
    // Flows within a picosecond of done have arrived (all of a symmetric step at once).
    const std::size_t before = flows.size();
    for (std::size_t f = 0; f < flows.size();) {
      const double slack = std::max(1e-6, flows[f].rate * 1e-12);
      if (flows[f].remaining <= slack) {
        const std::size_t program = flows[f].program;
        flows[f] = flows.back();
        flows.pop_back();
        finish_transfer(program);
      } else {
        ++f;
      }
    }
    rates_stale = rates_stale || flows.size() != before;
    while (!pending.empty() && pending.top().time <= now) {
      const Pending event = pending.top();
      pending.pop();
      if (event.step_start) {
        start_step(event.program);
      } else if (event.transfer.bytes <= 0.0) {
        finish_transfer(event.program);
      } else {
        flows.push_back(Flow{&route(event.transfer.from, event.transfer.to).links,
                             event.transfer.bytes, 0.0, event.program});
        rates_stale = true;
      }
    }
  }
  std::vector<Time> result;
  for (double seconds : finished) result.push_back(Time::from_seconds(seconds));
  return result;
}

}  // namespace sgdsim
