// The flow-level network as a model on the engine, and the max-min fair allocation.
#include "sgdsim/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "sgdsim/core/error.hpp"

namespace sgdsim {

namespace {

// Bytes per second to bytes per picosecond.
constexpr double per_picosecond = 1e-12;

// A rate group's remaining bytes once its flows have arrived.
constexpr double kArrived = -std::numeric_limits<double>::infinity();

// The arrival arithmetic, shared by the simulation and every path that prices without it (their
// results agree to the picosecond only because they compute the very same numbers): the
// picoseconds until a flow arrives, and whether it has, within a picosecond's worth of bytes.
double until_arrival(double remaining, double rate) {
  return std::max(0.0, remaining / rate);
}
bool has_arrived(double remaining, double rate) {
  return remaining <= std::max(1e-6, rate);
}

// A route's share of a set's key (splitmix64 of its id): keys of sets are sums of these, the
// same in whatever order the flows stand.
std::uint64_t route_key(std::uint32_t id) {
  std::uint64_t z = (static_cast<std::uint64_t>(id) + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

}  // namespace

const std::vector<double>& MaxMinSolver::solve(const std::vector<double>& capacity,
                                               const std::vector<const std::vector<int>*>& flows,
                                               int copies) {
  const std::size_t links = capacity.size();
  const auto weight = static_cast<double>(copies);
  rate_.assign(flows.size(), 0.0);
  left_.assign(capacity.begin(), capacity.end());
  unfrozen_.assign(links, 0);
  for (const std::vector<int>* route : flows) {
    for (int link : *route) ++unfrozen_[static_cast<std::size_t>(link)];
  }
  // Flows grouped by link (counting sort), each link's in increasing flow order.
  first_.assign(links + 1, 0);
  for (std::size_t l = 0; l < links; ++l) first_[l + 1] = first_[l] + unfrozen_[l];
  members_.resize(static_cast<std::size_t>(first_[links]));
  filled_.assign(first_.begin(), first_.end() - 1);
  for (std::size_t f = 0; f < flows.size(); ++f) {
    for (int link : *flows[f]) {
      members_[static_cast<std::size_t>(filled_[static_cast<std::size_t>(link)]++)] =
          static_cast<int>(f);
    }
  }
  // A link's fair share: what is left over its unfrozen flows, each counted `copies` times.
  const auto share_of = [&](std::size_t l) { return left_[l] / (unfrozen_[l] * weight); };
  const std::greater<> later;  // std heaps keep the largest on top; invert for the smallest
  heap_.clear();
  for (std::size_t l = 0; l < links; ++l) {
    if (unfrozen_[l] > 0) {
      heap_.emplace_back(share_of(l), static_cast<int>(l));
      std::push_heap(heap_.begin(), heap_.end(), later);
    }
  }
  frozen_.assign(flows.size(), 0);
  if (newly_.size() < links) newly_.resize(links, 0);  // kept all zero between uses
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const auto [share, link] = heap_.back();
    heap_.pop_back();
    const auto l = static_cast<std::size_t>(link);
    if (unfrozen_[l] == 0 || share != share_of(l)) continue;  // stale entry
    // This link is the tightest: every unfrozen flow through it gets its fair share. Each link
    // they cross then gives up that share once per flow (and copy), in one subtraction: the
    // result does not depend on the order the flows are frozen in, so `copies` identical copies
    // of every flow and one flow counted `copies` times compute the very same numbers.
    touched_.clear();
    for (int m = first_[l]; m < first_[l + 1]; ++m) {
      const auto f = static_cast<std::size_t>(members_[static_cast<std::size_t>(m)]);
      if (frozen_[f]) continue;
      frozen_[f] = 1;
      rate_[f] = share;
      for (int other : *flows[f]) {
        if (newly_[static_cast<std::size_t>(other)]++ == 0) touched_.push_back(other);
      }
    }
    for (const int other : touched_) {
      const auto o = static_cast<std::size_t>(other);
      left_[o] = std::max(0.0, left_[o] - newly_[o] * weight * share);
      unfrozen_[o] -= newly_[o];
      newly_[o] = 0;
      if (unfrozen_[o] > 0 && o != l) {
        heap_.emplace_back(share_of(o), other);
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
  return rate_;
}

std::vector<double> max_min_rates(const std::vector<double>& capacity,
                                  const std::vector<const std::vector<int>*>& flows) {
  MaxMinSolver solver;
  return solver.solve(capacity, flows);
}

FlowNetwork::FlowNetwork(const Topology& topology, int copies)
    : topology_(topology), copies_(copies) {
  SGDSIM_ASSERT(copies >= 1, "a flow network runs at least one copy of its programs");
  const auto& graph = topology.graph();
  capacity_.resize(2 * boost::num_edges(graph));
  for (auto [edge, end] = boost::edges(graph); edge != end; ++edge) {
    const double bytes_per_ps =
        graph[*edge].link.bandwidth.bits_per_second() / 8.0 * per_picosecond;
    const auto id = static_cast<std::size_t>(graph[*edge].id);
    capacity_[2 * id] = bytes_per_ps;      // lower vertex -> higher vertex
    capacity_[2 * id + 1] = bytes_per_ps;  // higher -> lower
  }
}

const FlowNetwork::Route& FlowNetwork::route(Topology::Vertex from, Topology::Vertex to) {
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32U) | to;
  if (const auto found = routes_.find(key); found != routes_.end()) return found->second;
  SGDSIM_ASSERT(from < (std::uint64_t{1} << 32U) && to < (std::uint64_t{1} << 32U),
                "a route between vertices past 2^32");
  Route route;
  route.id = static_cast<std::uint32_t>(routes_.size());
  count_.push_back(0);  // per-route state, indexed by id
  rate_of_route_.push_back(0.0);
  marked_.push_back(0);
  Topology::Vertex at = from;
  for (const Topology::Edge& edge : topology_.route(from, to)) {
    const auto& graph = topology_.graph();
    const auto a = boost::source(edge, graph);
    const auto b = boost::target(edge, graph);
    const Topology::Vertex next = at == a ? b : a;
    route.links.push_back(2 * graph[edge].id + (at < next ? 0 : 1));
    route.latency += graph[edge].link.latency;
    at = next;
  }
  return routes_.emplace(key, std::move(route)).first->second;
}

std::vector<Time> FlowNetwork::run(const std::vector<TransferProgram>& programs) {
  std::vector<Time> finished(programs.size(), Time::max());
  run_with(
      [&](Simulator& simulator) {
        for (std::size_t p = 0; p < programs.size(); ++p) {
          start(simulator, programs[p], [&finished, p](Time end) { finished[p] = end; });
        }
      },
      programs.size() == 1);
  // Inputs refuse links without bandwidth, so a flow left unfinished is one whose end lies past
  // the time range (a link of 1e-14 Gbps): a run that cannot finish, as at the analytic level.
  if (std::any_of(finished.begin(), finished.end(), [](Time end) { return end == Time::max(); })) {
    detail::time_out_of_range();
  }
  return finished;
}

Time FlowNetwork::run_with(const std::function<void(Simulator&)>& begin, bool alone) {
  Simulator simulator;
  simulator.attach(*this);
  running_.clear();
  free_running_.clear();
  // A run that ended normally left no flow and every count zero; one that threw left both.
  if (!flows_.empty()) std::fill(count_.begin(), count_.end(), 0U);
  flows_.clear();
  routes_key_ = 0;
  distinct_routes_ = 0;
  alone_ = alone;
  arrival_known_ = false;
  clock_ = Time::zero();
  simulator_ = nullptr;
  begin(simulator);
  simulator.run();
  alone_ = false;
  simulator_ = nullptr;
  running_.clear();
  free_running_.clear();
  return simulator.now();
}

void FlowNetwork::start(Simulator& simulator, const TransferProgram& program,
                        std::function<void(Time)> done) {
  SGDSIM_ASSERT(simulator_ == nullptr || simulator_ == &simulator,
                "a flow network runs on one engine at a time");
  SGDSIM_ASSERT(simulator.now() >= clock_, "a program started before the network's clock");
  simulator_ = &simulator;
  for (const TransferStep& step : program) {
    SGDSIM_ASSERT(step.repeat >= 1, "a transfer step repeated fewer than once");
  }
  // A finished program's slot is taken again: no queued action refers to it any more.
  std::size_t r = running_.size();
  if (free_running_.empty()) {
    running_.emplace_back();
  } else {
    r = free_running_.back();
    free_running_.pop_back();
  }
  Running& running = running_[r];
  running.program = &program;
  running.step = 0;
  running.repeats_done = 0;
  running.done = std::move(done);
  start_step(r);
}

void FlowNetwork::start_step(std::size_t r) {
  Running& running = running_[r];
  if (running.step == running.program->size()) {
    // `done` may start another program, which may take this slot or move the slots.
    std::function<void(Time)> done = std::move(running.done);
    running.program = nullptr;
    free_running_.push_back(r);
    done(simulator_->now());
    return;
  }
  running.step_start = simulator_->now();
  const TransferStep& current = (*running.program)[running.step];
  if (current.transfers.empty()) {  // a step of local compute only
    simulator_->schedule_in(current.compute, 0, [this, r] { end_step(r); });
    return;
  }
  running.outstanding = current.transfers.size();
  if (running.repeats_done == 0) prepare_step(running);  // a repeat reuses its step's batches
  for (std::size_t batch = 0; batch < running.batch_end.size(); ++batch) {
    simulator_->schedule_in(running.batch_latency[batch], 0,
                            [this, r, batch] { activate(r, batch); });
  }
}

// The current step's routes, ordered by latency and cut into batches of equal latency (once per
// step, not per repeat).
void FlowNetwork::prepare_step(Running& running) {
  const TransferStep& current = (*running.program)[running.step];
  running.routes.clear();
  for (const Transfer& transfer : current.transfers) {
    running.routes.push_back(&route(transfer.from, transfer.to));
  }
  const auto latency = [&running, &current](std::uint32_t t) {
    return current.latency ? *current.latency : running.routes[t]->latency;
  };
  running.by_latency.resize(current.transfers.size());
  for (std::uint32_t t = 0; t < running.by_latency.size(); ++t) running.by_latency[t] = t;
  std::stable_sort(
      running.by_latency.begin(), running.by_latency.end(),
      [&latency](std::uint32_t a, std::uint32_t b) { return latency(a) < latency(b); });
  running.batch_end.clear();
  running.batch_latency.clear();
  for (std::size_t i = 1; i <= running.by_latency.size(); ++i) {
    if (i == running.by_latency.size() ||
        latency(running.by_latency[i]) != latency(running.by_latency[i - 1])) {
      running.batch_end.push_back(static_cast<std::uint32_t>(i));
      running.batch_latency.push_back(latency(running.by_latency[i - 1]));
    }
  }
}

void FlowNetwork::activate(std::size_t r, std::size_t batch) {
  settle(simulator_->now());  // the rates change: every flow's bytes are brought to now
  const Running& running = running_[r];
  const TransferStep& current = (*running.program)[running.step];
  const std::uint32_t begin = batch == 0 ? 0 : running.batch_end[batch - 1];
  for (std::uint32_t i = begin; i < running.batch_end[batch]; ++i) {
    const std::uint32_t t = running.by_latency[i];
    const Transfer& transfer = current.transfers[t];
    if (transfer.bytes <= 0.0) {
      finish_transfer(r);  // may end the step, but only after this batch's last transfer
    } else {
      const std::uint32_t route = running.routes[t]->id;
      flows_.push_back(Flow{&running.routes[t]->links, transfer.bytes, 0.0, r, route});
      if (count_[route]++ == 0) ++distinct_routes_;
      routes_key_ += route_key(route);
      rates_stale_ = true;
      arrival_known_ = false;
    }
  }
}

void FlowNetwork::finish_transfer(std::size_t r) {
  Running& running = running_[r];
  if (--running.outstanding > 0) return;
  const Time compute = (*running.program)[running.step].compute;
  simulator_->schedule_in(compute, 0, [this, r] { end_step(r); });
}

void FlowNetwork::end_step(std::size_t r) {
  Running& running = running_[r];
  const std::int64_t repeat = (*running.program)[running.step].repeat;
  if (++running.repeats_done < repeat) {
    if (!alone_) {
      start_step(r);  // the same step again, among the other programs' flows
      return;
    }
    // Alone, every repeat lasts as long as this one did: jump over the rest (Time's product
    // throws SimulationError past the clock's range).
    const Time each = simulator_->now() - running.step_start;
    const Time rest = each * (repeat - running.repeats_done);
    running.repeats_done = repeat;
    simulator_->schedule_in(rest, 0, [this, r] { end_step(r); });
    return;
  }
  running.repeats_done = 0;
  ++running.step;
  start_step(r);
}

Time FlowNetwork::time_alone(const TransferProgram& program) {
  if (const std::optional<Time> priced = shape_priced_time(program)) return *priced;
  return run({program}).front();
}

FlowNetwork::StepShape& FlowNetwork::shape_of(const TransferStep& step) {
  std::uint64_t hash = step.latency ? static_cast<std::uint64_t>(step.latency->ps()) : 1;
  for (const Transfer& transfer : step.transfers) {  // FNV-1a over the endpoints
    hash = (hash ^ transfer.from) * 1099511628211ULL;
    hash = (hash ^ transfer.to) * 1099511628211ULL;
  }
  std::vector<StepShape>& candidates = shapes_[hash];
  for (StepShape& shape : candidates) {
    if (shape.latency_override == step.latency &&
        std::equal(shape.endpoints.begin(), shape.endpoints.end(), step.transfers.begin(),
                   step.transfers.end(), [](const auto& ends, const Transfer& transfer) {
                     return ends.first == transfer.from && ends.second == transfer.to;
                   })) {
      return shape;
    }
  }
  StepShape shape;
  shape.latency_override = step.latency;
  flow_links_.clear();
  std::optional<Time> latency = step.latency;
  bool one_latency = true;
  for (const Transfer& transfer : step.transfers) {
    shape.endpoints.emplace_back(transfer.from, transfer.to);
    const Route& path = route(transfer.from, transfer.to);
    flow_links_.push_back(&path.links);
    if (!latency) latency = path.latency;
    one_latency = one_latency && (step.latency || path.latency == *latency);
  }
  if (one_latency && !step.transfers.empty()) {
    // The same flows as run() hands the solver (one latency batch), so the rates are the very
    // numbers it would compute.
    const std::vector<double>& rates = solver_.solve(capacity_, flow_links_, copies_);
    shape.one_latency = true;
    shape.latency = *latency;
    shape.separable = true;
    std::vector<double> rate_on(capacity_.size(), -1.0);  // per link: its flows' one rate
    for (std::size_t f = 0; f < rates.size() && shape.separable; ++f) {
      shape.separable = rates[f] > 0.0;
      for (const int link : *flow_links_[f]) {
        double& on = rate_on[static_cast<std::size_t>(link)];
        if (on >= 0.0 && on != rates[f]) shape.separable = false;
        on = rates[f];
      }
      if (std::find(shape.rates.begin(), shape.rates.end(), rates[f]) == shape.rates.end()) {
        shape.rates.push_back(rates[f]);
      }
    }
  }
  candidates.push_back(std::move(shape));
  return candidates.back();
}

bool FlowNetwork::record_phases(StepShape& shape, double bytes) {
  shape.recorded = true;
  // run()'s arithmetic on this step alone: solve, the soonest arrival rounded to the
  // picosecond, every flow's bytes reduced, the arrived removed (the solver's rates do not
  // depend on the order of the flows it is given).
  std::vector<const std::vector<int>*> links;
  for (const auto& [from, to] : shape.endpoints) links.push_back(&route(from, to).links);
  const std::size_t flows = links.size();
  std::vector<double> remaining(flows, bytes);
  std::vector<std::vector<double>> history(flows);  // each flow's rate in each phase it saw
  std::vector<std::size_t> active(flows);
  for (std::size_t f = 0; f < flows; ++f) active[f] = f;
  const auto limit = static_cast<double>(Time::max().ps());
  std::int64_t clock = 0;
  std::vector<const std::vector<int>*> input;
  // A step whose flows arrive one by one would keep flows x phases rates: past 2^24 of them
  // (128 MB), it is simulated at every size instead.
  constexpr std::size_t max_history = std::size_t{1} << 24;
  std::size_t kept_rates = 0;
  while (!active.empty()) {
    kept_rates += active.size();
    if (kept_rates > max_history) return false;
    input.clear();
    for (const std::size_t f : active) input.push_back(links[f]);
    const std::vector<double>& rates = solver_.solve(capacity_, input, copies_);
    double soonest = limit;
    for (std::size_t i = 0; i < active.size(); ++i) {
      if (rates[i] <= 0.0) return false;
      soonest = std::min(soonest, until_arrival(remaining[active[i]], rates[i]));
    }
    if (soonest >= limit - static_cast<double>(clock)) return false;
    const std::int64_t delay = std::llround(soonest);
    clock += delay;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < active.size(); ++i) {
      const std::size_t f = active[i];
      remaining[f] -= rates[i] * static_cast<double>(delay);
      history[f].push_back(rates[i]);
      if (!has_arrived(remaining[f], rates[i])) active[kept++] = f;
    }
    active.resize(kept);
  }
  // Flows with the same rate in every phase carry the same bytes throughout: one group.
  std::map<std::vector<double>, std::size_t> groups;
  for (const std::vector<double>& rates : history) groups.emplace(rates, groups.size());
  std::size_t phases = 0;
  for (const auto& [rates, group] : groups) phases = std::max(phases, rates.size());
  if (phases * groups.size() > max_history) return false;
  shape.phases.assign(
      phases, Phase{std::vector<double>(groups.size(), 0.0), std::vector<char>(groups.size(), 0)});
  for (const auto& [rates, group] : groups) {
    for (std::size_t i = 0; i < rates.size(); ++i) shape.phases[i].rates[group] = rates[i];
    shape.phases[rates.size() - 1].arriving[group] = 1;
  }
  return true;
}

std::optional<Time> FlowNetwork::replay_phases(const StepShape& shape, double bytes) const {
  const std::size_t groups = shape.phases.front().rates.size();
  std::vector<double> remaining(groups, bytes);
  const auto limit = static_cast<double>(Time::max().ps());
  std::int64_t clock = 0;
  for (const Phase& phase : shape.phases) {
    double soonest = limit;
    for (std::size_t g = 0; g < groups; ++g) {
      if (phase.rates[g] > 0.0) {
        soonest = std::min(soonest, until_arrival(remaining[g], phase.rates[g]));
      }
    }
    if (soonest >= limit - static_cast<double>(clock)) return std::nullopt;
    const std::int64_t delay = std::llround(soonest);
    clock += delay;
    for (std::size_t g = 0; g < groups; ++g) {
      const double rate = phase.rates[g];
      if (rate <= 0.0) continue;
      remaining[g] -= rate * static_cast<double>(delay);
      const bool arrived = has_arrived(remaining[g], rate);
      if (arrived != (phase.arriving[g] != 0)) return std::nullopt;  // other phases than recorded
    }
  }
  return Time::from_ps(clock);
}

std::optional<Time> FlowNetwork::shape_priced_time(const TransferProgram& program) {
  Time total;
  std::vector<double> remaining;  // per rate group
  for (const TransferStep& step : program) {
    SGDSIM_ASSERT(step.repeat >= 1, "a transfer step repeated fewer than once");
    Time each = step.compute;
    if (!step.transfers.empty()) {
      const double bytes = step.transfers.front().bytes;
      if (std::any_of(step.transfers.begin(), step.transfers.end(),
                      [bytes](const Transfer& transfer) { return transfer.bytes != bytes; })) {
        return std::nullopt;
      }
      StepShape& shape = shape_of(step);
      if (!shape.separable) {
        // Not separable, one latency: its recorded phases replayed at these bytes.
        if (!shape.one_latency || bytes <= 0.0) return std::nullopt;
        if (!shape.recorded && !record_phases(shape, bytes)) return std::nullopt;
        if (shape.phases.empty()) return std::nullopt;
        const std::optional<Time> replayed = replay_phases(shape, bytes);
        if (!replayed) return std::nullopt;
        total += (each + shape.latency + *replayed) * step.repeat;
        continue;
      }
      each += shape.latency;
      // What next_event() and advance() do with these flows, one group of equal rate (and so
      // equal remaining bytes) at a time: the soonest arrival rounded to the picosecond, every
      // flow's bytes reduced by rate x elapsed, arrived within a picosecond's worth of bytes.
      remaining.assign(shape.rates.size(), bytes);
      std::size_t active = bytes > 0.0 ? remaining.size() : 0;
      std::int64_t clock = 0;
      const auto limit = static_cast<double>(Time::max().ps());
      while (active > 0) {
        double soonest = limit;
        for (std::size_t g = 0; g < remaining.size(); ++g) {
          if (remaining[g] != kArrived) {
            soonest = std::min(soonest, until_arrival(remaining[g], shape.rates[g]));
          }
        }
        if (soonest >= limit - static_cast<double>(clock)) return std::nullopt;
        const std::int64_t delay = std::llround(soonest);
        clock += delay;
        for (std::size_t g = 0; g < remaining.size(); ++g) {
          if (remaining[g] == kArrived) continue;
          remaining[g] -= shape.rates[g] * static_cast<double>(delay);
          if (has_arrived(remaining[g], shape.rates[g])) {
            remaining[g] = kArrived;
            --active;
          }
        }
      }
      each += Time::from_ps(clock);
    }
    total += each * step.repeat;
  }
  return total;
}

// Max-min rates depend on nothing but the routes of the flows and how many flows take each (the
// solver's numbers do not depend on the order it is given the flows, and flows on one route get
// one rate), so a set of routes seen before gets the rates solved then, bit for bit. Jobs whose
// steps repeat bring the same sets back again and again. The set's key and each route's count
// are kept as flows start and arrive, so looking a set up costs its distinct routes, not its
// flows.
bool FlowNetwork::recall_rates() {
  // A network whose sets of routes do not come back (a parameter server's pushes from every
  // worker at once) stops looking after 16 solves with fewer than one recall in four.
  if (remembering_ == Remembering::adaptive && misses_ >= 16 && recalled_ * 4 < misses_) {
    remembering_ = Remembering::off;
  }
  if (remembering_ == Remembering::off) return false;
  bool found = false;
  const auto candidates = remembered_.equal_range(routes_key_);
  for (auto it = candidates.first; it != candidates.second && !found; ++it) {
    const RememberedRates& entry = it->second;
    found = entry.routes.size() == distinct_routes_;
    for (std::size_t i = 0; i < entry.routes.size() && found; ++i) {
      found = count_[entry.routes[i].first] == entry.routes[i].second;
    }
    if (found) {
      for (std::size_t i = 0; i < entry.routes.size(); ++i) {
        rate_of_route_[entry.routes[i].first] = entry.rates[i];
      }
    }
  }
  if (found) {
    ++recalled_;  // the caller gives each flow its route's rate
  } else {
    ++misses_;
  }
  return found;
}

void FlowNetwork::remember_rates() {
  if (remembering_ == Remembering::off ||
      remembered_size_ + distinct_routes_ > max_remembered_routes) {
    return;
  }
  std::vector<std::pair<std::uint32_t, double>> routes;  // each route once, with its rate
  routes.reserve(distinct_routes_);
  for (const Flow& flow : flows_) {
    if (marked_[flow.route] == 0) {
      marked_[flow.route] = 1;
      routes.emplace_back(flow.route, flow.rate);
    }
  }
  std::sort(routes.begin(), routes.end());
  RememberedRates entry;
  for (const auto& [route, rate] : routes) {
    entry.routes.emplace_back(route, count_[route]);
    entry.rates.push_back(rate);
    marked_[route] = 0;
  }
  remembered_size_ += routes.size();
  remembered_.emplace(routes_key_, std::move(entry));
}

Time FlowNetwork::next_event() {
  if (flows_.empty()) return Time::max();
  // The soonest arrival, kept until the flows change (other models' events ask again and again),
  // found in the same pass that gives the flows their rates when those change.
  if (!rates_stale_ && arrival_known_) return next_arrival_;
  // Beyond the clock's range an arrival is never: the run then ends with the flow unfinished.
  const double horizon = static_cast<double>(Time::max().ps() - clock_.ps());
  double soonest = horizon;
  const auto sooner = [&soonest](const Flow& flow) {
    if (flow.rate > 0.0) soonest = std::min(soonest, until_arrival(flow.remaining, flow.rate));
  };
  if (!rates_stale_) {
    for (const Flow& flow : flows_) sooner(flow);
  } else if (recall_rates()) {
    for (Flow& flow : flows_) {
      flow.rate = rate_of_route_[flow.route];
      sooner(flow);
    }
  } else {
    flow_links_.clear();
    for (const Flow& flow : flows_) flow_links_.push_back(flow.links);
    const std::vector<double>& rates = solver_.solve(capacity_, flow_links_, copies_);
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      flows_[f].rate = rates[f];
      sooner(flows_[f]);
    }
    remember_rates();
  }
  rates_stale_ = false;
  arrival_known_ = true;
  next_arrival_ = Time::max();
  if (soonest >= horizon) return next_arrival_;
  const std::int64_t delay = std::llround(soonest);
  if (delay <= Time::max().ps() - clock_.ps()) next_arrival_ = clock_ + Time::from_ps(delay);
  return next_arrival_;
}

// The flows' bytes are brought forward only where the flows change (an arrival here, a start in
// activate()): between two changes the rates are constant and the bytes refer to the time of the
// last one, so an event elsewhere on the engine (another job's compute) leaves every arrival
// exactly where a run without it puts it.
void FlowNetwork::advance(Time now) {
  SGDSIM_ASSERT(now >= clock_, "a flow network advanced backwards");
  if (flows_.empty()) {
    clock_ = now;
    return;
  }
  // Flows arrive at the time next_event() announced, not at another model's event before it
  // (whose time could fall within a picosecond's worth of bytes of an arrival).
  SGDSIM_ASSERT(arrival_known_, "a flow network advanced without being asked for its event");
  if (now >= next_arrival_) settle(now);
}

void FlowNetwork::settle(Time now) {
  SGDSIM_ASSERT(now >= clock_, "a flow network advanced backwards");
  const auto elapsed = static_cast<double>((now - clock_).ps());
  clock_ = now;
  arrival_known_ = false;
  if (flows_.empty()) return;
  // Flows within a picosecond's worth of bytes of done have arrived (a symmetric step at once);
  // the others keep their order.
  const std::size_t count = flows_.size();
  std::size_t kept = 0;
  for (std::size_t f = 0; f < count; ++f) {
    Flow& flow = flows_[f];
    flow.remaining -= flow.rate * elapsed;
    if (has_arrived(flow.remaining, flow.rate)) {
      if (--count_[flow.route] == 0) --distinct_routes_;
      routes_key_ -= route_key(flow.route);
      finish_transfer(flow.program);
    } else if (kept++ != f) {  // up to the first arrival nothing moves
      flows_[kept - 1] = flow;
    }
  }
  rates_stale_ = rates_stale_ || kept != count;
  flows_.resize(kept);
}

}  // namespace sgdsim
