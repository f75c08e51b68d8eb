// The flow-level network as a model on the engine, and the max-min fair allocation.
#include "sgdsim/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// Bytes per second to bytes per picosecond.
constexpr double per_picosecond = 1e-12;

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
    const double bytes_per_ps =
        graph[*edge].link.bandwidth.bits_per_second() / 8.0 * per_picosecond;
    edge_index_[{std::min(a, b), std::max(a, b)}] = static_cast<int>(capacity_.size());
    capacity_.push_back(bytes_per_ps);  // lower vertex -> higher vertex
    capacity_.push_back(bytes_per_ps);  // higher -> lower
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
    route.latency += graph[edge].link.latency;
    at = next;
  }
  return routes_.emplace(key, std::move(route)).first->second;
}

std::vector<Time> FlowNetwork::run(const std::vector<TransferProgram>& programs) {
  Simulator simulator;
  simulator.attach(*this);
  running_.clear();
  flows_.clear();
  clock_ = Time::zero();
  simulator_ = nullptr;
  std::vector<Time> finished(programs.size(), Time::max());
  for (std::size_t p = 0; p < programs.size(); ++p) {
    start(simulator, programs[p], [&finished, p](Time end) { finished[p] = end; });
  }
  simulator.run();
  simulator_ = nullptr;
  running_.clear();
  SGDSIM_ASSERT(
      std::none_of(finished.begin(), finished.end(), [](Time end) { return end == Time::max(); }),
      "flows that can never finish (a link without bandwidth)");
  return finished;
}

void FlowNetwork::start(Simulator& simulator, const TransferProgram& program,
                        std::function<void(Time)> done) {
  SGDSIM_ASSERT(simulator_ == nullptr || simulator_ == &simulator,
                "a flow network runs on one engine at a time");
  SGDSIM_ASSERT(simulator.now() >= clock_, "a program started before the network's clock");
  simulator_ = &simulator;
  running_.push_back(Running{&program, 0, 0, std::move(done)});
  start_step(running_.size() - 1);
}

void FlowNetwork::start_step(std::size_t r) {
  Running& running = running_[r];
  if (running.step == running.program->size()) {
    running.done(simulator_->now());
    return;
  }
  const TransferStep& current = (*running.program)[running.step];
  if (current.transfers.empty()) {  // a step of local compute only
    ++running.step;
    simulator_->schedule_in(current.compute, 0, [this, r] { start_step(r); });
    return;
  }
  running.outstanding = current.transfers.size();
  for (const Transfer& transfer : current.transfers) {
    simulator_->schedule_in(route(transfer.from, transfer.to).latency, 0,
                            [this, r, &transfer] { activate(r, transfer); });
  }
}

void FlowNetwork::activate(std::size_t r, const Transfer& transfer) {
  if (transfer.bytes <= 0.0) {
    finish_transfer(r);
    return;
  }
  SGDSIM_ASSERT(clock_ == simulator_->now(), "a flow started on a network not advanced to now");
  flows_.push_back(Flow{&route(transfer.from, transfer.to).links, transfer.bytes, 0.0, r});
  rates_stale_ = true;
}

void FlowNetwork::finish_transfer(std::size_t r) {
  Running& running = running_[r];
  if (--running.outstanding > 0) return;
  const Time compute = (*running.program)[running.step].compute;
  ++running.step;
  simulator_->schedule_in(compute, 0, [this, r] { start_step(r); });
}

Time FlowNetwork::next_event() {
  if (flows_.empty()) return Time::max();
  if (rates_stale_) {
    std::vector<const std::vector<int>*> routes;
    routes.reserve(flows_.size());
    for (const Flow& flow : flows_) routes.push_back(flow.links);
    const std::vector<double> rates = max_min_rates(capacity_, routes);
    for (std::size_t f = 0; f < flows_.size(); ++f) flows_[f].rate = rates[f];
    rates_stale_ = false;
  }
  // Beyond the clock's range an arrival is never: the run then ends with the flow unfinished.
  const double horizon = static_cast<double>(Time::max().ps() - clock_.ps());
  double soonest = horizon;
  for (const Flow& flow : flows_) {
    if (flow.rate > 0.0) soonest = std::min(soonest, std::max(0.0, flow.remaining / flow.rate));
  }
  if (soonest >= horizon) return Time::max();
  const std::int64_t delay = std::llround(soonest);
  return delay > Time::max().ps() - clock_.ps() ? Time::max() : clock_ + Time::from_ps(delay);
}

void FlowNetwork::advance(Time now) {
  SGDSIM_ASSERT(now >= clock_, "a flow network advanced backwards");
  const auto elapsed = static_cast<double>((now - clock_).ps());
  clock_ = now;
  if (flows_.empty()) return;
  for (Flow& flow : flows_) flow.remaining -= flow.rate * elapsed;
  // Flows within a picosecond's worth of bytes of done have arrived (a symmetric step at once).
  const std::size_t before = flows_.size();
  for (std::size_t f = 0; f < flows_.size();) {
    if (flows_[f].remaining <= std::max(1e-6, flows_[f].rate)) {
      const std::size_t program = flows_[f].program;
      flows_[f] = flows_.back();
      flows_.pop_back();
      finish_transfer(program);
    } else {
      ++f;
    }
  }
  rates_stale_ = rates_stale_ || flows_.size() != before;
}

}  // namespace sgdsim
