// Flow-level simulation of point-to-point transfers on a topology. A collective is decomposed
// into steps of transfers (a TransferProgram); each transfer becomes a flow that starts after its
// route's latency and shares every link on its route with the other active flows by max-min
// fairness (progressive filling, recomputed whenever a flow starts or ends). A step ends when all
// its flows have arrived plus its local compute (e.g. reduction), and the program's next step
// starts then: steps run in lockstep, exact for the symmetric collectives we model. Several
// programs (concurrent jobs) run at once and contend for the same links.
//
// A program running alone prices each repeated step once: the network is empty at every step
// boundary and every time is relative to the step's start, so each repeat takes exactly as long
// as the first (byte-identical to running them one by one, which is what happens when programs
// share the network).
//
// The network is a model on the discrete-event engine (engine/simulator.hpp): route latencies
// and step computations are queued actions, and flow arrivals are the model's own events, found
// from the current rates when the engine asks. Times are integer picoseconds like everywhere
// else: a flow's arrival is rounded to the nearest picosecond, and flows that arrive within the
// same picosecond arrive together.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sgdsim/core/time.hpp"
#include "sgdsim/engine/simulator.hpp"
#include "sgdsim/topology/topology.hpp"

namespace sgdsim {

struct Transfer {
  Topology::Vertex from = 0;
  Topology::Vertex to = 0;
  double bytes = 0.0;
};

struct TransferStep {
  std::vector<Transfer> transfers;
  Time compute;  // local work after the transfers arrive (reduction), all ranks in parallel
  // How many times the step runs back to back: a ring's N-1 identical steps are stored once, so
  // a program holds O(N) transfers, not O(N^2).
  std::int64_t repeat = 1;
  // When set, every transfer of the step starts after this latency instead of its route's: a
  // step of a pipelined ring stands for one hop class and costs that class's latency
  // (collectives/hops.hpp, RingPass), not the slowest route's.
  std::optional<Time> latency;
};

using TransferProgram = std::vector<TransferStep>;

// Max-min fair rates by progressive filling: the link with the smallest fair share (capacity
// left over unfrozen flows) freezes its flows at that share, repeatedly. The solver keeps its
// buffers between calls (link lists in one flat table, the heap of shares), so a network that
// re-solves at every flow arrival allocates nothing once warm.
class MaxMinSolver {
 public:
  // Rates of `flows` (lists of link ids) over links of the given capacities, in flow order, each
  // flow standing for `copies` identical flows on the same links (identical jobs): the numbers
  // are those of solving every copy, bit for bit. Valid until the next call.
  const std::vector<double>& solve(const std::vector<double>& capacity,
                                   const std::vector<const std::vector<int>*>& flows,
                                   int copies = 1);

 private:
  std::vector<double> rate_;
  std::vector<double> left_;
  std::vector<int> unfrozen_;
  std::vector<int> first_;    // per link: where its flows start in members_ (one past: next)
  std::vector<int> members_;  // flow ids grouped by link, in increasing flow order
  std::vector<int> filled_;
  std::vector<char> frozen_;
  std::vector<int> newly_;    // per link: flows frozen through it by the current bottleneck
  std::vector<int> touched_;  // the links with newly_ > 0
  std::vector<std::pair<double, int>> heap_;  // (fair share, link), smallest on top
};

class FlowNetwork final : public Model {
 public:
  // `copies`: every program runs as that many identical copies on the same GPUs at once (jobs
  // that share the links), computed as one program whose flows count `copies` times each; the
  // times are those of running the copies side by side, to the picosecond (tests check).
  explicit FlowNetwork(const Topology& topology, int copies = 1);

  // Runs the programs concurrently from time zero on an engine of its own; returns when each
  // one finished.
  std::vector<Time> run(const std::vector<TransferProgram>& programs);

  // Runs on a fresh engine of its own whatever `begin` sets going there (programs it starts,
  // actions it queues that start more) until nothing is left; returns the engine's last time.
  // For work that is not a set of programs from time zero (a pipeline whose stages start as
  // others end: network/flow_pipeline.hpp). `alone`: one program runs, started at time zero,
  // so its repeated steps may be priced once (run() with one program).
  Time run_with(const std::function<void(Simulator&)>& begin, bool alone = false);

  // Starts `program` at the simulator's current time (attach this network to `simulator` first);
  // `done` is called with the time its last step ended. The program must outlive the run.
  void start(Simulator& simulator, const TransferProgram& program, std::function<void(Time)> done);

  // A program's time running alone, priced from its steps' shapes instead of simulated, when
  // every step is separable: its transfers carry equal bytes and start together (one latency),
  // and flows of different max-min rates share no link, so no flow's rate changes when others
  // finish (a ring's steps, whose intra-node and node-crossing flows run at different rates on
  // different links; halving-doubling on one switch). Such a step's flows finish in groups of
  // equal rate, at times that follow from the bytes with the very arithmetic run() performs
  // (arrivals rounded to the picosecond), so the result is run()'s to the picosecond. The rates
  // depend only on the step's endpoints: they are solved once per distinct step shape and kept,
  // and every further message size of the same program shape is priced in O(transfers) without a
  // solve or an event. A step of one latency and equal bytes that is not separable (rates that
  // differ on a shared link change as flows arrive) is run once with run()'s arithmetic and its
  // phases recorded; other sizes replay them, exact as long as the flows arrive in the recorded
  // phases (checked). Null when a step starts its flows at different latencies or with
  // different bytes, or a replay leaves its record (run() it then).
  std::optional<Time> shape_priced_time(const TransferProgram& program);
  // A program's time running alone: priced from its steps' shapes where it can be, else run.
  Time time_alone(const TransferProgram& program);

  Time next_event() override;
  void advance(Time now) override;

  // The directed links (ids 2 x edge id, + 1 from the higher vertex to the lower) a transfer
  // from `from` to `to` crosses, in order.
  const std::vector<int>& links(Topology::Vertex from, Topology::Vertex to) {
    return route(from, to).links;
  }

  // Whether rates solved once are recalled when the same set of routes is active again (they
  // are the very numbers solving again gives; tests compare): by default until 16 solves have
  // recalled fewer than one in four (sets that do not come back); `on`: always; else never.
  void set_remembering(bool on) { remembering_ = on ? Remembering::always : Remembering::off; }
  // Solves saved so far by recalling a set's rates.
  std::uint64_t recalled() const { return recalled_; }
  // Sets of routes solved because they were not remembered (while remembering).
  std::uint64_t unrecalled() const { return misses_; }

  // How many identical copies each program runs as.
  int copies() const { return copies_; }
  std::size_t directed_links() const { return capacity_.size(); }
  std::size_t active_flows() const { return flows_.size(); }

 private:
  struct Route {
    std::vector<int> links;  // directed link ids
    Time latency;
    std::uint32_t id = 0;  // 0, 1, 2, ... in the order routes were first asked for
  };
  struct Flow {
    const std::vector<int>* links;
    double remaining;  // bytes
    double rate;       // bytes per picosecond
    std::size_t program;
    std::uint32_t route;  // its Route's id
  };
  // Rates solved for one set of routes: each route with its number of flows, in route order,
  // and their rate.
  struct RememberedRates {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> routes;
    std::vector<double> rates;
  };
  // Routes remembered with their rates, all sets together (16 bytes each: 64 MiB).
  static constexpr std::size_t max_remembered_routes = std::size_t{1} << 22;
  struct Running {
    const TransferProgram* program = nullptr;
    std::size_t step = 0;
    std::int64_t repeats_done = 0;  // of the current step
    Time step_start;                // of the current repeat
    std::size_t outstanding = 0;
    std::function<void(Time)> done;
    // The current step's transfers ordered by route latency, and where each latency's batch
    // ends: one queued action activates a batch (most steps have one or two latencies).
    std::vector<std::uint32_t> by_latency;
    std::vector<std::uint32_t> batch_end;
    std::vector<Time> batch_latency;
    std::vector<const Route*> routes;  // of the current step's transfers, in program order
  };

  // A step's endpoints and latency override, and whether it is separable (see
  // shape_priced_time; then `latency` is its flows' and `rates` their distinct rates). A step
  // of one latency that is not separable keeps the phases one run of it went through instead:
  // its flows in groups that kept equal rates throughout, and per phase (between two
  // arrivals) each group's rate and which groups arrived at its end.
  struct Phase {
    std::vector<double> rates;   // per group; 0 once arrived
    std::vector<char> arriving;  // per group: arrives at the phase's end
  };
  struct StepShape {
    std::vector<std::pair<Topology::Vertex, Topology::Vertex>> endpoints;
    std::optional<Time> latency_override;
    bool separable = false;
    Time latency;
    std::vector<double> rates;  // bytes per picosecond
    bool one_latency = false;
    bool recorded = false;      // a non-separable step's phases were tried
    std::vector<Phase> phases;  // empty when recording failed
  };

  const Route& route(Topology::Vertex from, Topology::Vertex to);
  StepShape& shape_of(const TransferStep& step);
  // The phases of a non-separable step of one latency, recorded from a run of it at `bytes`;
  // false when the step cannot be recorded (a flow without a rate, a time out of range, or a
  // record of more than 2^24 rates).
  bool record_phases(StepShape& shape, double bytes);
  // A recorded step's time at `bytes`, replayed with run()'s arithmetic; null where its flows
  // would arrive in other phases than recorded (run() it then).
  std::optional<Time> replay_phases(const StepShape& shape, double bytes) const;
  void start_step(std::size_t running);
  void prepare_step(Running& running);
  void finish_transfer(std::size_t running);
  void end_step(std::size_t running);
  void activate(std::size_t running, std::size_t batch);
  // The rates of the active flows' set of routes, per route (rate_of_route_), where it was solved
  // before; false otherwise.
  bool recall_rates();
  // Keeps the active flows' rates, just solved, for their set of routes.
  void remember_rates();
  // Brings every flow's bytes to `now` and removes the arrived (the rates change after this).
  void settle(Time now);

  const Topology& topology_;
  int copies_ = 1;
  std::vector<double> capacity_;  // bytes per picosecond, per directed link (2 per edge, by id)
  std::unordered_map<std::uint64_t, Route> routes_;  // by (from << 32) | to; never moved

  std::unordered_map<std::uint64_t, std::vector<StepShape>> shapes_;  // by endpoints' hash

  MaxMinSolver solver_;
  std::vector<const std::vector<int>*> flow_links_;  // the solver's input, reused
  Simulator* simulator_ = nullptr;
  std::vector<Running> running_;
  std::vector<std::size_t> free_running_;  // slots of finished programs
  std::vector<Flow> flows_;
  // Solved rates by their set of routes (a sum of the routes' keys), and the scratch that finds
  // them: per route, its flows and its rate.
  std::unordered_multimap<std::uint64_t, RememberedRates> remembered_;
  std::size_t remembered_size_ = 0;
  // The active flows' set of routes, kept as flows start and arrive: the sum of its routes'
  // keys, each route's flows (by route id), and how many routes have any.
  std::uint64_t routes_key_ = 0;
  std::vector<std::uint32_t> count_;
  std::size_t distinct_routes_ = 0;
  std::vector<double> rate_of_route_;  // recall_rates()'s answer, by route id
  std::vector<char> marked_;           // remember_rates()'s scratch, by route id
  enum class Remembering { off, adaptive, always };
  Remembering remembering_ = Remembering::adaptive;
  std::uint64_t recalled_ = 0;
  std::uint64_t misses_ = 0;
  Time clock_;  // the time the flows' remaining bytes refer to
  // next_event()'s answer while the flows and their bytes stay as they are.
  bool arrival_known_ = false;
  Time next_arrival_;
  bool rates_stale_ = false;
  bool alone_ = false;  // one program in run(): repeated steps are priced once
};

// The same as a one-off call (for tests).
std::vector<double> max_min_rates(const std::vector<double>& capacity,
                                  const std::vector<const std::vector<int>*>& flows);

}  // namespace sgdsim
